/**
 * The metrics history (issue 22 item 3) through the real server, on an injected clock: the reconciler's one call per
 * host per pass (sampleAll of a fake libvirt host whose counters the test moves) stored per host, read back by
 * GET /virtualMachines/metrics/:id as minute points (<= 24 h) and hourly roll-ups (beyond) across a day's end (UTC
 * midnight, which is also a month's: traffic splits there), a machine that restarted (counters back to 0) counting
 * no negative traffic, retention, VM details reading the latest sample, a bad range and another company's VM.
 */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import type { VmMetrics } from '@portal/contract/virtual-machines';
import { configurations, hosts, providers, regions, virtualMachines, vmTrafficMonths } from '../../db/schema.ts';
import { createAudit } from '../../lib/audit.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { createOtherCompany, PASSWORD } from '../../../test/fixtures.ts';
import { manualClock, type ManualClock } from '../../../test/manual-clock.ts';
import { refForKey } from '../../providers/libvirt/names.ts';
import type { HostSample, MachineState, MachineStats, ProviderDriver } from '../../providers/provider.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createReconciler } from '../reconciler.ts';
import { createVmEvents } from '../vm-events.ts';
import { createEngineMetrics } from './metrics.ts';

const GIB = 1024 ** 3;
const MIN = 60_000;
const HOUR = 60 * MIN;

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  // 22:55 UTC on the last day of January: the day and the month end at the same midnight.
  clock = manualClock(new Date('2026-01-31T22:55:00Z'));
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

/** The engine's metrics on the test's database and clock (its sweep, run by hand). */
const sweeper = () => createEngineMetrics({ db: t.db, clock, log: pino({ level: 'silent' }) });

/** A libvirt host answering every pass with its machines' states and the counters the test sets. */
function fakeHost() {
  const host = {
    stats: new Map<string, MachineStats>(),
    calls: 0,
    driver: {
      kind: 'libvirt',
      status: () => Promise.reject(new Error('asked per machine')),
      statusAll: () => Promise.reject(new Error('asked without statistics')),
      sampleAll: async (): Promise<HostSample> => {
        host.calls++;
        const states = new Map<string, MachineState>([...host.stats.keys()].map((ref) => [ref, 'running']));
        return { states, stats: new Map([...host.stats].map(([ref, s]) => [ref, { ...s }])) };
      },
    } as unknown as ProviderDriver,
  };
  return host;
}

const zero = (): MachineStats => ({
  cpuTimeNs: 0,
  vcpus: 2,
  memoryUsedBytes: GIB,
  diskReadBytes: 0,
  diskWriteBytes: 0,
  netRxBytes: 0,
  netTxBytes: 0,
});

/** Per hour (UTC) of an interval's end: CPU % of 2 vCPUs and bytes per second. */
const RATES: Record<number, { cpu: number; rx: number; tx: number; read: number; write: number }> = {
  23: { cpu: 25, rx: 1000, tx: 100, read: 2000, write: 4000 },
  0: { cpu: 75, rx: 3000, tx: 300, read: 6000, write: 8000 },
  1: { cpu: 50, rx: 2000, tx: 200, read: 1000, write: 1000 },
};

let vmId = 0;
let restartedVmId = 0;
let otherCompanyEmail = '';
const fake = fakeHost();
let ref = '';
let restartedRef = '';

