/**
 * A runner dies mid-operation: its lease runs out, a new runner claims the operation and finishes it,
 * and the provider ends up with exactly one machine.
 */
import { eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { routes } from '@portal/contract/routes';
import { operations, virtualMachines } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { GuestNotReadyError, type ProviderDriver } from '../../providers/provider.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createSimulatorDriver } from '../../providers/simulator/simulator.ts';
import { createVmEvents } from '../vm-events.ts';
import { createSecretBox } from '../vm-secrets.ts';
import { createOperationsRepository } from './operations.repository.ts';
import { createOperationRunner } from './runner.ts';

let t: TestApp;
/** The app and the runners share it: a lease runs out when the test moves it, not after a sleep. */
const clock = manualClock();
beforeAll(async () => {
  // Workers are not started: this test drives its own runners.
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

it('resumes an operation after its runner dies, with no duplicate machine', async () => {
  const admin = await signIn(t);
  const { provider, createBody } = await seededCatalog(admin);
  const created = await admin.call(routes.vms.create, { body: createBody('survivor') });
  const vmId = created.data.ids[0]!;

  // One simulated cloud shared by both runners, as a real provider would be.
  const registry = createProviderRegistry({}, { simulatorStepMs: 400 });
  const common = {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    leaseMs: 150,
    pollMs: 20,
  };

  const doomed = createOperationRunner(common);
  await doomed.tick(); // claims the create and starts calling the provider
  const [claimed] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(claimed).toMatchObject({ status: 'running', lockedBy: doomed.workerId, attempts: 1 });
  await doomed.stop({ abandon: true }); // the process "dies": nobody renews or finishes its claim

  clock.advance(200); // the lease runs out
  const rescuer = createOperationRunner(common);
  await rescuer.tick();
  const [retaken] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(retaken).toMatchObject({ status: 'running', lockedBy: rescuer.workerId, attempts: 2 });
  await rescuer.idle();
  await doomed.idle();

  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(op).toMatchObject({ status: 'succeeded', lockedBy: null });
  const vms = await t.db.select().from(virtualMachines).where(eq(virtualMachines.name, 'survivor'));
  expect(vms).toHaveLength(1);
  expect(vms[0]!.status).toBe('Running');
  expect(vms[0]!.providerRef).toMatch(/^sim-/);
  // The provider made exactly one machine although two runners asked for it.
  const health = await registry.driverFor({ id: provider.id, driver: 'simulator', settings: {} }).health();
  expect((health.detail as { machines: number }).machines).toBe(1);
});

it('keeps the lease of a slow action, so no other runner takes it over', async () => {
  const admin = await signIn(t);
  const { body } = await createBody(admin, 'slowpoke');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 500 });
  const common = {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    leaseMs: 120,
    pollMs: 20,
  };
  const first = createOperationRunner(common);
  const second = createOperationRunner(common);
  await first.tick();
  // Well past one lease, a third of a lease at a time, renewing as the runner's timer does: only renewal keeps it.
  for (let moved = 0; moved < 300; moved += 40) {
    clock.advance(40);
    await first.renewLeases();
  }
  await second.tick();
  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(op).toMatchObject({ status: 'running', lockedBy: first.workerId, attempts: 1 });
  // A renewal that ends sooner (one computed earlier, landing after a later one: the runner's timer and another call
  // in flight at once) leaves the lease's end where it is.
  const leaseEnd = op!.lockedUntil;
  await createOperationsRepository(t.db, clock).renewLease({ op: op!, workerId: first.workerId }, 1);
  const [renewed] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(renewed!.lockedUntil).toEqual(leaseEnd);
  await first.idle();
  const [done] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
  await first.stop();
  await second.stop();
});

it('acts on a machine its driver forgot (a restarted simulator) and keeps a stopped VM off through an upgrade', async () => {
  const admin = await signIn(t);
  const { body, configs } = await createBody(admin, 'phoenix');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const common = {
    db: t.db,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  };
  const before = createOperationRunner({ ...common, registry: createProviderRegistry({}, { simulatorStepMs: 5 }) });
  await before.tick();
  await before.idle();
  await before.stop();
  // The portal restarts: a new simulator that knows no machine.
  const after = createOperationRunner({ ...common, registry: createProviderRegistry({}, { simulatorStepMs: 5 }) });
  const vmStatus = async () => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!;
  expect((await vmStatus()).status).toBe('Running');
  expect((await admin.call(routes.vms.stop, { params: { id: vmId } })).status).toBe(200);
  await after.tick();
  await after.idle();
  expect(await vmStatus()).toMatchObject({ status: 'Stopped', errorReason: null });
  const bigger = configs.find((c) => c.key === 'small')!;
  expect(
    (await admin.call(routes.vms.changeConfiguration, { body: { id: vmId, configurationId: bigger.id } })).status,
  ).toBe(200);
  await after.tick();
  await after.idle();
  expect(await vmStatus()).toMatchObject({ status: 'Stopped', configurationId: bigger.id });
  await after.stop();
});

async function createBody(admin: Awaited<ReturnType<typeof signIn>>, name: string) {
  const { configs, createBody: body } = await seededCatalog(admin);
  return { configs, body: body(name) };
}

it('gives up on an operation whose runners keep dying, instead of claiming it forever', async () => {
  const admin = await signIn(t);
  const { body } = await createBody(admin, 'cursed');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 400 });
  const common = {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    leaseMs: 100,
    pollMs: 20,
    maxAttempts: 2,
  };
  // Two runners in a row claim the create and die before finishing it.
  for (let i = 0; i < 2; i++) {
    const doomed = createOperationRunner(common);
    await doomed.tick();
    await doomed.stop({ abandon: true });
    clock.advance(150); // the lease runs out
  }
  const last = createOperationRunner(common);
  await last.tick();
  await last.idle();
  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(op).toMatchObject({ status: 'failed', attempts: 3, lastError: 'Gave up after 2 attempts' });
  const [vm] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId));
  expect(vm).toMatchObject({ status: 'Error', errorReason: 'Gave up after 2 attempts' });
  await last.stop();
});

