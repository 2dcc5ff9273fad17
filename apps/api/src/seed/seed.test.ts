/** First run: reference data always, the demo tenant only on an empty database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPasswordSchema } from '@portal/contract/validation';
import { asc, eq, ne } from 'drizzle-orm';
import { companies, distributors, resellers, roles, teamMembers, teams, users } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { seedDemoTenant, seedReferenceData } from './seed.ts';
import { verifyPassword } from '../lib/passwords.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ seed: false });
});
afterAll(async () => {
  await t.close();
});

describe('seed', () => {
  it('seeds a branded demo tenant once, with a generated password that meets the rules', async () => {
    const first = await seedDemoTenant(t.db, {});
    expect(first).not.toBeNull();
    expect(first!.email).toBe('admin@example.com');
    expect(first!.generated).toBe(true);
    expect(newPasswordSchema.safeParse(first!.password).success).toBe(true);
    const [admin] = await t.db.select().from(users);
    expect(admin!.isCompanyAdmin).toBe(true);
    expect(await verifyPassword(admin!.passwordHash!, first!.password)).toBe(true);
    const [reseller] = await t.db.select().from(resellers);
    expect(reseller!.logoUrl).toMatch(/^data:image\/svg\+xml/);
    expect(reseller!.email).toBeTruthy();
    expect((await t.db.select().from(companies)).length).toBe(1);

    expect(
      await seedDemoTenant(t.db, { adminEmail: 'other@example.com', adminPassword: 'Other-Password-1!' }),
    ).toBeNull();
    expect((await t.db.select().from(distributors)).length).toBe(1);
    // Without demoData (as the tests seed), no demo teams.
    expect(await t.db.select().from(teams)).toEqual([]);
  });

  it('adds demo teams and invited colleagues on a first start', async () => {
    const fresh = await createTestApp({ seed: false });
    try {
      await seedReferenceData(fresh.db);
      await seedDemoTenant(fresh.db, { adminPassword: 'Owner-Password-1!', demoData: true });
      const demoTeams = await fresh.db.select().from(teams).orderBy(asc(teams.name));
      expect(demoTeams.map((row) => row.name)).toEqual(['Platform', 'Web Apps']);
      const colleagues = await fresh.db
        .select()
        .from(users)
        .where(ne(users.email, 'admin@example.com'))
        .orderBy(asc(users.email));
      expect(colleagues.map((u) => [u.email, u.passwordHash, u.emailConfirmedAt])).toEqual([
        ['alan@example.com', null, null],
        ['grace@example.com', null, null],
      ]);
      // The owner is Admin of both; every team keeps an Admin.
      const admins = await fresh.db.select().from(teamMembers).where(eq(teamMembers.roleId, 1));
      expect(admins.map((m) => m.userId)).toEqual([1, 1]);
      expect(await fresh.db.select().from(teamMembers)).toHaveLength(5);
    } finally {
      await fresh.close();
    }
  });

  it('keeps the built-in roles, role 1 being Admin, and is safe to repeat', async () => {
    await seedReferenceData(t.db);
    await seedReferenceData(t.db);
    const rows = await t.db.select().from(roles);
    expect(rows.find((r) => r.id === 1)?.name).toBe('Admin');
    expect(rows.every((r) => r.info.length > 10)).toBe(true);
  });
});
