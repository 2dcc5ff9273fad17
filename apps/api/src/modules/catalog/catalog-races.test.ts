/**
 * A customer's create against the reseller's catalog changing under it (decision 0014). The reseller's save holds
 * the provider row (FOR UPDATE) while it checks for live VMs and drops a region; the create holds the same row FOR
 * SHARE while it checks the offer and inserts. Each race needs a second connection that holds the row while the API
 * runs, so this file runs on PostgreSQL only (PGlite has one connection: its transactions never overlap).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { companies, users, virtualMachines } from '../../db/schema.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let customer: TestClient;
let owner: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;
let providerId: number;

beforeAll(async () => {
  t = await createTestApp();
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [company] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(t, staff!.id, 'owner@race.example', { staffRole: 'owner' });
  [customer, owner] = await Promise.all([signIn(t), signIn(t, 'owner@race.example', PASSWORD)]);
  catalog = await seededCatalog(customer);
  const created = await owner.call(c.createProvider, {
    body: { name: 'Race cloud', driver: 'simulator', enabled: true },
  });
  providerId = created.data.id;
});
afterAll(async () => {
  await t.close();
});

/** Runs `body` while a second connection holds the provider row as the reseller's save does, then commits. */
async function whileTheSaveHoldsTheProvider<T>(
  change: string,
  params: unknown[],
  body: () => Promise<T>,
): Promise<{ settledBeforeCommit: boolean; result: T }> {
  const saving = await t.database.pool!.connect();
  try {
    await saving.query('begin');
    await saving.query('select id from providers where id = $1 for update', [providerId]);
    await saving.query(change, params);
    let settled = false;
    const running = body().finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    const settledBeforeCommit = settled;
    await saving.query('commit');
    return { settledBeforeCommit, result: await running };
  } finally {
    saving.release();
  }
}

const create = (name: string) =>
  customer.call(routes.vms.create, { body: { ...catalog.createBody(name), providerId } });

it('a create racing the drop of its region waits for the drop, then is refused; nothing is stored', async () => {
  await owner.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [catalog.east.id] } });
  const { settledBeforeCommit, result } = await whileTheSaveHoldsTheProvider(
    'delete from provider_offerings where provider_id = $1 and region_id = $2',
    [providerId, catalog.east.id],
    () => create('raced-the-drop'),
  );
  expect(settledBeforeCommit).toBe(false);
  expect([result.status, result.message]).toEqual([400, 'Chosen configuration has no possible provider']);
  expect(await t.db.select().from(virtualMachines).where(eq(virtualMachines.name, 'raced-the-drop'))).toEqual([]);
});

it('a create racing a save that keeps its region goes through once the save commits', async () => {
  await owner.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [catalog.east.id] } });
  const { settledBeforeCommit, result } = await whileTheSaveHoldsTheProvider(
    'update providers set name = name where id = $1',
    [providerId],
    () => create('raced-a-save'),
  );
  expect(settledBeforeCommit).toBe(false);
  expect(result.status).toBe(200);
});

it('two creates on one provider at once both go through (the lock they take is shared)', async () => {
  const [a, b] = await Promise.all([create('together-1'), create('together-2')]);
  expect([a.status, b.status]).toEqual([200, 200]);
});

it('a region drop after a create committed is refused: the VM keeps its place in the catalog', async () => {
  const drop = await owner.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [] } });
  expect(drop.status).toBe(409);
});