it("hands a dead runner's operations to another within seconds on the default lease, each machine made once", async () => {
  const admin = await signIn(t);
  const { provider, createBody: body } = await seededCatalog(admin);
  const ids = (await admin.call(routes.vms.create, { body: { ...body('lazarus'), numberOfInstances: 5 } })).data.ids;
  expect(ids).toHaveLength(5);
  const registry = createProviderRegistry({}, { simulatorStepMs: 1000 });
  // No leaseMs: the default a real instance runs with.
  const common = {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  };
  const mine = () => t.db.select().from(operations).where(inArray(operations.vmId, ids));

  const doomed = createOperationRunner(common);
  await doomed.tick();
  expect((await mine()).map((o) => [o.status, o.lockedBy])).toEqual(ids.map(() => ['running', doomed.workerId]));
  await doomed.stop({ abandon: true }); // kill -9

  // Seconds later (not minutes), a restarted or other instance takes every one of them over.
  clock.advance(16_000);
  const rescuer = createOperationRunner(common);
  await rescuer.tick();
  expect((await mine()).map((o) => [o.status, o.lockedBy, o.attempts])).toEqual(
    ids.map(() => ['running', rescuer.workerId, 2]),
  );
  await rescuer.idle();
  await doomed.idle();
  expect((await mine()).map((o) => o.status)).toEqual(ids.map(() => 'succeeded'));
  const vms = await t.db.select().from(virtualMachines).where(inArray(virtualMachines.id, ids));
  expect(vms.map((v) => v.status)).toEqual(ids.map(() => 'Running'));
  const health = await registry.driverFor({ id: provider.id, driver: 'simulator', settings: {} }).health();
  expect((health.detail as { machines: number }).machines).toBe(5);
  await rescuer.stop();
});

it('does not claim again an operation it is still working on when a renewal was missed (a database blip)', async () => {
  const admin = await signIn(t);
  const { body } = await createBody(admin, 'blip');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 500 });
  const common = {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    leaseMs: 100,
    pollMs: 20,
  };
  const runner = createOperationRunner(common);
  await runner.tick();
  clock.advance(500); // no renewal reached the database: the lease ran out while the driver works
  await runner.tick();
  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(op).toMatchObject({ status: 'running', lockedBy: runner.workerId, attempts: 1 });
  await runner.renewLeases(); // the database is back: the claim is still this runner's
  await runner.idle();
  const [done] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
  await runner.stop();
});

