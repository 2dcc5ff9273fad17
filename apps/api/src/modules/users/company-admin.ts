/**
 * Granting and revoking company administration: the one home of its rule, used by the portal (PUT
 * /users/companyAdmin/:id) and the operator's `company-admin grant|revoke` command.
 *
 * - Every change takes a lock on the company's row (FOR NO KEY UPDATE: inserting users of the company still
 *   goes on) and reads the administrators under it, so two concurrent changes of one company run one after
 *   the other and see each other's result: two administrators revoking each other (or themselves) at once
 *   cannot leave the company without one.
 * - In the portal, the caller must still be an administrator under that lock (their session may be older
 *   than a revocation), and a company keeps at least one administrator: revoking the last one is a 409.
 *   An administrator may revoke themselves while another remains (handing over); they lose it at once.
 * - The operator may revoke the last one (their command is the recovery path: `company-admin grant|invite`).
 * - Audited in the same transaction; the users trigger of migration 0005 tells every instance's session cache.
 */
import { and, asc, eq } from 'drizzle-orm';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import type { Db } from '../../db/client.ts';
import { companies, users } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import { ConflictError, ForbiddenError } from '../../lib/errors.ts';

type UserRow = typeof users.$inferSelect;

export type CompanyAdminResult =
  { outcome: 'notFound' } | { outcome: 'unchanged'; user: UserRow } | { outcome: 'changed'; user: UserRow };

export interface CompanyAdminChange {
  /** A user of the caller's company (the portal), or any user by email (the operator). */
  target: { companyId: number; userId: number } | { email: string };
  grant: boolean;
  /** The portal's caller; null for the operator's command. */
  actor: { userId: number; requestId: string } | null;
  now: Date;
}

export async function setCompanyAdmin(db: Db, audit: Audit, change: CompanyAdminChange): Promise<CompanyAdminResult> {
  const { target, grant, actor } = change;
  const where =
    'email' in target
      ? eq(users.email, target.email.toLowerCase())
      : and(eq(users.id, target.userId), eq(users.companyId, target.companyId));
  // A user's company never changes, so it can be read before the lock.
  const [found] = await db.select({ companyId: users.companyId }).from(users).where(where);
  if (!found) return { outcome: 'notFound' };
  const companyId = found.companyId;

  return db.transaction(async (tx): Promise<CompanyAdminResult> => {
    await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId)).for('no key update');
    const admins = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.isCompanyAdmin, true)))
      .orderBy(asc(users.id));
    if (actor && !admins.some((a) => a.id === actor.userId)) throw new ForbiddenError(ACTIVITY_TEXT.adminsOnly);
    const [current] = await tx.select().from(users).where(where);
    if (!current) return { outcome: 'notFound' };
    if (current.isCompanyAdmin === grant) return { outcome: 'unchanged', user: current };
    if (!grant && actor && admins.length <= 1) throw new ConflictError(ACTIVITY_TEXT.lastAdmin);

    const [user] = await tx
      .update(users)
      .set({ isCompanyAdmin: grant, updatedAt: change.now })
      .where(eq(users.id, current.id))
      .returning();
    await audit.record(
      {
        companyId,
        actorUserId: actor?.userId ?? null,
        action: grant ? 'user.companyAdmin.grant' : 'user.companyAdmin.revoke',
        targetType: 'user',
        targetId: current.id,
        before: { isCompanyAdmin: !grant },
        after: actor ? { isCompanyAdmin: grant } : { isCompanyAdmin: grant, by: 'operator command' },
        ...(actor ? { requestId: actor.requestId } : {}),
      },
      tx,
    );
    return { outcome: 'changed', user: user! };
  });
}
