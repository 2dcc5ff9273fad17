/**
 * Reseller staff accounts (issue 13, decision 0011): users of the reseller's one 'staff' company with a staff role.
 * Made by the operator command line (`reseller-staff add|list|remove`) and the demo seed; invited through the same
 * one-time link as any user (/confirmNewUser).
 */
import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { INVITE_TOKEN_TTL_MS } from '@portal/contract/constants';
import type { StaffRole } from '@portal/contract/permissions';
import type { Db, Tx } from '../../db/client.ts';
import { companies, resellerDomains, resellers, users } from '../../db/schema.ts';
import { portalLink } from '../../mail/portal-links.ts';
import { inviteMail } from '../../mail/templates.ts';
import type { ModuleDeps } from '../module.ts';

/** The reseller's staff company, created on first use (at most one per reseller: a partial unique index). */
export async function ensureStaffCompany(db: Db | Tx, resellerId: number): Promise<number | null> {
  const [reseller] = await db.select({ name: resellers.name }).from(resellers).where(eq(resellers.id, resellerId));
  if (!reseller) return null;
  const existing = async () =>
    (
      await db
        .select({ id: companies.id })
        .from(companies)
        .where(and(eq(companies.resellerId, resellerId), eq(companies.kind, 'staff')))
    )[0]?.id;
  const found = await existing();
  if (found) return found;
  await db
    .insert(companies)
    .values({ resellerId, name: `${reseller.name} staff`, kind: 'staff' })
    .onConflictDoNothing();
  return (await existing()) ?? null;
}

export type StaffInviteOutcome =
  | { outcome: 'invited'; userId: number; link: string; send: () => Promise<void> }
  | { outcome: 'exists'; userId: number }
  | { outcome: 'noReseller' };

/**
 * Creates a staff member of the reseller and returns the invitation to mail once the caller's work committed.
 * `actorUserId`: the owner who invited from the Staff screen; null for the operator command line. The link uses
 * the reseller's primary custom domain when it has one (mail/portal-links.ts), like every other mailed link.
 */
export async function inviteStaffMember(
  db: Db | Tx,
  deps: Pick<ModuleDeps, 'tokens' | 'mailer' | 'audit' | 'portalUrl' | 'defaultFrom'>,
  input: { resellerId: number; email: string; role: StaffRole; actorUserId?: number | null; requestId?: string },
): Promise<StaffInviteOutcome> {
  const email = input.email.trim().toLowerCase();
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) return { outcome: 'exists', userId: existing.id };
  const companyId = await ensureStaffCompany(db, input.resellerId);
  if (!companyId) return { outcome: 'noReseller' };
  const [brand] = await db
    .select({ name: resellers.name, from: resellers.email, portalHost: resellerDomains.host })
    .from(resellers)
    .leftJoin(resellerDomains, and(eq(resellerDomains.resellerId, resellers.id), eq(resellerDomains.isPrimary, true)))
    .where(eq(resellers.id, input.resellerId));
  const [user] = await db.insert(users).values({ companyId, email, staffRole: input.role }).returning({ id: users.id });
  const key = await deps.tokens.issue(user!.id, 'confirm_email', INVITE_TOKEN_TTL_MS, db as Tx);
  const actorUserId = input.actorUserId ?? null;
  const after = { email, role: input.role, resellerId: input.resellerId };
  await deps.audit.record(
    {
      companyId,
      actorUserId,
      action: 'staff.invite',
      targetType: 'user',
      targetId: user!.id,
      after: actorUserId === null ? { ...after, by: 'operator' } : after,
      ...(input.requestId ? { requestId: input.requestId } : {}),
    },
    db as Tx,
  );
  const link = portalLink(deps.portalUrl, brand?.portalHost ?? null, '/confirmNewUser', { token: key, id: user!.id });
  const brandName = brand?.name ?? 'the portal';
  const from = brand?.from ? `"${brandName.replace(/"/g, '')}" <${brand.from}>` : deps.defaultFrom;
  const mail = { to: email, from, ...inviteMail(brandName, 'Your provider', `${brandName} (staff)`, link) };
  return { outcome: 'invited', userId: user!.id, link, send: async () => void (await deps.mailer.enqueue(mail)) };
}

export async function listStaff(db: Db, resellerId: number) {
  return db
    .select({
      id: users.id,
      email: users.email,
      firstName: users.firstName,
      lastName: users.lastName,
      role: users.staffRole,
      confirmedAt: users.emailConfirmedAt,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(companies.resellerId, resellerId), eq(companies.kind, 'staff'), isNotNull(users.staffRole)))
    .orderBy(asc(users.email));
}

/** Removes a staff member (their sessions go with the row); answers false when the address is not staff. */
export async function removeStaff(db: Db, rawEmail: string): Promise<{ id: number; resellerId: number } | null> {
  const email = rawEmail.trim().toLowerCase();
  const [row] = await db
    .select({ id: users.id, resellerId: companies.resellerId })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(and(eq(users.email, email), eq(companies.kind, 'staff'), isNotNull(users.staffRole)));
  if (!row) return null;
  await db.delete(users).where(eq(users.id, row.id));
  return row;
}

/** The demo start's staff owner, with a password (printed once at start, like the demo company's admin). */
export async function seedStaffOwner(
  db: Db,
  input: { resellerId: number; email: string; passwordHash: string },
): Promise<number | null> {
  const companyId = await ensureStaffCompany(db, input.resellerId);
  if (!companyId) return null;
  const [user] = await db
    .insert(users)
    .values({
      companyId,
      email: input.email.toLowerCase(),
      firstName: 'Olive',
      lastName: 'Owner',
      passwordHash: input.passwordHash,
      staffRole: 'owner',
      emailConfirmedAt: new Date(),
    })
    .onConflictDoNothing()
    .returning({ id: users.id });
  return user?.id ?? null;
}
