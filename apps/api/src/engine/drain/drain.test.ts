/**
 * Draining with the simulator, engine deep (enqueue → runner → driver; no HTTP): a draining host's machines move
 * one at a time to the other enabled, non-draining hosts of their provider and region that have room, each move
 * audited, the VM keeping its id, name, addresses and power state; capacity is held on the target while a move runs;
 * a failing move leaves the VM where it was and the drain goes on with the host's other VMs, trying it again later;
 * the operator CLI's drain and host list.
 */
import { and, eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VmStatus } from '@portal/contract/vm-lifecycle';
import { hostUsageOf } from '../../db/host-usage.ts';
import {
  auditLog,
  companies,
  configurations,
  countries,
  hosts,
  operations,
  providers,
  regions,
  virtualMachines,
} from '../../db/schema.ts';
import { runHostCommand } from '../../cli/hosts-commands.ts';
import { createAudit, type Audit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import { MOVE_UNFINISHED, MoveUnfinishedError } from '../../providers/provider.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { createHostsRepository } from '../hosts/hosts.repository.ts';
import { createEnqueue } from '../operations/enqueue.ts';
import { createOperationRunner } from '../operations/runner.ts';
import { createVmEvents } from '../vm-events.ts';
import { createSecretBox } from '../vm-secrets.ts';
import { createDrainer } from './drainer.ts';

let t: TestApp;
let audit: Audit;
beforeAll(async () => {
  // Workers are not started: the test drives its own drainer and runner.
  t = await createTestApp();
  audit = createAudit(t.db);
});
afterAll(async () => {
  await t?.close();
});

const log = pino({ level: 'silent' });
const registry = createProviderRegistry({}, { simulatorStepMs: 5 });
const events = createVmEvents();
const seen = { lastSeenAt: new Date(), ramGb: 64, diskGb: 2000, cpuOvercommit: 1, ramOvercommit: 1, diskOvercommit: 1 };

/** Runs every queued operation to its end (on the drainer's clock, when it has its own). */
async function settle(clock?: Clock) {
  const r = createOperationRunner({
    db: t.db,
    registry,
    events,
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log,
    ...(clock ? { clock } : {}),
  });
  await r.tick();
  await r.idle();
  await r.stop();
}

/** A region of its own with a simulator provider, a size of 2 CPUs, and hosts as given. */
async function world(tag: string, hostSpecs: { name: string; cpus: number; other?: 'region' | 'provider' }[]) {
  const [country] = await t.db
    .insert(countries)
    .values({ name: `Drainland ${tag}` })
    .returning();
  const [region, farRegion] = await t.db
    .insert(regions)
    .values([
      { countryId: country!.id, name: `Drain ${tag}` },
      { countryId: country!.id, name: `Far ${tag}` },
    ])
    .returning();
  const [size] = await t.db
    .insert(configurations)
    .values({ key: `drain-${tag}`, name: 'Drain size', cpu: 2, ram: 4, disk: 40 })
    .returning();
  const [provider, otherProvider] = await t.db
    .insert(providers)
    .values([
      { name: `Drain cloud ${tag}`, driver: 'simulator' },
      { name: `Other cloud ${tag}`, driver: 'simulator' },
    ])
    .returning();
  const rows = await t.db
    .insert(hosts)
    .values(
      hostSpecs.map((h) => ({
        name: `${tag}-${h.name}`,
        uri: 'test:///default',
        providerId: h.other === 'provider' ? otherProvider!.id : provider!.id,
        regionId: h.other === 'region' ? farRegion!.id : region!.id,
        ...seen,
        cpus: h.cpus,
      })),
    )
    .returning();
  const byName = Object.fromEntries(rows.map((h) => [h.name.slice(tag.length + 1), h]));
  const [company] = await t.db.select().from(companies).where(eq(companies.kind, 'customer')).limit(1);

  /** A VM made on `host` through the runner (a create, as the portal queues it), in the status asked for. */
  async function vm(name: string, host: (typeof rows)[number], status: VmStatus = 'Running') {
    const [row] = await t.db
      .insert(virtualMachines)
      .values({
        companyId: company!.id,
        teamId: null,
        name,
        status: 'Provisioning',
        configurationId: size!.id,
        regionId: region!.id,
        image: 'Debian 12',
        providerId: provider!.id,
        hostId: host.id,
      })
      .returning();
    const enqueue = createEnqueue({ db: t.db, audit, events, clock: { now: () => new Date() } });
    expect(await enqueue(row!, { kind: 'create', payload: {} }, { userId: null })).toBe('queued');
    await settle();
    let made = await read(row!.id);
    if (status !== 'Running') {
      await enqueue(made, { kind: 'stop', payload: {} }, { userId: null });
      await settle();
      made = await read(row!.id);
      if (status === 'Shutoff') {
        await t.db.update(virtualMachines).set({ status: 'Shutoff' }).where(eq(virtualMachines.id, made.id));
        made = await read(made.id);
      }
    }
    return made!;
  }
  return { hosts: byName, provider: provider!, region: region!, vm };
}

async function read(id: number) {
  const [row] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id));
  return row!;
}
const moves = (vmIds: number[]) =>
  t.db
    .select()
    .from(operations)
    .where(and(eq(operations.kind, 'move'), inArray(operations.vmId, vmIds)))
    .orderBy(operations.id);
