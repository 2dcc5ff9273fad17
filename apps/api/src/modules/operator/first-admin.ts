/**
 * An operator makes a company's first administrator without SQL: a user of that company with company
 * administration, and an invitation mailed to them (the same link a colleague's invitation carries).
 * Used by the company import (`adminEmail`) and by `npm run operator -- company-admin invite`.
 */
import { and, eq } from 'drizzle-orm';
import { INVITE_TOKEN_TTL_MS } from '@portal/contract/constants';
import type { Db, Tx } from '../../db/client.ts';
import { companies, resellerDomains, resellers, users } from '../../db/schema.ts';
import type { Audit } from '../../lib/audit.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { portalLink } from '../../mail/portal-links.ts';
import { inviteMail } from '../../mail/templates.ts';

export type FirstAdminOutcome =
  /** `send`: mails the invitation; call it once the caller's transaction has committed. */
  | { outcome: 'invited'; userId: number; link: string; send: () => Promise<void> }
  | { outcome: 'exists'; userId: number; companyId: number };

export interface FirstAdminDeps {
  /** The one-time tokens (ModuleDeps `tokens`): the invitation's confirm-email key. */
  tokens: { issue(userId: number, purpose: 'confirm_email', ttlMs: number, tx?: Tx): Promise<string> };
  mailer: Mailer;
  audit: Audit;
  portalUrl: string;
  defaultFrom: string;
}

/**
 * Invites `email` as an administrator of `companyId`; an address that already has an account is left alone.
 * `actorUserId`: the reseller staff member who asked (their company screen); null for the operator.
 */
export async function inviteCompanyAdmin(
  db: Db | Tx,
  deps: FirstAdminDeps,
  companyId: number,
  rawEmail: string,
  actorUserId: number | null = null,
): Promise<FirstAdminOutcome> {
  const email = rawEmail.trim().toLowerCase();
  const [existing] = await db
    .select({ id: users.id, companyId: users.companyId })
    .from(users)
    .where(eq(users.email, email));
  if (existing) return { outcome: 'exists', userId: existing.id, companyId: existing.companyId };
  const [brand] = await db
    .select({
      company: companies.name,
      reseller: resellers.name,
      from: resellers.email,
      portalHost: resellerDomains.host,
    })
    .from(companies)
    .innerJoin(resellers, eq(resellers.id, companies.resellerId))
    .leftJoin(resellerDomains, and(eq(resellerDomains.resellerId, resellers.id), eq(resellerDomains.isPrimary, true)))
    .where(eq(companies.id, companyId));
  if (!brand) throw new Error(`No company #${companyId}`);
  const [user] = await db.insert(users).values({ companyId, email, isCompanyAdmin: true }).returning({ id: users.id });
  const key = await deps.tokens.issue(user!.id, 'confirm_email', INVITE_TOKEN_TTL_MS, db as Tx);
  await deps.audit.record(
    {
      companyId,
      actorUserId,
      action: 'user.invite.companyAdmin',
      targetType: 'user',
      targetId: user!.id,
      after: actorUserId === null ? { email, by: 'operator' } : { email },
    },
    db as Tx,
  );
  const link = portalLink(deps.portalUrl, brand.portalHost, '/confirmNewUser', { token: key, id: user!.id });
  const from = brand.from ? `"${brand.reseller.replace(/"/g, '')}" <${brand.from}>` : deps.defaultFrom;
  const mail = { to: email, from, ...inviteMail(brand.reseller, 'Your provider', brand.company, link) };
  // Not inside the caller's transaction: the outbox row must not outlive a rolled-back user, and PGlite's
  // one connection would wait on that transaction.
  return { outcome: 'invited', userId: user!.id, link, send: async () => void (await deps.mailer.enqueue(mail)) };
}
