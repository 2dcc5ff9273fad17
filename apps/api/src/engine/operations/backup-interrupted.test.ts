/**
 * A take whose API process dies mid-copy (kill -9) is never shown complete (issue 24 item 5; decision 0025): once its
 * lease runs out, the next runner to look (the restarted process, or another instance) ends it failed, "interrupted",
 * and what the dead process's copy would still write is removed, not shown. The next take works. Runners driven by
 * hand on a clock the test moves, as runner.test does; what the customer sees is read through the API.
 */
import { and, eq, inArray } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { routes } from '@portal/contract/routes';
import { operations } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createVmEvents } from '../vm-events.ts';
import { createSecretBox } from '../vm-secrets.ts';
import { createOperationsRepository } from './operations.repository.ts';
import { createOperationRunner } from './runner.ts';

let t: TestApp;
const clock = manualClock();
beforeAll(async () => {
  // Workers are not started: this test drives its own runners.
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What every runner of this file is built from: the test's database and clock, and a simulator (5 ms steps unless given). */
function runnerOptions(registry = createProviderRegistry({}, { simulatorStepMs: 5 })) {
  return {
    db: t.db,
    registry,
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
    pollMs: 20,
  };
}

it('ends a take whose runner died failed, "interrupted", never ready; its late copy is removed; the next take works', async () => {
  const admin = await signIn(t);
  const { provider, createBody } = await seededCatalog(admin);
  // A 'slow-backup' machine copies for ten steps: 1.5 s here, the "kill" lands in the middle.
  const registry = createProviderRegistry({}, { simulatorStepMs: 150 });
  const common = { ...runnerOptions(registry), leaseMs: 150 };
  const id = (await admin.call(routes.vms.create, { body: createBody('killed-slow-backup') })).data.ids[0]!;
  const setup = createOperationRunner(common);
  await setup.tick();
  await setup.idle();
  await setup.stop();
  expect((await admin.call(routes.vms.details, { params: { id } })).data.status).toBe('Running');

  expect((await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'doomed' } })).status).toBe(200);
  const list = async () => (await admin.call(routes.backups.listBackups, { params: { id } })).data.backups;
  expect((await list())[0]).toMatchObject({ name: 'doomed', state: 'queued' });

  const doomed = createOperationRunner(common);
  await doomed.tick(); // claims the take: the copy begins
  for (let i = 0; i < 100 && (await list())[0]?.state !== 'creating'; i++) await sleep(10);
  expect((await list())[0]?.state).toBe('creating');
  await doomed.stop({ abandon: true }); // kill -9: nobody renews or finishes its claim

  // Until its lease runs out, nobody can tell a dead runner from a slow one: still 'creating', never 'ready'.
  const early = createOperationRunner(common);
  await early.tick();
  expect((await list())[0]?.state).toBe('creating');
  await early.stop();

  clock.advance(200); // the lease runs out
  const restarted = createOperationRunner(common);
  await restarted.tick();
  const [interrupted] = await list();
  expect(interrupted).toMatchObject({ state: 'failed', error: BACKUP_TEXT.interrupted, completedAt: null });
  const [op] = await t.db.select().from(operations).where(eq(operations.vmId, id)).orderBy(operations.id).offset(1);
  expect(op).toMatchObject({ kind: 'backup', status: 'failed', lastError: BACKUP_TEXT.interrupted });

  // The dead process's copy ends later (libvirtd finishing a job on its own, here the simulator): not shown, removed.
  await doomed.idle();
  expect((await list())[0]).toMatchObject({ state: 'failed', error: BACKUP_TEXT.interrupted, sizeBytes: null });
  const driver = registry.driverFor({ id: provider.id, driver: 'simulator', settings: {} });
  expect(await driver.backupVerify!(`portal-backup-${interrupted!.id}`)).not.toBeNull();
  // The VM was left as it was.
  expect((await admin.call(routes.vms.details, { params: { id } })).data).toMatchObject({
    status: 'Running',
    errorReason: null,
  });

  // The next take starts afresh and completes.
  expect((await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'after' } })).status).toBe(200);
  await restarted.tick();
  await restarted.idle();
  expect((await list()).map((b) => [b.name, b.state])).toEqual([
    ['after', 'ready'],
    ['doomed', 'failed'],
  ]);
  await restarted.stop();
});

it('several instances racing for a host’s backup slots claim no more takes than the limit', async () => {
  const admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const common = runnerOptions();
  const ids = (await admin.call(routes.vms.create, { body: { ...createBody('race-slots'), numberOfInstances: 5 } }))
    .data.ids;
  const setup = createOperationRunner(common);
  await setup.tick();
  await setup.idle();
  await setup.stop();
  for (const id of ids)
    expect((await admin.call(routes.backups.takeBackup, { params: { id }, body: {} })).status).toBe(200);

  // Eight instances at once (on PostgreSQL, eight connections), a limit of 2 on the provider's one place.
  const repo = createOperationsRepository(t.db, clock);
  const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => repo.claimBeside(`racer-${i}`, 60_000, 2)));
  expect(claims.filter((c) => c !== null)).toHaveLength(2);
  const running = await t.db
    .select()
    .from(operations)
    .where(and(inArray(operations.vmId, ids), eq(operations.status, 'running')));
  expect(running.map((o) => o.lane)).toEqual(['backup', 'backup']);
});

it('a take left unfinished without an operation (a process died between the two writes) is ended failed at start', async () => {
  const admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const common = runnerOptions();
  const id = (await admin.call(routes.vms.create, { body: createBody('orphan-take') })).data.ids[0]!;
  const setup = createOperationRunner(common);
  await setup.tick();
  await setup.idle();
  await setup.stop();
  expect((await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'orphan' } })).status).toBe(200);
  // The operation ended, its row not written: what a process killed between the two leaves.
  await t.db
    .update(operations)
    .set({ status: 'failed', lastError: 'killed' })
    .where(and(eq(operations.vmId, id), eq(operations.kind, 'backup')));
  const list = async () => (await admin.call(routes.backups.listBackups, { params: { id } })).data.backups;
  expect((await list())[0]?.state).toBe('queued');

  const restarted = createOperationRunner(common);
  restarted.start();
  for (let i = 0; i < 200 && (await list())[0]?.state !== 'failed'; i++) await sleep(10);
  await restarted.stop();
  expect((await list())[0]).toMatchObject({ name: 'orphan', state: 'failed', error: BACKUP_TEXT.interrupted });
});
