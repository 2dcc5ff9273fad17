/**
 * Backup storage billed to the second (issue 24 item 4; docs/decisions/0027-host-concurrency-and-exact-storage.md),
 * through the real server and runner on the simulator and the injected clock, on both engines: a backup's storage
 * period opens in the transaction that makes it ready and ends in the one that deletes its row (its delete, or its
 * VM's delete), never at the billing worker's next pass; deleting a base merges it into its incremental child, whose
 * size on the API grows by the base's and is billed at that size from that second. The month's usage (the screen's
 * API), the CSV and the signed webhook then carry exactly the GB-months of those seconds, and the worker's sync pass
 * finds nothing to add or close.
 */
import { and, asc, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { USAGE_CSV_PATH } from '@portal/contract/billing';
import { routes } from '@portal/contract/routes';
import { companies, storagePeriods, users, virtualMachines } from '../../db/schema.ts';
import { syncStoragePeriods } from '../../db/storage-periods.ts';
import { createEgressPolicy } from '../../lib/egress.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { decimal, startHookReceiver, type HookReceiver } from '../../../test/hook-receiver.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { until } from '../../../test/until.ts';
import { createUsageRepository } from './usage.repository.ts';
import { createUsageService } from './usage.service.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { createWebhooksRepository } from './webhooks.repository.ts';

const clock = manualClock(new Date('2026-10-01T00:00:00Z'));
const SECOND = 1000;
const OCTOBER_SECONDS = 31n * 24n * 3600n;
const GB = 1024n ** 3n;
let t: TestApp;
let hook: HookReceiver;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: {
      SIMULATOR_STEP_MS: '20',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      VM_HOST_CHECK_INTERVAL_MS: '100000',
      BACKUP_VERIFY: 'off',
      BILLING_WEBHOOK_ALLOW_HTTP: 'true',
      EGRESS_ALLOW: '127.0.0.1/32',
    },
  });
  // The runner takes and deletes on the test's clock (it does not move while the runner works).
  t.portal.startWorkers();
  hook = await startHookReceiver('/exact-hook');
});
afterAll(async () => {
  await hook.close();
  await t.close();
});

/** Moves the clock on by d days, h hours, m minutes and s seconds: instants that fall on no minute. */
const advance = (d: number, h: number, m: number, s: number) =>
  clock.advance((((d * 24 + h) * 60 + m) * 60 + s) * SECOND);
const periodsOf = (objectId: number) =>
  t.db
    .select()
    .from(storagePeriods)
    .where(and(eq(storagePeriods.kind, 'backup'), eq(storagePeriods.objectId, objectId)))
    .orderBy(asc(storagePeriods.id));