const identity = (vm: typeof virtualMachines.$inferSelect) => ({
  id: vm.id,
  name: vm.name,
  providerRef: vm.providerRef,
  publicIp: vm.publicIp,
  privateIp: vm.privateIp,
});

it('moves a draining host’s machines one at a time to its provider’s other hosts of the region that have room, audited, keeping identity and power state', async () => {
  // from: draining; to: room for exactly two 2-CPU VMs (overcommit 1); the others would have room but must never
  // be chosen: another region, another provider, disabled, draining itself.
  const w = await world('a', [
    { name: 'from', cpus: 64 },
    { name: 'to', cpus: 4 },
    { name: 'far', cpus: 64, other: 'region' },
    { name: 'foreign', cpus: 64, other: 'provider' },
    { name: 'off', cpus: 64 },
    { name: 'leaving', cpus: 64 },
  ]);
  await t.db.update(hosts).set({ enabled: false }).where(eq(hosts.id, w.hosts.off!.id));
  await t.db.update(hosts).set({ draining: true }).where(eq(hosts.id, w.hosts.leaving!.id));
  const running = await w.vm('web-1', w.hosts.from!);
  const stopped = await w.vm('db-1', w.hosts.from!, 'Stopped');
  const shutoff = await w.vm('cache-1', w.hosts.from!, 'Shutoff');
  expect(running).toMatchObject({ status: 'Running', hostId: w.hosts.from!.id });
  expect(running.privateIp).toBeTruthy();
  const ids = [running.id, stopped.id, shutoff.id];
  const before = new Map((await Promise.all(ids.map(read))).map((v) => [v.id, identity(v)]));

  const drainer = createDrainer({ db: t.db, events, audit, log });
  // Not draining yet: nothing moves.
  expect(await drainer.drainOnce()).toBe(0);
  await t.db.update(hosts).set({ draining: true }).where(eq(hosts.id, w.hosts.from!.id));

  // One at a time: two drainers at once (two API instances) queue one move between them, the lowest VM first.
  const [a, b] = await Promise.all([drainer.drainOnce(), createDrainer({ db: t.db, events, audit, log }).drainOnce()]);
  expect(a + b).toBe(1);
  expect(await drainer.drainOnce()).toBe(0);
  const [first] = await moves(ids);
  expect(first).toMatchObject({
    vmId: running.id,
    status: 'pending',
    payload: { fromHostId: w.hosts.from!.id, toHostId: w.hosts.to!.id, status: 'Running' },
  });
  // While it moves it shows Provisioning and still counts on its host; its room on the target is held.
  expect(await read(running.id)).toMatchObject({ status: 'Provisioning', hostId: w.hosts.from!.id });
  expect((await hostUsageOf(t.db, [w.hosts.to!.id])).get(w.hosts.to!.id)).toMatchObject({ vms: 1, cpu: 2 });
  const [entry] = await t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'vm.move'), eq(auditLog.targetId, String(running.id))));
  expect(entry).toMatchObject({
    actorUserId: null,
    companyId: running.companyId,
    before: { status: 'Running', name: 'web-1' },
    after: {
      fromHostId: w.hosts.from!.id,
      toHostId: w.hosts.to!.id,
      status: 'Running',
      cause: 'host a-from is draining; moved to a-to',
    },
  });

  await settle();
  expect(await read(running.id)).toMatchObject({
    ...before.get(running.id),
    status: 'Running',
    hostId: w.hosts.to!.id,
    errorReason: null,
  });
  const driver = registry.driverFor(w.provider);
  expect(await driver.status(running.providerRef!)).toBe('running');

  // The next: a stopped machine stays stopped; then the target is full (2 × 2 CPUs of 4) and the last one waits.
  expect(await drainer.drainOnce()).toBe(1);
  await settle();
  expect(await read(stopped.id)).toMatchObject({
    ...before.get(stopped.id),
    status: 'Stopped',
    hostId: w.hosts.to!.id,
  });
  expect(await driver.status(stopped.providerRef!)).toBe('stopped');
  expect(await drainer.drainOnce()).toBe(0);
  expect(await read(shutoff.id)).toMatchObject({ status: 'Shutoff', hostId: w.hosts.from!.id });

  // Room again (the operator grows the target): the last one moves, powered off outside the portal as it was.
  await t.db.update(hosts).set({ cpus: 6 }).where(eq(hosts.id, w.hosts.to!.id));
  expect(await drainer.drainOnce()).toBe(1);
  await settle();
  expect(await read(shutoff.id)).toMatchObject({
    ...before.get(shutoff.id),
    status: 'Shutoff',
    hostId: w.hosts.to!.id,
  });
  expect((await moves(ids)).map((m) => [m.vmId, m.status, (m.payload as { toHostId: number }).toHostId])).toEqual(
    ids.map((id) => [id, 'succeeded', w.hosts.to!.id]),
  );

  // Drained: no VM left on it, the host list says so; nothing else moves.
  const list = await createHostsRepository(t.db).list();
  expect(list.find((r) => r.host.id === w.hosts.from!.id)).toMatchObject({ vms: 0 });
  expect(list.find((r) => r.host.id === w.hosts.to!.id)).toMatchObject({ vms: 3, cpu: 6 });
  expect(await drainer.drainOnce()).toBe(0);
});