it('stores one sample per host and pass, minute points across midnight, rolled up into hours', async () => {
  const [east] = await t.db.select().from(regions).where(eq(regions.name, 'US East'));
  const [micro] = await t.db.select().from(configurations).where(eq(configurations.key, 'micro'));
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Metrics', driver: 'libvirt', settings: {} })
    .returning();
  const [host] = await t.db
    .insert(hosts)
    .values({
      name: 'metrics-host',
      uri: 'test:///metrics',
      providerId: provider!.id,
      regionId: east!.id,
      cpus: 16,
      ramGb: 64,
      diskGb: 1024,
    })
    .returning();
  [ref, restartedRef] = [refForKey('metrics-a'), refForKey('metrics-b')];
  const vms = await t.db
    .insert(virtualMachines)
    .values(
      [ref, restartedRef].map((providerRef, i) => ({
        companyId: 1,
        name: `metrics-${i}`,
        status: 'Running' as const,
        configurationId: micro!.id,
        regionId: east!.id,
        image: 'Debian 12',
        providerId: provider!.id,
        hostId: host!.id,
        providerRef,
      })),
    )
    .returning();
  [vmId, restartedVmId] = [vms[0]!.id, vms[1]!.id];
  fake.stats.set(ref, zero());
  fake.stats.set(restartedRef, zero());
  const metrics = createEngineMetrics({ db: t.db, clock, log: pino({ level: 'silent' }) });
  const reconciler = createReconciler({
    db: t.db,
    registry: createProviderRegistry({ libvirt: () => fake.driver }),
    events: createVmEvents(),
    log: pino({ level: 'silent' }),
    audit: createAudit(t.db),
    clock,
    metrics,
  });

  // 22:55 the first sample (counters only), then every 10 minutes from 23:05 to 01:05: each interval counts in the
  // minute (and hour) where it ends, at the rates of that hour.
  await reconciler.reconcileOnce();
  for (let k = 0; k <= 12; k++) {
    clock.advance(10 * MIN);
    const r = RATES[clock.now().getUTCHours()]!;
    for (const [r2, s] of fake.stats) {
      s.cpuTimeNs += 600 * 1e9 * 2 * (r.cpu / 100);
      s.netRxBytes += 600 * r.rx;
      s.netTxBytes += 600 * r.tx;
      s.diskReadBytes += 600 * r.read;
      s.diskWriteBytes += 600 * r.write;
      // Memory alternates 1 and 3 GiB: a mean of 2 GiB over any two samples.
      s.memoryUsedBytes = k % 2 === 0 ? 3 * GIB : GIB;
      // The second machine restarts at 00:25: its counters start again from (near) 0.
      if (r2 === restartedRef && clock.now().toISOString() === '2026-02-01T00:25:00.000Z')
        Object.assign(s, { cpuTimeNs: 1e9, netRxBytes: 5000, netTxBytes: 700, diskReadBytes: 0, diskWriteBytes: 0 });
    }
    await reconciler.reconcileOnce();
  }
  // One call to the host per pass, with the statistics (no statusAll, no call per machine).
  expect(fake.calls).toBe(14);
  expect(clock.now().toISOString()).toBe('2026-02-01T01:05:00.000Z');

  const admin = await signIn(t);
  const minutes = (await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range: '24h' } })).data;
  expect(minutes).toMatchObject({ range: '24h', stepSeconds: 60, to: '2026-02-01T01:05:00.000Z' });
  expect(minutes.from).toBe('2026-01-31T01:05:00.000Z');
  expect(minutes.points.map((p: VmMetrics['points'][number]) => p.at.slice(11, 16))).toEqual([
    '23:05',
    '23:15',
    '23:25',
    '23:35',
    '23:45',
    '23:55',
    '00:05',
    '00:15',
    '00:25',
    '00:35',
    '00:45',
    '00:55',
    '01:05',
  ]);
  expect(minutes.points[0]).toEqual({
    at: '2026-01-31T23:05:00.000Z',
    seconds: 600,
    cpuPercent: 25,
    memoryUsedBytes: 3 * GIB,
    diskReadBytes: 1_200_000,
    diskWriteBytes: 2_400_000,
    netRxBytes: 600_000,
    netTxBytes: 60_000,
  });
  expect(minutes.points[6]).toMatchObject({ at: '2026-02-01T00:05:00.000Z', cpuPercent: 75, netRxBytes: 1_800_000 });
  // 1 h: the minutes since 00:05.
  const hour = (await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range: '1h' } })).data;
  expect(hour.points.map((p: VmMetrics['points'][number]) => p.at.slice(11, 16))).toEqual([
    '00:05',
    '00:15',
    '00:25',
    '00:35',
    '00:45',
    '00:55',
    '01:05',
  ]);

  // Beyond 24 h: hours. Before any roll-up they are summed from the minutes; after the sweep, hours 23 and 00 are
  // rolled up (01 has not ended) and the answer is the same.
  const days = async () =>
    (await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range: '7d' } })).data as VmMetrics;
  const before = await days();
  expect(await metrics.sweepOnce()).toMatchObject({ hoursRolledUp: 4, minutesDropped: 0 });
  const after = await days();
  expect(after).toEqual(before);
  expect(after).toMatchObject({ range: '7d', stepSeconds: 3600, from: '2026-01-25T01:00:00.000Z' });
  expect(after.points).toEqual([
    {
      at: '2026-01-31T23:00:00.000Z',
      seconds: 3600,
      cpuPercent: 25,
      memoryUsedBytes: 2 * GIB,
      diskReadBytes: 3600 * 2000,
      diskWriteBytes: 3600 * 4000,
      netRxBytes: 3600 * 1000,
      netTxBytes: 3600 * 100,
    },
    {
      at: '2026-02-01T00:00:00.000Z',
      seconds: 3600,
      cpuPercent: 75,
      memoryUsedBytes: 2 * GIB,
      diskReadBytes: 3600 * 6000,
      diskWriteBytes: 3600 * 8000,
      netRxBytes: 3600 * 3000,
      netTxBytes: 3600 * 300,
    },
    {
      at: '2026-02-01T01:00:00.000Z',
      seconds: 600,
      cpuPercent: 50,
      memoryUsedBytes: 3 * GIB,
      diskReadBytes: 600 * 1000,
      diskWriteBytes: 600 * 1000,
      netRxBytes: 600 * 2000,
      netTxBytes: 600 * 200,
    },
  ]);
  // A second sweep finds nothing new to roll up.
  expect(await metrics.sweepOnce()).toMatchObject({ hoursRolledUp: 0 });

  // VM details read the latest sample (no call to the host: still 14).
  const details = await admin.call(routes.vms.details, { params: { id: vmId } });
  expect(details.data.usage).toEqual({ cpuUsage: 50, ramUsage: 3 });
  expect(after.latest).toEqual({ at: '2026-02-01T01:05:00.000Z', cpuPercent: 50, memoryUsedBytes: 3 * GIB });
  expect(fake.calls).toBe(14);
});

