/**
 * The reseller area's Staff screen: any staff member sees the list; owners invite, change roles and remove, never
 * their own account. Scoped by the caller's reseller. A reseller keeps at least one owner, also when two owners
 * demote or remove each other at once (issue 21): role changes and removals of one reseller take turns on its row.
 */
import { and, count, eq, isNotNull, ne } from 'drizzle-orm';
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite, type StaffRole } from '@portal/contract/permissions';
import { STAFF_TEXT, type InviteStaffForm } from '@portal/contract/reseller-companies';
import type { Db, Tx } from '../../db/client.ts';
import { companies, resellers, users } from '../../db/schema.ts';
import type { StaffScope } from '../../lib/auth-context.ts';
import { ConflictError, ForbiddenError, NotFoundError, SQLSTATE, databaseErrorOf } from '../../lib/errors.ts';
import type { ModuleDeps } from '../module.ts';
import type { StaffCtx } from './companies.service.ts';
import { inviteStaffMember, listStaff } from './staff.ts';

type Deps = Pick<ModuleDeps, 'db' | 'audit' | 'tokens' | 'mailer' | 'portalUrl' | 'defaultFrom'>;

class EmailTaken extends Error {}

export function createStaffService(deps: Deps) {
  const { db, audit } = deps;
  const requireOwner = (staff: StaffScope) => {
    if (!staffMayWrite(staff.role)) throw new ForbiddenError(API_MESSAGES.staffReadOnly);
  };
  /** A staff member of the caller's reseller other than the caller. */
  const loadOther = async (staff: StaffScope, id: number, q: Db | Tx = db) => {
    const [row] = await q
      .select({ id: users.id, email: users.email, role: users.staffRole, companyId: users.companyId })
      .from(users)
      .innerJoin(companies, eq(companies.id, users.companyId))
      .where(
        and(
          eq(users.id, id),
          eq(companies.resellerId, staff.resellerId),
          eq(companies.kind, 'staff'),
          isNotNull(users.staffRole),
        ),
      );
    if (!row) throw new NotFoundError(STAFF_TEXT.notFound);
    if (row.id === staff.userId) throw new ConflictError(STAFF_TEXT.notYourself);
    return row;
  };
  const record = (ctx: StaffCtx, companyId: number, action: string, targetId: number, after: unknown, tx: Tx) =>
    audit.record(
      {
        companyId,
        actorUserId: ctx.staff.userId,
        action,
        targetType: 'user',
        targetId,
        after,
        requestId: ctx.requestId,
      },
      tx,
    );
  const ownersOf = (tx: Tx, resellerId: number, except: number) =>
    tx
      .select({ n: count() })
      .from(users)
      .innerJoin(companies, eq(companies.id, users.companyId))
      .where(
        and(
          eq(companies.resellerId, resellerId),
          eq(companies.kind, 'staff'),
          eq(users.staffRole, 'owner'),
          ne(users.id, except),
        ),
      );
  /**
   * Runs a change to another staff member with the reseller's row locked (FOR NO KEY UPDATE: foreign key checks
   * of other writes do not wait), so concurrent changes see each other's result: the member is read again, an
   * owner loses the role only while another owner remains (409), and the caller must still be an owner (their
   * session may predate a demotion that just committed).
   */
  const underLock = (
    ctx: StaffCtx,
    id: number,
    losesOwner: (role: string | null) => boolean,
    change: (tx: Tx, member: Awaited<ReturnType<typeof loadOther>>) => Promise<void>,
  ) =>
    db.transaction(async (tx) => {
      const { resellerId, userId } = ctx.staff;
      await tx.select({ id: resellers.id }).from(resellers).where(eq(resellers.id, resellerId)).for('no key update');
      const member = await loadOther(ctx.staff, id, tx);
      if (losesOwner(member.role) && (await ownersOf(tx, resellerId, member.id))[0]!.n === 0)
        throw new ConflictError(STAFF_TEXT.lastOwner);
      const [me] = await tx.select({ role: users.staffRole }).from(users).where(eq(users.id, userId));
      if (me?.role !== 'owner') throw new ForbiddenError(API_MESSAGES.staffReadOnly);
      await change(tx, member);
    });

  return {
    async list(staff: StaffScope) {
      return (await listStaff(db, staff.resellerId)).map((r) => ({
        id: r.id,
        email: r.email,
        firstName: r.firstName,
        lastName: r.lastName,
        role: r.role as StaffRole,
        confirmed: r.confirmedAt !== null,
      }));
    },

    async invite(ctx: StaffCtx, input: InviteStaffForm) {
      requireOwner(ctx.staff);
      let invited: { userId: number; send: () => Promise<void> };
      try {
        invited = await db.transaction(async (tx) => {
          const result = await inviteStaffMember(
            tx,
            {
              tokens: deps.tokens,
              mailer: deps.mailer,
              audit,
              portalUrl: deps.portalUrl,
              defaultFrom: deps.defaultFrom,
            },
            {
              resellerId: ctx.staff.resellerId,
              email: input.email,
              role: input.role,
              actorUserId: ctx.staff.userId,
              requestId: ctx.requestId,
            },
          );
          if (result.outcome !== 'invited') throw new EmailTaken();
          return result;
        });
      } catch (err) {
        if (err instanceof EmailTaken || databaseErrorOf(err)?.code === SQLSTATE.uniqueViolation)
          throw new ConflictError(STAFF_TEXT.emailTaken);
        throw err;
      }
      await invited.send();
      return { id: invited.userId };
    },

    async changeRole(ctx: StaffCtx, id: number, role: StaffRole) {
      requireOwner(ctx.staff);
      await underLock(
        ctx,
        id,
        (before) => before === 'owner' && role !== 'owner',
        async (tx, member) => {
          await tx.update(users).set({ staffRole: role, updatedAt: new Date() }).where(eq(users.id, member.id));
          await record(ctx, member.companyId, 'staff.role', member.id, { before: member.role, role }, tx);
        },
      );
    },

    async remove(ctx: StaffCtx, id: number) {
      requireOwner(ctx.staff);
      await underLock(
        ctx,
        id,
        (before) => before === 'owner',
        async (tx, member) => {
          // Their sessions, codes and keys go with the row (cascades).
          await tx.delete(users).where(eq(users.id, member.id));
          await record(ctx, member.companyId, 'staff.remove', member.id, { email: member.email }, tx);
        },
      );
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;
