/** Test tenants: a second company and users with given team roles, created straight in the database. */
import { companies, distributors, resellers, teamMembers, teams, users } from '../src/db/schema.ts';
import { hashPassword } from '../src/lib/passwords.ts';
import type { TestApp } from './harness.ts';

export const PASSWORD = 'Fixture-Password-1!';
let hashed: Promise<string> | undefined;
const passwordHash = () => (hashed ??= hashPassword(PASSWORD));

export async function createUser(t: TestApp, companyId: number, email: string, extra: Partial<typeof users.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(users)
    .values({ companyId, email, firstName: email.split('@')[0]!.replace(/[^a-z]/gi, ' ').trim() || 'User', lastName: 'Tester', passwordHash: await passwordHash(), emailConfirmedAt: new Date(), ...extra })
    .returning();
  return row!;
}

export async function createTeam(t: TestApp, companyId: number, name: string, members: { userId: number; roleId: number }[] = []) {
  const [team] = await t.db.insert(teams).values({ companyId, name }).returning();
  for (const m of members) await t.db.insert(teamMembers).values({ teamId: team!.id, ...m });
  return team!;
}

/** A second, unrelated tenant with its own company admin. */
export async function createOtherCompany(t: TestApp, adminEmail = 'boss@other.example') {
  const [d] = await t.db.insert(distributors).values({ name: 'Other Distributor' }).returning();
  const [r] = await t.db.insert(resellers).values({ distributorId: d!.id, name: 'Other Reseller', email: 'no-reply@other.example' }).returning();
  const [c] = await t.db.insert(companies).values({ resellerId: r!.id, name: 'Other Company' }).returning();
  const admin = await createUser(t, c!.id, adminEmail, { isCompanyAdmin: true });
  return { companyId: c!.id, admin };
}
