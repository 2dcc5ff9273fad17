/**
 * The reconciler follows what the provider reports for idle VMs: powered off outside the portal, started outside,
 * gone; and its pass stops the running VMs of suspended companies. It asks each host once per pass for all its
 * machines' states where the driver can (issue 22), counted through fake hosts.
 */
import { eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { configurations, hosts, providers, regions, virtualMachines } from '../db/schema.ts';
import { createAudit } from '../lib/audit.ts';
import { systemClock } from '../lib/clock.ts';
import { createTestApp, signIn, type TestApp } from '../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../test/fixtures.ts';
import { seededCatalog } from '../../test/vm-catalog.ts';
import { ensureStaffCompany } from '../../test/module-parts.ts';
import { createProviderRegistry, type ProviderRegistry } from '../providers/registry.ts';
import type { MachineState, ProviderDriver } from '../providers/provider.ts';
import { refForKey } from '../providers/libvirt/names.ts';
import { createVmEvents, type VmEvent, type VmEvents } from './vm-events.ts';
import { createSecretBox } from './vm-secrets.ts';
import { createEnqueue } from './operations/enqueue.ts';
import { createReconciler } from './reconciler.ts';
import { createOperationRunner } from './operations/runner.ts';

let t: TestApp;
beforeAll(async () => {
  // Workers are not started: this test drives its own runner and reconciler.
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

/** Runs the queued creates to the end with a runner of the test's own (workers are not started). */
async function makeMachines(registry: ProviderRegistry, events: VmEvents, log: pino.Logger) {
  const runner = createOperationRunner({
    db: t.db,
    registry,
    events,
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log,
  });
  await runner.tick();
  await runner.idle();
  await runner.stop();
}

it('marks a VM powered off outside the portal Shutoff, started outside Running, and a vanished machine Error', async () => {
  const admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const vmId = (await admin.call(routes.vms.create, { body: createBody('drifter') })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 5 });
  const events = createVmEvents();
  const seen: VmEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const log = pino({ level: 'silent' });
  await makeMachines(registry, events, log);
  const vm = async () => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!;
  const { providerId, providerRef } = await vm();
  const [provider] = await t.db.select().from(providers).where(eq(providers.id, providerId));
  const driver = registry.driverFor(provider!);
  const reconciler = createReconciler({ db: t.db, registry, events, log, audit: createAudit(t.db) });

  expect(await vm()).toMatchObject({ status: 'Running' });
  expect(await reconciler.reconcileOnce()).toBe(0);

  await driver.forceStop(providerRef!);
  await reconciler.reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Shutoff' });
  expect(seen.at(-1)).toMatchObject({ vmId, status: 'Shutoff', deleted: false });

  await driver.start(providerRef!);
  await reconciler.reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Running' });

  await driver.delete(providerRef!);
  // The simulator adopts machines it forgot; one deleted on purpose is gone only for a driver that cannot adopt.
  const strict = createProviderRegistry({ simulator: () => ({ ...driver, adopt: undefined }) });
  await createReconciler({ db: t.db, registry: strict, events, log, audit: createAudit(t.db) }).reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Error', errorReason: 'The machine no longer exists at the provider' });
});

it('walks the machines page by page: every VM of a pass larger than a page is followed', async () => {
  const admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const created = await admin.call(routes.vms.create, { body: { ...createBody('paged'), numberOfInstances: 5 } });
  const ids = created.data.ids;
  expect(ids).toHaveLength(5);
  const registry = createProviderRegistry({}, { simulatorStepMs: 5 });
  const events = createVmEvents();
  const log = pino({ level: 'silent' });
  await makeMachines(registry, events, log);
  const rows = await t.db.select().from(virtualMachines).where(inArray(virtualMachines.id, ids));
  const [provider] = await t.db.select().from(providers).where(eq(providers.id, rows[0]!.providerId));
  const driver = registry.driverFor(provider!);
  for (const row of rows) await driver.forceStop(row.providerRef!);

  // Pages of 2 over 5 machines: 3 queries, all 5 seen.
  const reconciler = createReconciler({ db: t.db, registry, events, log, audit: createAudit(t.db), pageSize: 2 });
  expect(await reconciler.reconcileOnce()).toBe(5);
  const after = await t.db.select().from(virtualMachines).where(inArray(virtualMachines.id, ids));
  expect(after.map((vm) => vm.status)).toEqual(['Shutoff', 'Shutoff', 'Shutoff', 'Shutoff', 'Shutoff']);
});

it("stops a VM that was starting when its company was suspended once it runs; the company's VM actions are refused", async () => {
  await createUser(t, (await ensureStaffCompany(t.db, 1))!, 'owner@northwind.example', { staffRole: 'owner' });
  const [admin, owner] = [await signIn(t), await signIn(t, 'owner@northwind.example', PASSWORD)];
  const { createBody } = await seededCatalog(admin);
  const vmId = (await admin.call(routes.vms.create, { body: createBody('late-starter') })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 5 });
  const events = createVmEvents();
  const log = pino({ level: 'silent' });
  const secrets = createSecretBox('test-secret-that-is-long-enough-0123456789');
  const runner = createOperationRunner({ db: t.db, registry, events, secrets, log });
  const reconciler = createReconciler({ db: t.db, registry, events, log, audit: createAudit(t.db) });
  const settle = async () => {
    await runner.tick();
    await runner.idle();
  };
  const vm = async () => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!;
  await settle();
  expect((await admin.call(routes.vms.stop, { params: { id: vmId } })).status).toBe(200);
  await settle();
  expect((await admin.call(routes.vms.start, { params: { id: vmId } })).status).toBe(200);
  expect(await vm()).toMatchObject({ status: 'Starting' });

  // Suspended while Starting: the suspension's own stops pass it by, and so does the sweep while its start is under way.
  const suspended = await owner.call(routes.resellerCompanies.suspend, { params: { id: 1 }, body: {} });
  expect([suspended.status, suspended.data]).toEqual([200, { stoppedVms: 0 }]);
  expect(await reconciler.reconcileOnce()).toBe(0);
  expect(await vm()).toMatchObject({ status: 'Starting' });

  await settle();
  expect(await vm()).toMatchObject({ status: 'Running' });
  // The next pass queues its stop, which the runner carries out.
  expect(await reconciler.reconcileOnce()).toBe(1);
  expect(await vm()).toMatchObject({ status: 'Stopping' });
  await settle();
  expect(await vm()).toMatchObject({ status: 'Stopped' });
  expect(await reconciler.reconcileOnce()).toBe(0);
  const activity = await owner.call(routes.activity.resellerList, { query: { action: 'vm.stop', companyId: 1 } });
  expect(activity.data.data[0]).toMatchObject({ actorKind: 'system', targetName: 'late-starter' });

  // Nobody may start it meanwhile: its users are signed out, staff are kept out of the customer portal's calls, and
  // a request that passed its session check before the suspension is refused where operations are queued.
  expect((await admin.call(routes.vms.start, { params: { id: vmId } })).status).toBe(401);
  const byStaff = await owner.call(routes.vms.start, { params: { id: vmId } });
  expect([byStaff.status, byStaff.message]).toEqual([403, API_MESSAGES.staffUseResellerArea]);
  const enqueue = createEnqueue({ db: t.db, audit: createAudit(t.db), events, clock: systemClock });
  for (const kind of ['start', 'reset', 'create'] as const)
    expect(await enqueue(await vm(), { kind, payload: {} }, { userId: 1 })).toBe('suspended');
  expect(await vm()).toMatchObject({ status: 'Stopped' });
});

/** A libvirt host as the reconciler sees it: its machines' states, and how often it was asked. */
function fakeHost(batched: boolean) {
  const host = {
    states: new Map<string, MachineState>(),
    statusAllCalls: 0,
    statusCalls: 0,
    failing: false,
    driver: {
      kind: 'libvirt',
      status: async (ref: string) => {
        host.statusCalls++;
        return host.states.get(ref) ?? 'missing';
      },
      ...(batched && {
        statusAll: async () => {
          host.statusAllCalls++;
          if (host.failing) throw new Error('host unreachable');
          return new Map(host.states);
        },
      }),
    } as unknown as ProviderDriver,
  };
  return host;
}

it("asks each host once per pass for all its machines' states, and still follows drift", async () => {
  const { companyId } = await createOtherCompany(t, 'fleet@other.example');
  const [east] = await t.db.select().from(regions).where(eq(regions.name, 'US East'));
  const [micro] = await t.db.select().from(configurations).where(eq(configurations.key, 'micro'));
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Fleet', driver: 'libvirt', settings: {} })
    .returning();
  // Three hosts of 1,200 machines (three pages each) whose driver answers for all at once, and one of 5 whose
  // driver cannot.
  const fakes = new Map([
    ['test:///fleet-a', fakeHost(true)],
    ['test:///fleet-b', fakeHost(true)],
    ['test:///fleet-c', fakeHost(true)],
    ['test:///fleet-d', fakeHost(false)],
  ]);
  const refs = new Map<string, string[]>();
  for (const [uri, fake] of fakes) {
    const [host] = await t.db
      .insert(hosts)
      .values({
        name: uri.slice(8),
        uri,
        providerId: provider!.id,
        regionId: east!.id,
        cpus: 64,
        ramGb: 256,
        diskGb: 4096,
      })
      .returning();
    const count = fake.driver.statusAll ? 1200 : 5;
    const rows = Array.from({ length: count }, (_, i) => ({
      companyId,
      name: `${host!.name}-${i}`,
      status: 'Running' as const,
      configurationId: micro!.id,
      regionId: east!.id,
      image: 'Debian 12',
      providerId: provider!.id,
      hostId: host!.id,
      providerRef: refForKey(`${host!.name}-${i}`),
    }));
    await t.db.insert(virtualMachines).values(rows);
    for (const row of rows) fake.states.set(row.providerRef, 'running');
    refs.set(
      uri,
      rows.map((r) => r.providerRef),
    );
  }
  const registry = createProviderRegistry({
    libvirt: (settings) => fakes.get((settings as { uri: string }).uri)!.driver,
  });
  const log = pino({ level: 'silent' });
  const reconciler = createReconciler({ db: t.db, registry, events: createVmEvents(), log, audit: createAudit(t.db) });
  const calls = () => [...fakes.values()].map((f) => [f.statusAllCalls, f.statusCalls]);
  const status = async (ref: string) =>
    (await t.db.select().from(virtualMachines).where(eq(virtualMachines.providerRef, ref)))[0]!;

  await reconciler.reconcileOnce();
  // One batched call per host and pass (not one per page of 500), no per-machine call; the host without one is
  // asked per machine as before.
  expect(calls()).toEqual([
    [1, 0],
    [1, 0],
    [1, 0],
    [0, 5],
  ]);

  // Powered off outside the portal on a, gone from b, powered off on c whose batched call fails this pass.
  const [a, b, c] = [refs.get('test:///fleet-a')!, refs.get('test:///fleet-b')!, refs.get('test:///fleet-c')!];
  fakes.get('test:///fleet-a')!.states.set(a[7]!, 'stopped');
  fakes.get('test:///fleet-b')!.states.delete(b[3]!);
  fakes.get('test:///fleet-c')!.states.set(c[0]!, 'stopped');
  fakes.get('test:///fleet-c')!.failing = true;
  await reconciler.reconcileOnce();
  expect(calls()).toEqual([
    [2, 0],
    [2, 0],
    [2, 0],
    [0, 10],
  ]);
  expect(await status(a[7]!)).toMatchObject({ status: 'Shutoff' });
  expect(await status(a[8]!)).toMatchObject({ status: 'Running' });
  expect(await status(b[3]!)).toMatchObject({
    status: 'Error',
    errorReason: 'The machine no longer exists at the provider',
  });
  // The host that did not answer: its machines stay as they were until it does.
  expect(await status(c[0]!)).toMatchObject({ status: 'Running' });
  fakes.get('test:///fleet-c')!.failing = false;
  await reconciler.reconcileOnce();
  expect(await status(c[0]!)).toMatchObject({ status: 'Shutoff' });
  expect(calls()).toEqual([
    [3, 0],
    [3, 0],
    [3, 0],
    [0, 15],
  ]);

  // An engine event on host a (kickHost, the host monitor's watch): a pass over host a alone, at once.
  const [hostA] = await t.db.select().from(hosts).where(eq(hosts.uri, 'test:///fleet-a'));
  const running = createReconciler({
    db: t.db,
    registry,
    events: createVmEvents(),
    log,
    audit: createAudit(t.db),
    intervalMs: 3_600_000,
  });
  running.start(); // one whole pass at start, then none for an hour
  await expect.poll(calls, { timeout: 10_000 }).toEqual([
    [4, 0],
    [4, 0],
    [4, 0],
    [0, 20],
  ]);
  fakes.get('test:///fleet-a')!.states.set(a[9]!, 'stopped');
  running.kickHost(hostA!.id);
  await expect.poll(async () => (await status(a[9]!)).status, { timeout: 5_000 }).toBe('Shutoff');
  expect(calls()).toEqual([
    [5, 0],
    [4, 0],
    [4, 0],
    [0, 20],
  ]);

  // An event that names its machine (kickMachine, what the host monitor's watch calls): that machine alone is asked,
  // once, and follows; another machine of the host that changed unannounced waits for the next pass.
  const fleetA = fakes.get('test:///fleet-a')!;
  fleetA.states.set(a[10]!, 'stopped');
  fleetA.states.set(a[11]!, 'stopped');
  running.kickMachine(hostA!.id, a[10]!);
  await expect.poll(async () => (await status(a[10]!)).status, { timeout: 5_000 }).toBe('Shutoff');
  expect(calls()).toEqual([
    [5, 1],
    [4, 0],
    [4, 0],
    [0, 20],
  ]);
  expect(await status(a[11]!)).toMatchObject({ status: 'Running' });
  // A machine the portal does not hold (another tool's domain), or one not idle, is no call at all.
  running.kickMachine(hostA!.id, refForKey('not-ours'));
  running.kickMachine(hostA!.id, a[10]!);
  fleetA.states.set(a[10]!, 'running');
  await expect.poll(async () => (await status(a[10]!)).status, { timeout: 5_000 }).toBe('Running');
  expect(calls()[0]).toEqual([5, 2]);
  await running.stop();
});

it('never undoes an operation that finished between reading the rows and the host answering', async () => {
  const { companyId } = await createOtherCompany(t, 'racer@other.example');
  const [east] = await t.db.select().from(regions).where(eq(regions.name, 'US East'));
  const [micro] = await t.db.select().from(configurations).where(eq(configurations.key, 'micro'));
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Racer', driver: 'libvirt', settings: {} })
    .returning();
  const [host] = await t.db
    .insert(hosts)
    .values({
      name: 'racer',
      uri: 'test:///racer',
      providerId: provider!.id,
      regionId: east!.id,
      cpus: 8,
      ramGb: 32,
      diskGb: 512,
    })
    .returning();
  const names = ['stopped-meanwhile', 'cycled-meanwhile', 'off-outside'];
  const vms = await t.db
    .insert(virtualMachines)
    .values(
      names.map((name) => ({
        companyId,
        name,
        status: 'Running' as const,
        configurationId: micro!.id,
        regionId: east!.id,
        image: 'Debian 12',
        providerId: provider!.id,
        hostId: host!.id,
        providerRef: refForKey(name),
      })),
    )
    .returning();
  const [stoppedMeanwhile, cycledMeanwhile, offOutside] = vms as [(typeof vms)[0], (typeof vms)[0], (typeof vms)[0]];
  // The host's answer is the states it saw when asked (a snapshot), delivered once the test lets it go.
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  let answer!: (states: Map<string, MachineState>) => void;
  const driver = {
    kind: 'libvirt',
    status: () => Promise.reject(new Error('asked per machine')),
    statusAll: () => {
      asked();
      return new Promise<Map<string, MachineState>>((resolve) => (answer = resolve));
    },
  } as unknown as ProviderDriver;
  // Earlier tests' libvirt hosts do not answer this pass (their machines stay as they are).
  const elsewhere = { kind: 'libvirt', statusAll: () => Promise.reject(new Error('not this test')) };
  const registry = createProviderRegistry({
    libvirt: (settings) =>
      (settings as { uri: string }).uri === 'test:///racer' ? driver : (elsewhere as unknown as ProviderDriver),
  });
  const log = pino({ level: 'silent' });
  const reconciler = createReconciler({ db: t.db, registry, events: createVmEvents(), log, audit: createAudit(t.db) });
  const vm = async (id: number) => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id)))[0]!;
  // What an operation's outcome writes: the status, at a later time than the row the reconciler read.
  const finish = async (id: number, status: 'Running' | 'Stopped') =>
    t.db
      .update(virtualMachines)
      .set({ status, updatedAt: new Date((await vm(id)).updatedAt.getTime() + 1000) })
      .where(eq(virtualMachines.id, id));

  const pass = reconciler.reconcileOnce();
  await wasAsked;
  // Meanwhile a stop finishes on one (the host saw it still running), and a stop then a start on another (the host
  // saw it stopped in between); the third was powered off outside the portal.
  await finish(stoppedMeanwhile.id, 'Stopped');
  await finish(cycledMeanwhile.id, 'Stopped');
  await finish(cycledMeanwhile.id, 'Running');
  answer(
    new Map([
      [stoppedMeanwhile.providerRef!, 'running'],
      [cycledMeanwhile.providerRef!, 'stopped'],
      [offOutside.providerRef!, 'stopped'],
    ]),
  );
  expect(await pass).toBe(1);
  expect(await vm(stoppedMeanwhile.id)).toMatchObject({ status: 'Stopped' });
  expect(await vm(cycledMeanwhile.id)).toMatchObject({ status: 'Running' });
  expect(await vm(offOutside.id)).toMatchObject({ status: 'Shutoff' });
});