it('bills backups from the second they are ready to the second they go, a merged child at its new size', async () => {
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [demo] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: demo!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(t, staff!.id, 'owner@exact.example', { staffRole: 'owner' });
  let owner = await signIn(t, 'owner@exact.example', PASSWORD);
  expect(
    (await owner.call(routes.resellerCatalog.saveStoragePrices, { body: { snapshot: null, backup: '0.03' } })).status,
  ).toBe(200);

  let customer: TestClient = await signIn(t);
  const catalog = await seededCatalog(customer);
  const vmId = (await customer.call(routes.vms.create, { body: catalog.createBody('exact-vm') })).data.ids[0]!;
  const details = async () => (await customer.call(routes.vms.details, { params: { id: vmId } })).data;
  await until('the VM Running', details, (d) => d.status === 'Running' && d.pendingOperation === null);
  const backups = async () => (await customer.call(routes.backups.listBackups, { params: { id: vmId } })).data.backups;
  const take = async (name: string) => {
    const res = await customer.call(routes.backups.takeBackup, { params: { id: vmId }, body: { name } });
    expect(res.status, res.message).toBe(200);
    const ready = await until(`${name} ready`, backups, (b) => b.find((x) => x.id === res.data.id)?.state === 'ready');
    await until('the take ended', details, (d) => d.pendingOperation === null);
    return ready.find((x) => x.id === res.data.id)!;
  };
  const remove = async (backupId: number) => {
    const res = await customer.call(routes.backups.deleteBackup, { params: { id: vmId, backupId } });
    expect(res.status, res.message).toBe(200);
  };

  // 3 Oct 07:13:21: the full backup. Its period opens at its completion, at once (no sync pass).
  advance(2, 7, 13, 21);
  customer = await signIn(t); // sessions end after a while idle
  const t0 = clock.now();
  const base = await take('base');
  expect(base).toMatchObject({ incremental: false, completedAt: t0.toISOString() });
  expect(await periodsOf(base.id)).toMatchObject([{ sizeBytes: base.sizeBytes, startedAt: t0, endedAt: null }]);

  // 5 Oct 12:30:30: an incremental one over it, smaller.
  advance(2, 5, 17, 9);
  customer = await signIn(t); // sessions end after a while idle
  const t1 = clock.now();
  const child = await take('child');
  expect(child.incremental).toBe(true);
  expect(child.sizeBytes!).toBeLessThan(base.sizeBytes!);
  expect(await periodsOf(child.id)).toMatchObject([{ sizeBytes: child.sizeBytes, startedAt: t1, endedAt: null }]);

  // 6 Oct 15:33:21: the base is deleted: merged into the child, which grows by its size from that second.
  advance(1, 3, 2, 51);
  customer = await signIn(t); // sessions end after a while idle
  const t2 = clock.now();
  await remove(base.id);
  const merged = (await backups()).find((b) => b.id === child.id)!;
  expect(merged).toMatchObject({ state: 'ready', incremental: false, sizeBytes: base.sizeBytes! + child.sizeBytes! });
  expect(await periodsOf(base.id)).toMatchObject([{ startedAt: t0, endedAt: t2 }]);
  expect(await periodsOf(child.id)).toMatchObject([
    { sizeBytes: child.sizeBytes, startedAt: t1, endedAt: t2 },
    { sizeBytes: merged.sizeBytes, startedAt: t2, endedAt: null },
  ]);

  // 11 Oct 02:33:28: the merged child is deleted.
  advance(4, 11, 0, 7);
  customer = await signIn(t); // sessions end after a while idle
  const t3 = clock.now();
  await remove(child.id);
  expect((await periodsOf(child.id))[1]).toMatchObject({ endedAt: t3 });

  // 13 Oct 09:41:00: another, kept until its VM is deleted on 20 Oct 23:59:59 (its delete ends it, in the same step).
  advance(2, 7, 7, 32);
  customer = await signIn(t); // sessions end after a while idle
  const t4 = clock.now();
  const last = await take('last');
  expect(last.incremental).toBe(false); // its base went: a new full chain
  advance(7, 14, 18, 59);
  customer = await signIn(t); // sessions end after a while idle
  const t5 = clock.now();
  expect((await customer.call(routes.vms.delete, { params: { id: vmId } })).status).toBe(200);
  await until(
    'the VM deleted',
    async () => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!.deletedAt,
    (at) => at !== null,
  );
  expect(await periodsOf(last.id)).toMatchObject([{ sizeBytes: last.sizeBytes, startedAt: t4, endedAt: t5 }]);

  // The billing worker's pass finds every period already right.
  expect(await syncStoragePeriods(t.db, clock.now())).toEqual({ opened: 0, closed: 0 });

  // 1 Nov: October's figures, to the second.
  clock.advance(Date.UTC(2026, 10, 1) - clock.now().getTime());
  const seconds = (a: Date, b: Date) => BigInt((b.getTime() - a.getTime()) / SECOND);
  const byteSeconds =
    BigInt(base.sizeBytes!) * seconds(t0, t2) +
    BigInt(child.sizeBytes!) * seconds(t1, t2) +
    BigInt(merged.sizeBytes!) * seconds(t2, t3) +
    BigInt(last.sizeBytes!) * seconds(t4, t5);
  const gbMonths = decimal(byteSeconds, GB * OCTOBER_SECONDS, 4);
  const amount = decimal(byteSeconds * 3000n, GB * OCTOBER_SECONDS * 100000n, 2); // 0.03000 per GB-month
  const line = {
    kind: 'backup',
    vmId,
    vmName: 'exact-vm',
    gbHours: decimal(byteSeconds, GB * 3600n, 2),
    gbMonths,
    gbMonthPrice: '0.03000',
    amount,
  };
  owner = await signIn(t, 'owner@exact.example', PASSWORD);
  const usage = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-10' },
  });
  expect(usage.data.storageLines).toEqual([line]);
  expect(usage.data.storageAmount).toBe(amount);

  const csv = await owner.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=2026-10&companyId=${demo!.id}`);
  expect(csv.status).toBe(200);
  expect(csv.message.split('\r\n')).toContain(
    `2026-10,${demo!.id},${demo!.name},${vmId},exact-vm,,,,,,,${amount},USD,backup_storage,${gbMonths},0.03000`,
  );

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
  await worker.stop();
  const payload = hook.received
    .map((b) => JSON.parse(b) as { company: { id: number }; period: { month: string } })
    .find((p) => p.company.id === demo!.id && p.period.month === '2026-10');
  expect(payload).toMatchObject({ storageLines: [line], totals: { storageAmount: amount } });
});