it("counts each month's traffic, split at the month's start, and never negative traffic from a restart", async () => {
  const admin = await signIn(t);
  const months = async (id: number) =>
    (
      await t.db
        .select({ month: vmTrafficMonths.month, rx: vmTrafficMonths.rxBytes, tx: vmTrafficMonths.txBytes })
        .from(vmTrafficMonths)
        .where(eq(vmTrafficMonths.vmId, id))
        .orderBy(vmTrafficMonths.month)
    ).map((m) => ({ ...m, month: m.month.toISOString().slice(0, 7) }));
  // January: the intervals that ended by 23:55, and half of 23:55→00:05 (at 00:00's rate); February the rest.
  expect(await months(vmId)).toEqual([
    { month: '2026-01', rx: 6 * 600 * 1000 + 300 * 3000, tx: 6 * 600 * 100 + 300 * 300 },
    { month: '2026-02', rx: 300 * 3000 + 5 * 600 * 3000 + 600 * 2000, tx: 300 * 300 + 5 * 600 * 300 + 600 * 200 },
  ]);
  const route = (await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range: '1h' } })).data;
  expect(route.traffic).toEqual({ month: '2026-02', rxBytes: 11_100_000, txBytes: 1_110_000 });

  // The machine that restarted at 00:25: that interval counts what its counters show since the restart (5,000
  // bytes), not the drop; the intervals after it count from there.
  const restarted = (await admin.call(routes.vms.metrics, { params: { id: restartedVmId }, query: { range: '1h' } }))
    .data;
  const at = (hhmm: string) => restarted.points.find((p: VmMetrics['points'][number]) => p.at.slice(11, 16) === hhmm)!;
  expect(at('00:25')).toMatchObject({ netRxBytes: 5000, netTxBytes: 700, diskReadBytes: 0 });
  expect(at('00:35')).toMatchObject({ netRxBytes: 600 * 3000, cpuPercent: 75 });
  for (const p of restarted.points as VmMetrics['points'])
    for (const v of [p.netRxBytes, p.netTxBytes, p.diskReadBytes, p.diskWriteBytes, p.cpuPercent ?? 0])
      expect(v).toBeGreaterThanOrEqual(0);
  const feb = (await months(restartedVmId)).find((m) => m.month === '2026-02')!;
  expect(feb.rx).toBe(300 * 3000 + 600 * 3000 + 5000 + 3 * 600 * 3000 + 600 * 2000);
});

it('refuses a bad range (400) and answers 404 for a VM the caller may not see', async () => {
  const admin = await signIn(t);
  for (const range of ['2h', '24H', '1h;drop', '90'])
    expect((await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range } })).status).toBe(400);
  expect((await admin.call(routes.vms.metrics, { params: { id: 'x' }, query: { range: '1h' } })).status).toBe(400);
  expect((await admin.call(routes.vms.metrics, { params: { id: 999_999 }, query: { range: '1h' } })).status).toBe(404);
  const other = await createOtherCompany(t, 'metrics-boss@other.example');
  otherCompanyEmail = other.admin.email;
  const outsider = await signIn(t, otherCompanyEmail, PASSWORD);
  const res = await outsider.call(routes.vms.metrics, { params: { id: vmId }, query: { range: '24h' } });
  expect([res.status, res.message]).toEqual([404, 'Virtual machine not found']);
});

it('drops minute points after 24 h and hourly roll-ups after 90 days, and keeps the monthly traffic', async () => {
  const count = async (range: '24h' | '90d') => {
    const admin = await signIn(t);
    return (await admin.call(routes.vms.metrics, { params: { id: vmId }, query: { range } })).data.points.length;
  };
  // 24 h and a minute after the last sample: every minute is past its retention; the hour of 01:00 is rolled up first.
  clock.advance(24 * HOUR + MIN);
  expect(await sweeper().sweepOnce()).toMatchObject({ hoursRolledUp: 2, minutesDropped: 26, hoursDropped: 0 });
  expect(await count('24h')).toBe(0);
  expect(await count('90d')).toBe(3);
  // 90 days on: the hours go too.
  clock.advance(90 * 24 * HOUR);
  expect(await sweeper().sweepOnce()).toMatchObject({ hoursDropped: 6 });
  expect(await count('90d')).toBe(0);
  const kept = await t.db.select().from(vmTrafficMonths).where(eq(vmTrafficMonths.vmId, vmId));
  expect(kept).toHaveLength(2);
});
