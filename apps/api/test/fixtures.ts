/** Test tenants: a second company and users with given team roles, created straight in the database. */
import type { VmStatus } from '@portal/contract/vm-lifecycle';
import { companies, distributors, resellers, teamMembers, teams, users } from '../src/db/schema.ts';
import { hashPassword } from '../src/lib/passwords.ts';
import type { TestApp } from './harness.ts';

export const PASSWORD = 'Fixture-Password-1!';
let hashed: Promise<string> | undefined;
const passwordHash = () => (hashed ??= hashPassword(PASSWORD));

export async function createUser(
  t: TestApp,
  companyId: number,
  email: string,
  extra: Partial<typeof users.$inferInsert> = {},
) {
  const [row] = await t.db
    .insert(users)
    .values({
      companyId,
      email,
      firstName:
        email
          .split('@')[0]!
          .replace(/[^a-z]/gi, ' ')
          .trim() || 'User',
      lastName: 'Tester',
      passwordHash: await passwordHash(),
      emailConfirmedAt: new Date(),
      ...extra,
    })
    .returning();
  return row!;
}

export async function createTeam(
  t: TestApp,
  companyId: number,
  name: string,
  members: { userId: number; roleId: number }[] = [],
) {
  const [team] = await t.db.insert(teams).values({ companyId, name }).returning();
  for (const m of members) await t.db.insert(teamMembers).values({ teamId: team!.id, ...m });
  return team!;
}

/** A second, unrelated tenant with its own company admin. */
export async function createOtherCompany(t: TestApp, adminEmail = 'boss@other.example') {
  const [d] = await t.db.insert(distributors).values({ name: 'Other Distributor' }).returning();
  const [r] = await t.db
    .insert(resellers)
    .values({ distributorId: d!.id, name: 'Other Reseller', email: 'no-reply@other.example' })
    .returning();
  const [c] = await t.db.insert(companies).values({ resellerId: r!.id, name: 'Other Company' }).returning();
  const admin = await createUser(t, c!.id, adminEmail, { isCompanyAdmin: true });
  return { companyId: c!.id, admin };
}

/** A VM row (with the catalog rows it needs), for tests that only need one to exist. */
export async function insertVm(
  t: TestApp,
  values: { companyId: number; teamId: number | null; name?: string; status?: VmStatus; createdByUserId?: number },
) {
  const { countries, regions, configurations, providers, virtualMachines } = await import('../src/db/schema.ts');
  const [country] = await t.db
    .insert(countries)
    .values({ name: `Fixture land ${Math.random()}` })
    .returning();
  const [region] = await t.db.insert(regions).values({ countryId: country!.id, name: 'Fixture region' }).returning();
  const [config] = await t.db
    .insert(configurations)
    .values({ key: `fixture-${Math.random()}`, name: 'Fixture', cpu: 2, ram: 4, disk: 80 })
    .returning();
  const [provider] = await t.db.insert(providers).values({ name: 'Fixture provider', driver: 'simulator' }).returning();
  const [vm] = await t.db
    .insert(virtualMachines)
    .values({
      companyId: values.companyId,
      teamId: values.teamId,
      name: values.name ?? 'fixture-vm',
      status: values.status ?? 'Running',
      configurationId: config!.id,
      regionId: region!.id,
      image: 'Debian 12',
      providerId: provider!.id,
      createdByUserId: values.createdByUserId ?? null,
    })
    .returning();
  return vm!;
}
