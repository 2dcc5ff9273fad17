/**
 * Storage billing (issue 24 item 4), driven through September 2026 (30 days) on the injected clock as billing.test
 * is: the reseller prices snapshots per GB-month in its catalog (bad input 400 with the field's own words, support
 * staff 403); a snapshot kept 10 days and deleted, then another kept 5 days until its VM is deleted, bill exactly
 * their GB-months (GB = 1024³ bytes, over the month's seconds) and nothing after they went; the VM page's month so far
 * and the dashboard's spend include it; another company sees none of it; the CSV and the signed webhook carry the line.
 */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { USAGE_CSV_PATH } from '@portal/contract/billing';
import { API_MESSAGES } from '@portal/contract/messages';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { sumDecimals } from '../../db/priced-usage.ts';
import { auditLog, companies, configurationPrices, users, virtualMachines, vmBackups } from '../../db/schema.ts';
import { syncStoragePeriods } from '../../db/storage-periods.ts';
import { createEgressPolicy } from '../../lib/egress.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createOperationRunner } from '../../engine/operations/runner.ts';
import { createVmEvents } from '../../engine/vm-events.ts';
import { createSecretBox } from '../../engine/vm-secrets.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { decimal, startHookReceiver, type HookReceiver } from '../../../test/hook-receiver.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { createUsageRepository } from './usage.repository.ts';
import { createUsageService } from './usage.service.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { createWebhooksRepository } from './webhooks.repository.ts';

const clock = manualClock(new Date('2026-09-01T00:00:00Z'));
const DAY = 24 * 3_600_000;
const SEPTEMBER_SECONDS = 30n * 24n * 3600n;
const GB = 1024n ** 3n;
const STAFF_PASSWORD = 'Staff-Password-1!';
let t: TestApp;
let hook: HookReceiver;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { BILLING_WEBHOOK_ALLOW_HTTP: 'true', EGRESS_ALLOW: '127.0.0.1/32' } });
  hook = await startHookReceiver('/storage-hook');
});
afterAll(async () => {
  await hook.close();
  await t.close();
});

