/**
 * A production start (SEED_DEMO=false) has no demo tenant, users or simulated providers; the operator
 * imports a company with its first administrator, who gets the invitation by mail and signs in
 * (issue 9 item 18).
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteData } from '@portal/contract/common';
import { routes } from '@portal/contract/routes';
import { distributors, providers, users } from '../../db/schema.ts';
import { seedReferenceData } from '../../seed/seed.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { linkFrom } from '../../../test/smtp-catcher.ts';
import { createOperatorTokens } from './operator-tokens.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp({ seed: false });
  token = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('setup')
  ).token;
});
afterAll(async () => t.close());

const count = async (table: typeof users | typeof distributors | typeof providers) =>
  (await t.db.select({ n: sql<number>`count(*)::int` }).from(table))[0]!.n;
/** An import call; every import answers the same report shape. */
const post = (path: string, rows: Record<string, unknown>[]) =>
  t
    .client()
    .raw<RouteData<typeof routes.platform.importCompanies>>(
      'POST',
      `${t.config.API_BASE_PATH}${path}`,
      { rows },
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    );

describe('a production start', () => {
  it('seeds no simulated providers with SEED_DEMO=false (and the demo catalog otherwise)', async () => {
    // The harness seeds reference data as a demo start does; empty the catalog to start as production would.
    await t.db.execute(
      sql`truncate provider_offerings, providers, images, cities, regions, countries, configurations restart identity cascade`,
    );
    await seedReferenceData(t.db, { driver: 'simulator', demo: false });
    expect(await count(providers)).toBe(0);
    expect(await count(distributors)).toBe(0);
    await seedReferenceData(t.db, { driver: 'simulator', demo: true });
    expect(await count(providers)).toBeGreaterThan(0);
  });

  it(
    'lets the operator import a company with its first administrator, who is mailed and signs in',
    { timeout: 120_000 },
    async () => {
      expect(await count(users)).toBe(0);
      expect(
        (await post(routes.platform.importDistributors.path, [{ externalId: 'd1', name: 'Dist' }])).data.created,
      ).toBe(1);
      expect(
        (
          await post(routes.platform.importResellers.path, [
            { externalId: 'r1', distributorExternalId: 'd1', name: 'Acme Cloud', email: 'no-reply@acme.example' },
          ])
        ).data.created,
      ).toBe(1);
      const res = await post(routes.platform.importCompanies.path, [
        { externalId: 'c1', resellerExternalId: 'r1', name: 'Customer Ltd', adminEmail: 'Boss@Customer.example' },
      ]);
      expect(res.data).toMatchObject({ created: 1, rejected: 0 });
      const mail = await t.smtp.waitFor('boss@customer.example', (m) => /invited/i.test(m.subject));
      expect(mail.text).toContain('Customer Ltd');
      const link = linkFrom(mail);
      const confirmed = await t.client().call(routes.password.confirmEmail, {
        params: { token: Number(link.searchParams.get('id')) },
        body: {
          resetKey: link.searchParams.get('token')!,
          password: 'Customer-Boss-Pass-77!',
          firstName: 'Bo',
          lastName: 'Ss',
        },
      });
      expect(confirmed.status).toBe(200);
      const boss = await signIn(t, 'boss@customer.example', 'Customer-Boss-Pass-77!');
      expect((await boss.call(routes.password.me)).data).toMatchObject({
        isCompanyAdmin: true,
        companyName: 'Customer Ltd',
      });
      const [row] = await t.db.select().from(users).where(eq(users.email, 'boss@customer.example'));
      expect(row!.isCompanyAdmin).toBe(true);
    },
  );
});
