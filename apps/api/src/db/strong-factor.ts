/**
 * THE "has a strong factor" rule (issue 26 item 2; docs/two-factor.md "Company policy"): an authenticator app
 * confirmed, or a passkey. Every check of it goes through here (the session resolve, the API token resolve, turning
 * a policy on), so adding a factor is one edit. In db/ because the auth and api-tokens modules both need it.
 */
import { and, eq, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.ts';
import { companies, resellers, userPasskeys, userTotp, users } from './schema.ts';

/** SQL: the user (a column or a value) has a strong factor. */
export function hasStrongFactorSql(userId: SQL | typeof users.id): SQL<boolean> {
  return sql<boolean>`(exists (select 1 from ${userTotp} where ${userTotp.userId} = ${userId} and ${userTotp.enabledAt} is not null) or exists (select 1 from ${userPasskeys} where ${userPasskeys.userId} = ${userId}))`;
}

/**
 * SQL over a query that joins `users` and their `companies`: a policy requires this user to have a strong factor
 * (their company's for its users; their reseller's for its staff).
 */
export const policyRequiresStrongFactorSql: SQL<boolean> = sql<boolean>`(${companies.requireAuthenticator} or (${users.staffRole} is not null and exists (select 1 from ${resellers} where ${resellers.id} = ${companies.resellerId} and ${resellers.requireStaffAuthenticator})))`;

/** SQL over a query that joins `users` and their `companies`: the user is held to the set-up until they enrol. */
export const mustSetUpStrongFactorSql: SQL<boolean> = sql<boolean>`(${policyRequiresStrongFactorSql} and not ${hasStrongFactorSql(users.id)})`;

/** Whether the user has a strong factor (an authenticator app confirmed, or a passkey). */
export async function hasStrongFactor(db: Db, userId: number): Promise<boolean> {
  const [app] = await db
    .select({ userId: userTotp.userId })
    .from(userTotp)
    .where(and(eq(userTotp.userId, userId), isNotNull(userTotp.enabledAt)))
    .limit(1);
  if (app) return true;
  const [key] = await db
    .select({ id: userPasskeys.id })
    .from(userPasskeys)
    .where(eq(userPasskeys.userId, userId))
    .limit(1);
  return Boolean(key);
}

/**
 * Which policy requires the user to have a strong factor: 'staff' (their reseller's, for its staff), 'company'
 * (their company's), or null. The messages differ ("Your organisation…" for staff, "Your company…" otherwise).
 */
export async function requiringPolicy(db: Db, userId: number): Promise<'staff' | 'company' | null> {
  const [row] = await db
    .select({
      staff: sql<boolean>`(${users.staffRole} is not null and exists (select 1 from ${resellers} where ${resellers.id} = ${companies.resellerId} and ${resellers.requireStaffAuthenticator}))`,
      company: companies.requireAuthenticator,
    })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(eq(users.id, userId))
    .limit(1);
  if (row?.staff) return 'staff';
  return row?.company ? 'company' : null;
}

/** Whether a policy (the company's, or for staff the reseller's) requires the user to have a strong factor. */
export async function policyRequiresStrongFactor(db: Db, userId: number): Promise<boolean> {
  const [row] = await db
    .select({ required: policyRequiresStrongFactorSql })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(eq(users.id, userId))
    .limit(1);
  return Boolean(row?.required);
}
