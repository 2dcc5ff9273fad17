/** First run: reference data always, the demo tenant only on an empty database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newPasswordSchema } from '@portal/contract/validation';
import { companies, distributors, resellers, roles, users } from '../db/schema.ts';
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

    expect(await seedDemoTenant(t.db, { adminEmail: 'other@example.com', adminPassword: 'Other-Password-1!' })).toBeNull();
    expect((await t.db.select().from(distributors)).length).toBe(1);
  });

  it('keeps the built-in roles, role 1 being Admin, and is safe to repeat', async () => {
    await seedReferenceData(t.db);
    await seedReferenceData(t.db);
    const rows = await t.db.select().from(roles);
    expect(rows.find((r) => r.id === 1)?.name).toBe('Admin');
    expect(rows.every((r) => r.info.length > 10)).toBe(true);
  });
});