it('prices snapshot storage in the catalog and bills the GB-months kept, in the usage, the CSV and the webhook', async () => {
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const resellerId = demo!.resellerId;
  const [staffCompany] = await t.db
    .insert(companies)
    .values({ resellerId, name: 'Staff of the reseller', kind: 'staff' })
    .returning();
  const passwordHash = await hashPassword(STAFF_PASSWORD);
  for (const [email, staffRole] of [
    ['owner@storage.test', 'owner'],
    ['support@storage.test', 'support'],
  ] as const)
    await t.db
      .insert(users)
      .values({ companyId: staffCompany!.id, email, passwordHash, staffRole, emailConfirmedAt: clock.now() });
  // A second customer of the same reseller, with a VM-less month: none of the demo company's storage is its.
  const [neighbour] = await t.db
    .insert(companies)
    .values({ resellerId, name: 'Neighbour Ltd', kind: 'customer' })
    .returning();
  let owner = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);
  const support = await signIn(t, 'support@storage.test', STAFF_PASSWORD);
  const c = routes.resellerCatalog;

  // No price yet; bad prices are 400s in the field's words (never an internal name); support staff may only read.
  expect((await owner.call(c.storagePrices)).data).toEqual({ currency: 'USD', snapshot: null, backup: null });
  for (const bad of ['-1', '0', 'abc', '0.123456', '12345678', 0.05, '', true])
    for (const body of [
      { snapshot: bad, backup: null },
      { snapshot: null, backup: bad },
    ]) {
      const res = await owner.call(c.saveStoragePrices, { body: body as never });
      expect([res.status, res.message]).toEqual([400, CATALOG_TEXT.gbMonthPrice]);
    }
  const missing = await owner.call(c.saveStoragePrices, { body: { snapshot: '0.1' } as never });
  expect([missing.status, missing.message]).toEqual([400, CATALOG_TEXT.gbMonthPrice]);
  const unknown = await owner.call(c.saveStoragePrices, {
    body: { snapshot: '0.1', backup: null, gb_month_price: '1' } as never,
  });
  expect(unknown.status).toBe(400);
  const readOnly = await support.call(c.saveStoragePrices, { body: { snapshot: '0.1', backup: null } });
  expect([readOnly.status, readOnly.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  const saved = await owner.call(c.saveStoragePrices, { body: { snapshot: '2.5', backup: '0.02' } });
  expect([saved.status, saved.message, saved.data]).toEqual([
    200,
    CATALOG_TEXT.storagePricesSaved,
    { currency: 'USD', snapshot: '2.50000', backup: '0.02000' },
  ]);
  expect((await support.call(c.storagePrices)).data).toEqual(saved.data);
  const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'catalog.storage.save'));
  expect([entry!.before, entry!.after]).toEqual([
    { snapshot: null, backup: null },
    { snapshot: '2.50000', backup: '0.02000' },
  ]);

  // The customer's VM, run by a runner on the test's clock (the simulator answers at once).
  const runner = createOperationRunner({
    db: t.db,
    registry: createProviderRegistry({}, { simulatorStepMs: 0 }),
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
  });
  const runOperations = async () => {
    await runner.tick();
    await runner.idle();
  };
  let admin = await signIn(t);
  const { createBody, micro } = await seededCatalog(admin);
  await t.db
    .insert(configurationPrices)
    .values({ resellerId, configurationId: micro.id, hourlyPrice: '0.01', monthlyPrice: '5.00' });
  const vmId = (await admin.call(routes.vms.create, { body: createBody('kept-vm') })).data.ids[0]!;
  await runOperations();
  const take = async (name: string) => {
    expect((await admin.call(routes.snapshots.takeSnapshot, { params: { id: vmId }, body: { name } })).status).toBe(
      200,
    );
    await runOperations();
    const list = await admin.call(routes.snapshots.listSnapshots, { params: { id: vmId } });
    const snap = list.data.snapshots.find((s) => s.name === name)!;
    expect(snap.state).toBe('ready');
    return snap;
  };

  // 1 Sep: the first snapshot, kept 10 days, then deleted.
  const first = await take('first');
  clock.advance(10 * DAY);
  admin = await signIn(t);
  expect(
    (await admin.call(routes.snapshots.deleteSnapshot, { params: { id: vmId, snapshotId: first.id } })).status,
  ).toBe(200);
  await runOperations();
  // 11 Sep: the second, kept until the VM is deleted on the 16th.
  const second = await take('second');
  clock.advance(5 * DAY);
  admin = await signIn(t);

  const byteSeconds = BigInt(first.sizeBytes!) * 10n * 86400n + BigInt(second.sizeBytes!) * 5n * 86400n;
  const gbMonths = decimal(byteSeconds, GB * SEPTEMBER_SECONDS, 4);
  const storageAmount = decimal(byteSeconds * 250000n, GB * SEPTEMBER_SECONDS * 100000n, 2); // 2.50000 per GB-month
  const line = {
    kind: 'snapshot',
    vmId,
    vmName: 'kept-vm',
    gbHours: decimal(byteSeconds, GB * 3600n, 2),
    gbMonths,
    gbMonthPrice: '2.50000',
    amount: storageAmount,
  };
  expect(Number(storageAmount)).toBeGreaterThan(1); // the simulator's snapshots: ~0.5 GB-month at 2.50

  // The month so far on the VM page and the dashboard: 15 days of micro (360 h × 0.01 = 3.60) plus the storage.
  const total = sumDecimals(['3.60', storageAmount]);
  const month = await admin.call(routes.vms.monthToDate, { params: { id: vmId } });
  expect(month.data).toMatchObject({ month: '2026-09', hours: '360.00', amount: total });
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toMatchObject({ amount: total });
  owner = await signIn(t, 'owner@storage.test', STAFF_PASSWORD); // sessions do not outlive two weeks
  const running = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-09' },
  });
  expect(running.data).toMatchObject({ amount: '3.60', storageLines: [line], storageAmount, totalAmount: total });

  // 16 Sep: the VM is deleted, its snapshot with it: the storage line stops growing.
  expect((await admin.call(routes.vms.delete, { params: { id: vmId } })).status).toBe(200);
  await runOperations();
  clock.advance(15 * DAY); // 1 Oct 00:00: September has closed
  owner = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);
  const closed = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-09' },
  });
  expect(closed.data.storageLines).toEqual([line]);
  expect(closed.data).toMatchObject({ storageAmount, totalAmount: total });
  expect((await owner.call(routes.billing.usage, { query: { month: '2026-10' } })).data).toMatchObject({
    storageAmount: '0.00',
  });

  // The reseller's month: the demo company's storage is its own; the neighbour's row has none.
  const usage = await owner.call(routes.billing.usage, { query: { month: '2026-09' } });
  expect(usage.data).toMatchObject({ amount: '3.60', storageAmount, totalAmount: total });
  expect(usage.data.companies.find((x) => x.companyId === demo!.id)).toMatchObject({
    storageAmount,
    totalAmount: total,
    unpricedStorageLines: 0,
  });
  expect(usage.data.companies.find((x) => x.companyId === neighbour!.id)).toMatchObject({
    storageAmount: '0.00',
    totalAmount: '0.00',
  });
  const neighbourUsage = await owner.call(routes.billing.companyUsage, {
    params: { id: neighbour!.id },
    query: { month: '2026-09' },
  });
  expect(neighbourUsage.data.storageLines).toEqual([]);

  // Another company's people see none of it: another reseller's customer, and the neighbour's administrator.
  const other = await createOtherCompany(t, 'boss@storage-other.test');
  const stranger = await signIn(t, other.admin.email, PASSWORD);
  clock.advance(-15 * DAY); // back in September for the running-month figures
  expect((await stranger.call(routes.vms.dashboardSummary)).data.spend.amount).toBe('0.00');
  await createUser(t, neighbour!.id, 'admin@neighbour.test', { isCompanyAdmin: true });
  const neighbourAdmin = await signIn(t, 'admin@neighbour.test', PASSWORD);
  expect((await neighbourAdmin.call(routes.vms.dashboardSummary)).data.spend.amount).toBe('0.00');
  admin = await signIn(t);
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend.amount).toBe(total);
  clock.advance(15 * DAY);
  owner = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);

  // The CSV: the VM's row as before, then the storage row (its size columns empty, its GB-months and price).
  const csv = await owner.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=2026-09&companyId=${demo!.id}`);
  expect(csv.status).toBe(200);
  expect(csv.message.split('\r\n')).toEqual([
    'month,company_id,company_name,vm_id,vm_name,configuration_key,configuration_name,seconds,hours,hourly_price,monthly_price,amount,currency,line_kind,gb_months,gb_month_price',
    `2026-09,${demo!.id},${demo!.name},${vmId},kept-vm,micro,${micro.name},1296000,360.00,0.01000,5.00,3.60,USD,vm,,`,
    `2026-09,${demo!.id},${demo!.name},${vmId},kept-vm,,,,,,,${storageAmount},USD,snapshot_storage,${gbMonths},2.50000`,
    '',
  ]);

  // The webhook payload (version 1, revision 2): the storage line and the totals beside the unchanged VM fields.
  expect((await owner.call(routes.billing.setWebhook, { body: { url: hook.url, enabled: true } })).status).toBe(200);
  const worker = createWebhookWorker({
    repo: createWebhooksRepository(t.db, clock),
    usage: createUsageService({ repo: createUsageRepository(t.db), clock }),
    clock,
    log: pino({ level: 'silent' }),
    egress: createEgressPolicy({ allow: ['127.0.0.1/32'] }),
    pollMs: 1000,
  });
  await worker.tick();
  const payloads = hook.received.map((b) => JSON.parse(b) as Record<string, unknown>);
  const mine = payloads.find((p) => (p.company as { id: number }).id === demo!.id);
  expect(mine).toMatchObject({
    version: 1,
    revision: 2,
    period: { month: '2026-09', closed: true },
    lines: [{ vmId, configurationKey: 'micro', hours: '360.00', amount: '3.60' }],
    storageLines: [line],
    totals: { vmCount: 1, hours: '360.00', amount: '3.60', storageAmount, totalAmount: total },
  });
  const theirs = payloads.find((p) => (p.company as { id: number }).id === neighbour!.id);
  expect(theirs).toMatchObject({ storageLines: [], totals: { storageAmount: '0.00' } });
  await worker.stop();
  await runner.stop();
});

it('leaves storage unpriced (no amount) while the reseller removes its price', async () => {
  const owner: TestClient = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);
  const cleared = await owner.call(routes.resellerCatalog.saveStoragePrices, {
    body: { snapshot: null, backup: null },
  });
  expect(cleared.data).toMatchObject({ snapshot: null, backup: null });
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const usage = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-09' },
  });
  expect(usage.data.storageLines).toMatchObject([{ kind: 'snapshot', gbMonthPrice: null, amount: null }]);
  expect(usage.data).toMatchObject({ storageAmount: '0.00', totalAmount: '3.60' });
});

it("bills a kept backup of a deleted VM to its company until the backup goes, through the worker's sync", async () => {
  // 1 Oct 00:00. Backups are written by their own module; billing's worker brings storage periods in step with
  // their rows (db/storage-periods.ts syncStoragePeriods, once a minute), which this test calls on its clock.
  const owner = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);
  await owner.call(routes.resellerCatalog.saveStoragePrices, { body: { snapshot: null, backup: '1.5' } });
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const [vm] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.name, 'kept-vm'));
  expect(vm!.deletedAt).not.toBeNull();
  const [backup] = await t.db
    .insert(vmBackups)
    .values({
      vmId: null, // the VM was deleted with its backups kept
      companyId: demo!.id,
      regionId: vm!.regionId,
      providerId: vm!.providerId,
      name: 'nightly',
      providerName: 'portal-backup-test',
      state: 'ready',
      sizeBytes: 10 * 1024 ** 3,
      vmName: vm!.name,
      image: vm!.image,
      configurationId: vm!.configurationId,
      cpu: 1,
      ram: 1,
      disk: 10,
      completedAt: clock.now(),
    })
    .returning();
  expect(await syncStoragePeriods(t.db, clock.now())).toEqual({ opened: 1, closed: 0 });
  expect(await syncStoragePeriods(t.db, clock.now())).toEqual({ opened: 0, closed: 0 }); // idempotent
  clock.advance(15.5 * DAY); // 16 Oct 12:00: the backup is deleted; the next pass closes its period
  await t.db.delete(vmBackups).where(eq(vmBackups.id, backup!.id));
  expect(await syncStoragePeriods(t.db, clock.now())).toEqual({ opened: 0, closed: 1 });
  clock.advance(15.5 * DAY); // 1 Nov: October (31 days) has closed, nothing more accrued
  expect(await syncStoragePeriods(t.db, clock.now())).toEqual({ opened: 0, closed: 0 });

  const fresh = await signIn(t, 'owner@storage.test', STAFF_PASSWORD);
  const october = await fresh.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-10' },
  });
  // 10 GB × 15.5 days of 31: 5 GB-months at 1.50.
  expect(october.data.storageLines).toEqual([
    {
      kind: 'backup',
      vmId: null,
      vmName: null,
      gbHours: '3720.00',
      gbMonths: '5.0000',
      gbMonthPrice: '1.50000',
      amount: '7.50',
    },
  ]);
  expect(october.data).toMatchObject({ amount: '0.00', storageAmount: '7.50', totalAmount: '7.50' });
  const others = await fresh.call(routes.billing.usage, { query: { month: '2026-10' } });
  expect(others.data.companies.filter((x) => x.storageAmount !== '0.00').map((x) => x.companyId)).toEqual([demo!.id]);
});