it('a failing move leaves the VM on its host in its power state with the reason; the others go first, it is tried again later', async () => {
  const w = await world('b', [
    { name: 'from', cpus: 64 },
    { name: 'to', cpus: 64 },
  ]);
  const failing = await w.vm('fail-move-1', w.hosts.from!);
  const other = await w.vm('fine-1', w.hosts.from!);
  const clock = manualClock();
  const drainer = createDrainer({ db: t.db, events, audit, log, clock, retryFailedAfterMs: 60_000 });
  await t.db.update(hosts).set({ draining: true }).where(eq(hosts.id, w.hosts.from!.id));

  expect(await drainer.drainOnce()).toBe(1);
  await settle();
  const [failed] = await moves([failing.id]);
  expect(failed).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/simulated move failure/) });
  expect(await read(failing.id)).toMatchObject({
    ...identity(failing),
    status: 'Running',
    hostId: w.hosts.from!.id,
    errorReason: expect.stringMatching(/simulated move failure/),
  });
  expect(await registry.driverFor(w.provider).status(failing.providerRef!)).toBe('running');
  // Nothing held on the target any more.
  expect((await hostUsageOf(t.db, [w.hosts.to!.id])).get(w.hosts.to!.id)).toMatchObject({ vms: 0 });

  // The other VM goes next; the failed one waits its turn.
  expect(await drainer.drainOnce()).toBe(1);
  await settle();
  expect(await read(other.id)).toMatchObject({ status: 'Running', hostId: w.hosts.to!.id });
  expect(await drainer.drainOnce()).toBe(0);
  clock.advance(61_000);
  expect(await drainer.drainOnce()).toBe(1);
  expect((await moves([failing.id])).map((m) => m.status)).toEqual(['failed', 'pending']);
  await settle(clock);
  expect(await read(failing.id)).toMatchObject({ status: 'Running', hostId: w.hosts.from!.id });
});