it('shows a create and a start as Starting, since the guest began to boot, until the guest answers (issue 23 item 4)', async () => {
  const admin = await signIn(t);
  const { body } = await createBody(admin, 'sunrise');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const events = createVmEvents();
  const seen: string[] = [];
  events.subscribe((e) => {
    if (e.vmId === vmId) seen.push(e.status);
  });
  const runner = createOperationRunner({
    db: t.db,
    // The simulated guest boots for half a step after its machine is powered on.
    registry: createProviderRegistry({}, { simulatorStepMs: 1200 }),
    events,
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  });
  const details = async () => (await admin.call(routes.vms.details, { params: { id: vmId } })).data;
  const list = async () =>
    (await admin.call(routes.vms.list, { query: { page: 1, rowsPerPage: 100, search: 'sunrise' } })).data.data;
  expect(await details()).toMatchObject({ status: 'Provisioning', bootStartedAt: null });

  await runner.tick();
  await vi.waitFor(() => expect(seen).toEqual(['Starting']), { timeout: 5000, interval: 20 });
  const bootedAt = clock.now().toISOString();
  // What a client sees while the guest boots: Starting, and since when (the portal counts the time from it).
  expect(await details()).toMatchObject({ status: 'Starting', bootStartedAt: bootedAt });
  expect(await list()).toEqual([expect.objectContaining({ id: vmId, status: 'Starting', bootStartedAt: bootedAt })]);
  await runner.idle();
  expect(seen).toEqual(['Starting', 'Running']);
  expect(await details()).toMatchObject({ status: 'Running', bootStartedAt: null });
  expect(await list()).toEqual([expect.objectContaining({ id: vmId, status: 'Running', bootStartedAt: null })]);

  // A start of the stopped machine: Starting (the runningStatus) is now also the booting, with its time.
  expect((await admin.call(routes.vms.stop, { params: { id: vmId } })).status).toBe(200);
  await runner.tick();
  await runner.idle();
  seen.length = 0;
  expect((await admin.call(routes.vms.start, { params: { id: vmId } })).status).toBe(200);
  clock.advance(1000);
  await runner.tick();
  await vi.waitFor(() => expect(seen).toEqual(['Starting']), { timeout: 5000, interval: 20 });
  expect(await details()).toMatchObject({ status: 'Starting', bootStartedAt: clock.now().toISOString() });
  await runner.idle();
  expect(await details()).toMatchObject({ status: 'Running', bootStartedAt: null, errorReason: null });
  await runner.stop();
});

it('keeps the machine of a create whose guest never answered: the VM shows it as it is, with the reason', async () => {
  const admin = await signIn(t);
  const { body } = await createBody(admin, 'silent');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  // The simulator, whose guest never answers: the machine runs, the driver gives up as the libvirt one does.
  const sim = createSimulatorDriver({ stepMs: 10 });
  const mute: ProviderDriver = {
    ...sim,
    async create(spec, opts) {
      const made = await sim.create(spec, opts);
      throw new GuestNotReadyError('The guest did not answer within 600 s', made);
    },
  };
  const runner = createOperationRunner({
    db: t.db,
    registry: createProviderRegistry({ simulator: () => mute }),
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  });
  await runner.tick();
  await runner.idle();
  const { data } = await admin.call(routes.vms.details, { params: { id: vmId } });
  // Not Error with no machine: Running (the machine runs), the reason says why, and it can be reset, stopped or deleted.
  expect(data).toMatchObject({
    status: 'Running',
    bootStartedAt: null,
    errorReason: 'The guest did not answer within 600 s',
    pendingOperation: null,
  });
  expect(data.virtualMachine.network.privateIp).toMatch(/^10\.20\./);
  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, vmId));
  expect(op).toMatchObject({ status: 'failed', attempts: 1, lastError: 'The guest did not answer within 600 s' });
  expect((await admin.call(routes.vms.delete, { params: { id: vmId } })).status).toBe(200);
  await runner.tick();
  await runner.idle();
  expect(
    await mute.status((await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!.providerRef!),
  ).toBe('missing');
  await runner.stop();
});

it('records an upgrade whose guest did not answer after its restart: the new size, and the machine as it is with the reason', async () => {
  const admin = await signIn(t);
  const { body, configs } = await createBody(admin, 'slow-riser');
  const vmId = (await admin.call(routes.vms.create, { body })).data.ids[0]!;
  const sim = createSimulatorDriver({ stepMs: 10 });
  let silent = false;
  const driver: ProviderDriver = {
    ...sim,
    async start(ref, opts) {
      await sim.start(ref, opts);
      if (silent) throw new GuestNotReadyError('The guest did not answer within 600 s');
    },
  };
  const runner = createOperationRunner({
    db: t.db,
    registry: createProviderRegistry({ simulator: () => driver }),
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  });
  await runner.tick();
  await runner.idle();
  silent = true;
  const bigger = configs.find((c) => c.key === 'small')!;
  expect(
    (await admin.call(routes.vms.changeConfiguration, { body: { id: vmId, configurationId: bigger.id } })).status,
  ).toBe(200);
  await runner.tick();
  await runner.idle();
  const { data } = await admin.call(routes.vms.details, { params: { id: vmId } });
  // The machine has its new size (and is billed for it) although its guest did not answer after the restart.
  expect(data).toMatchObject({
    status: 'Running',
    bootStartedAt: null,
    errorReason: 'The guest did not answer within 600 s',
  });
  expect(data.virtualMachine.configurationId).toBe(bigger.id);
  await runner.stop();
});
