/**
 * X-Forwarded-Host (issue 21, "Low"): behind the documented proxy (TRUST_PROXY=loopback) a client's forwarded
 * host chose the brand and the reseller a sign-in was checked against. Now only TRUST_FORWARDED_HOST=true lets it.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { API_MESSAGES } from '@portal/contract/messages';
import { companies, distributors, resellerDomains, resellers } from '../db/schema.ts';
import { ADMIN, createTestApp, type TestApp } from '../../test/harness.ts';
import { createUser, PASSWORD } from '../../test/fixtures.ts';

const NORTHWIND = 'portal.northwind.example.test';
const GLOBEX = 'portal.globex.example.test';

/** Two resellers with a verified domain each; a user of Globex's. */
async function seedTwoBrands(t: TestApp) {
  const [northwind] = await t.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
  const [d] = await t.db.insert(distributors).values({ name: 'Globex Distribution' }).returning();
  const [globex] = await t.db.insert(resellers).values({ distributorId: d!.id, name: 'Globex Cloud' }).returning();
  const [customer] = await t.db
    .insert(companies)
    .values({ resellerId: globex!.id, name: 'Globex Customer' })
    .returning();
  await createUser(t, customer!.id, 'user@globex.example');
  await t.db.insert(resellerDomains).values([
    { host: NORTHWIND, resellerId: northwind!.id, isPrimary: true, verifiedAt: new Date() },
    { host: GLOBEX, resellerId: globex!.id, isPrimary: true, verifiedAt: new Date() },
  ]);
}

const brand = (t: TestApp, host: string, forwarded: string) =>
  t.client().call(routes.resellerBranding.publicBrand, { headers: { host, 'x-forwarded-host': forwarded } });
const login = (t: TestApp, email: string, password: string, host: string, forwarded: string) =>
  t.client().call(routes.auth.login, { body: { email, password }, headers: { host, 'x-forwarded-host': forwarded } });

describe('behind a trusted proxy without TRUST_FORWARDED_HOST', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Tests inject from 127.0.0.1: a trusted proxy here.
    t = await createTestApp({ env: { TRUST_PROXY: 'loopback' } });
    await seedTwoBrands(t);
  });
  afterAll(async () => t?.close());

  it("the Host header picks the brand; a forwarded host of another reseller's domain is ignored", async () => {
    expect((await brand(t, 'portal.test', GLOBEX)).data.resellerName).toBeNull();
    expect((await brand(t, NORTHWIND, GLOBEX)).data.resellerName).toBe('Northwind Hosting');
    expect((await brand(t, GLOBEX, NORTHWIND)).data.resellerName).toBe('Globex Cloud');
  });

  it('and the sign-in is checked against the Host header: the platform host stays open, a domain stays its own', async () => {
    // Forwarded host Globex's: Northwind's administrator still signs in on the platform host.
    expect((await login(t, ADMIN.email, ADMIN.password, 'portal.test', GLOBEX)).status).toBe(200);
    // On Northwind's domain, Globex's user is refused whatever host is forwarded.
    const refused = await login(t, 'user@globex.example', PASSWORD, NORTHWIND, GLOBEX);
    expect([refused.status, refused.message]).toEqual([401, API_MESSAGES.invalidCredentials]);
  });
});

describe('with TRUST_FORWARDED_HOST=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { TRUST_PROXY: 'loopback', TRUST_FORWARDED_HOST: 'true' } });
    await seedTwoBrands(t);
  });
  afterAll(async () => t?.close());

  it("the trusted proxy's forwarded host picks the brand", async () => {
    expect((await brand(t, 'portal.test', GLOBEX)).data.resellerName).toBe('Globex Cloud');
    expect((await brand(t, GLOBEX, NORTHWIND)).data.resellerName).toBe('Northwind Hosting');
  });
});
