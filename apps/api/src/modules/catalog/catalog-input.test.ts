/**
 * What a reseller types into its catalog fits the database (issue 21, point 5): a price at its column's largest
 * value is saved, one above is a 400 with the field's message (an hourly price of 10,000,000 was a numeric overflow,
 * a 500); a provider name is one reseller's once, also when twelve creates of it arrive together (the unique index
 * decides; the losers get the same 409 as a later duplicate, not the generic one). Both engines: on PGlite the
 * requests still interleave between the name check and the insert.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { companies, configurationPrices, configurations, providers } from '../../db/schema.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { createTestApp, errorData, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let owner: TestClient;
let resellerId: number;
let microId: number;

beforeAll(async () => {
  t = await createTestApp();
  const other = await createOtherCompany(t, 'admin@catalog-input.example');
  const [company] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  resellerId = company!.resellerId;
  const [staff] = await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning();
  await createUser(t, staff!.id, 'owner@catalog-input.example', { staffRole: 'owner' });
  owner = await signIn(t, 'owner@catalog-input.example', PASSWORD);
  const [micro] = await t.db.select().from(configurations).where(eq(configurations.key, 'micro'));
  microId = micro!.id;
});
afterAll(async () => {
  await t.close();
});

describe('prices fit numeric(12,2) and numeric(12,5)', () => {
  const save = (monthlyPrice: string, hourlyPrice: string) =>
    owner.call(c.saveSize, { params: { id: microId }, body: { monthlyPrice, hourlyPrice, offered: true } });

  it('the largest prices the columns hold are saved', async () => {
    const res = await save('9999999999.99', '9999999.99999');
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ monthlyPrice: '9999999999.99', hourlyPrice: '9999999.99999' });
    const [row] = await t.db
      .select()
      .from(configurationPrices)
      .where(and(eq(configurationPrices.resellerId, resellerId), eq(configurationPrices.configurationId, microId)));
    expect([row!.monthlyPrice, row!.hourlyPrice]).toEqual(['9999999999.99', '9999999.99999']);
  });

  it('one digit more is a 400 with the field message, never a 500', async () => {
    // The message is what the portal shows: no internal path such as "(body.monthlyPrice)" (issue 25); the
    // field stays in data.issues for clients.
    for (const [monthly, hourly, message, path] of [
      ['10', '10000000', CATALOG_TEXT.hourlyPrice, 'body.hourlyPrice'],
      ['10', '99999999.5', CATALOG_TEXT.hourlyPrice, 'body.hourlyPrice'],
      ['10000000000', '0.01', CATALOG_TEXT.monthlyPrice, 'body.monthlyPrice'],
    ] as const) {
      const res = await save(monthly, hourly);
      expect([res.status, res.message], `${monthly} ${hourly}`).toEqual([400, message]);
      expect(errorData(res)?.issues?.[0]).toEqual({ path, message });
    }
  });

  it('ids above the largest integer are a 400', async () => {
    const res = await owner.call(c.saveSize, {
      params: { id: '2147483648' },
      body: { monthlyPrice: '1', hourlyPrice: '0.1', offered: true },
    });
    expect(res.status).toBe(400);
  });
});

describe('provider names are unique per reseller', () => {
  it('twelve creates of one name at once: one provider, eleven 409 "You already have a provider of that name"', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () =>
        owner.call(c.createProvider, { body: { name: 'Twelve at once', driver: 'simulator', enabled: false } }),
      ),
    );
    const answers = results.map((res) => [res.status, res.message]);
    expect(answers.filter(([status]) => status === 200)).toHaveLength(1);
    expect(answers.filter(([status]) => status !== 200)).toEqual(
      Array.from({ length: 11 }, () => [409, CATALOG_TEXT.providerNameTaken]),
    );
    const rows = await t.db
      .select()
      .from(providers)
      .where(and(eq(providers.resellerId, resellerId), eq(providers.name, 'Twelve at once')));
    expect(rows).toHaveLength(1);
  });

  it('names that differ only in case race to one provider too (the index is on lower(name))', async () => {
    const names = ['Case Cloud', 'case cloud', 'CASE CLOUD', 'Case cloud'];
    const results = await Promise.all(
      names.map((name) => owner.call(c.createProvider, { body: { name, driver: 'simulator', enabled: false } })),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409, 409]);
    const rows = await t.db
      .select()
      .from(providers)
      .where(and(eq(providers.resellerId, resellerId), sql`lower(${providers.name}) = 'case cloud'`));
    expect(rows).toHaveLength(1);
  });

  it('renames racing to one name: one wins, the others get the same 409', async () => {
    const ids: number[] = [];
    for (const name of ['Rename one', 'Rename two', 'Rename three']) {
      const res = await owner.call(c.createProvider, { body: { name, driver: 'simulator', enabled: false } });
      ids.push(res.data.id);
    }
    const results = await Promise.all(
      ids.map((id) => owner.call(c.updateProvider, { params: { id }, body: { name: 'Renamed' } })),
    );
    expect(results.map((res) => [res.status, res.message === CATALOG_TEXT.providerNameTaken]).sort()).toEqual([
      [200, false],
      [409, true],
      [409, true],
    ]);
  });
});