it('moves a powered-off VM of a suspended company (it stays off); a running one waits for the suspension’s stop', async () => {
  const w = await world('c', [
    { name: 'from', cpus: 64 },
    { name: 'to', cpus: 64 },
  ]);
  const on = await w.vm('on-1', w.hosts.from!);
  const off = await w.vm('off-1', w.hosts.from!, 'Stopped');
  await t.db.update(companies).set({ suspendedAt: new Date() }).where(eq(companies.id, on.companyId));
  try {
    await t.db.update(hosts).set({ draining: true }).where(eq(hosts.id, w.hosts.from!.id));
    const drainer = createDrainer({ db: t.db, events, audit, log });
    expect(await drainer.drainOnce()).toBe(1);
    expect((await moves([on.id, off.id])).map((m) => m.vmId)).toEqual([off.id]);
    await settle();
    expect(await read(off.id)).toMatchObject({ status: 'Stopped', hostId: w.hosts.to!.id });
    expect(await read(on.id)).toMatchObject({ status: 'Running', hostId: w.hosts.from!.id });
  } finally {
    await t.db.update(companies).set({ suspendedAt: null }).where(eq(companies.id, on.companyId));
  }
});

it('the operator CLI drains a host: it says how many VMs will move, and lists the host as drained once they have', async () => {
  const w = await world('d', [
    { name: 'from', cpus: 64 },
    { name: 'to', cpus: 64 },
  ]);
  const vms = [await w.vm('one', w.hosts.from!), await w.vm('two', w.hosts.from!, 'Stopped')];
  const from = w.hosts.from!.name;
  expect(await runHostCommand(['host', 'drain', from], t.db)).toBe(
    `Host ${from} is draining: it takes no new VMs; its 2 VM(s) move to other hosts of its region, one at a time.`,
  );
  const row = async () => (await runHostCommand(['host', 'list'], t.db))!.split('\n').find((l) => l.startsWith(from));
  expect(await row()).toContain('\tdraining (2 VM(s) to move)\t');
  // What the engine's drainer worker does every VM_DRAIN_INTERVAL_MS, with the runner carrying each move out.
  const drainer = createDrainer({ db: t.db, events, audit, log });
  for (let i = 0; i < 4 && (await drainer.drainOnce()) > 0; i++) await settle();
  expect(await row()).toContain('\t0 VM(s)\tdrained\t');
  for (const vm of vms) expect(await read(vm.id)).toMatchObject({ hostId: w.hosts.to!.id, status: vm.status });
});

it('a move whose machine reached its new host but is not removed from the old one is retried past the attempts limit, and shows moved only once done', async () => {
  const w = await world('e', [
    { name: 'from', cpus: 64 },
    { name: 'to', cpus: 64 },
  ]);
  const vm = await w.vm('sticky-1', w.hosts.from!);
  const real = registry.driverFor(w.provider);
  let failures = 4;
  const sticky = createProviderRegistry({
    simulator: () => ({
      ...real,
      async moveTo(ref, _target, opts) {
        if (failures-- > 0) throw new MoveUnfinishedError(`${MOVE_UNFINISHED}: simulated`);
        await real.moveTo!(ref, real, opts);
      },
    }),
  });
  const clock = manualClock();
  await t.db.update(hosts).set({ draining: true }).where(eq(hosts.id, w.hosts.from!.id));
  expect(await createDrainer({ db: t.db, events, audit, log, clock }).drainOnce()).toBe(1);
  const runner = createOperationRunner({
    db: t.db,
    registry: sticky,
    events,
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log,
    clock,
    maxAttempts: 2,
    backoffMs: 1,
  });
  for (let i = 0; i < 5; i++) {
    await runner.tick();
    await runner.idle();
    const [op] = await moves([vm.id]);
    if (i < 4) {
      // Never failed for good, never shown on the new host before its old one let go of it.
      expect(op).toMatchObject({ status: 'pending', attempts: i + 1 });
      expect(await read(vm.id)).toMatchObject({ status: 'Provisioning', hostId: w.hosts.from!.id });
    } else expect(op).toMatchObject({ status: 'succeeded', attempts: 5 });
    clock.advance(16_000);
  }
  await runner.stop();
  expect(await read(vm.id)).toMatchObject({ status: 'Running', hostId: w.hosts.to!.id });
});
