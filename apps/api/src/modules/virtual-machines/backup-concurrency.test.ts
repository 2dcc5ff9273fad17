/**
 * Backups that never get in the way and never lie (issue 24 item 5; docs/decisions/0025-backup-concurrency.md),
 * through the real server and runner on the simulator, on both engines: a take runs beside the VM's lifecycle slot
 * (a stop during it is accepted, the VM ends Stopped and stays so, the take completes from its point in time), one
 * take at a time per VM, at most BACKUP_CONCURRENCY_PER_HOST takes at once per host (the others show 'queued'), and a
 * host down ends a take failed with the reason while the VM is left as it is.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_TEXT, type BackupState } from '@portal/contract/backups';
import { routes } from '@portal/contract/routes';
import { VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import { hosts, virtualMachines, vmBackups } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { until as pollUntil } from '../../../test/until.ts';

const PER_HOST = 2;
/** Made before the hosts (test 'per host'), used by the host-down test. */
let hostDownVm = 0;
let t: TestApp;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      // A 'slow-backup' take copies for ten steps (1 s), a stop takes one.
      SIMULATOR_STEP_MS: '100',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      VM_HOST_CHECK_INTERVAL_MS: '100000',
      BACKUP_CONCURRENCY_PER_HOST: String(PER_HOST),
    },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const details = async (id: number) => (await admin.call(routes.vms.details, { params: { id } })).data;
const list = async (id: number) => (await admin.call(routes.backups.listBackups, { params: { id } })).data.backups;
const take = (id: number, name?: string) =>
  admin.call(routes.backups.takeBackup, { params: { id }, body: name === undefined ? {} : { name } });

/** As the shared poll, within 20 s unless told. */
const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000) =>
  pollUntil(what, read, ok, ms);
async function created(name: string) {
  const id = (await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!;
  await until(
    `VM ${name} Running`,
    () => details(id),
    (d) => d.status === 'Running' && d.pendingOperation === null,
  );
  return id;
}
const backupState = async (id: number) => (await list(id))[0]?.state;

/** Two hosts of the catalog's provider in its region (the simulator ignores them; the runner's limit counts them). */
async function twoHosts() {
  const [vm] = await t.db.select().from(virtualMachines).limit(1);
  const base = { providerId: vm!.providerId, regionId: vm!.regionId, cpus: 64, ramGb: 256, diskGb: 4096 };
  return t.db
    .insert(hosts)
    .values([
      { ...base, name: 'backup-host-a', uri: 'qemu+ssh://root@host-a.example/system' },
      { ...base, name: 'backup-host-b', uri: 'qemu+ssh://root@host-b.example/system' },
    ])
    .returning();
}

describe('backups beside the VM’s other actions', () => {
  it('accepts a stop during a take (not 409): the VM ends Stopped and stays so, the take completes from its point in time', async () => {
    const id = await created('stop-during-slow-backup');
    expect((await take(id, 'while running')).status).toBe(200);
    await until(
      'the take under way',
      () => backupState(id),
      (s) => s === 'creating',
    );
    // One take at a time per VM: a second one says so.
    const again = await take(id, 'a second one');
    expect([again.status, again.message]).toEqual([409, BACKUP_TEXT.takeBusy]);

    const stop = await admin.call(routes.vms.stop, { params: { id } });
    expect([stop.status, stop.message]).toEqual([200, VM_ACTIONS.stop.accepted]);
    await until(
      'the VM Stopped',
      () => details(id),
      (d) => d.status === 'Stopped',
    );
    // The stop did not wait for the copy.
    expect(await backupState(id)).toBe('creating');

    const [done] = await until(
      'the take ready',
      () => list(id),
      (b) => b[0]?.state === 'ready',
    );
    expect(done).toMatchObject({ name: 'while running', error: null });
    expect(done!.completedAt).not.toBeNull();
    // The take wrote nothing on the VM: it is Stopped as the stop left it, with no reason.
    const after = await until(
      'the take operation ended',
      () => details(id),
      (d) => d.pendingOperation === null,
    );
    expect(after).toMatchObject({ status: 'Stopped', errorReason: null });

    // A start during the next take is accepted too.
    expect((await take(id, 'while stopped')).status).toBe(200);
    await until(
      'the second take under way',
      () => backupState(id),
      (s) => s === 'creating',
    );
    expect((await admin.call(routes.vms.start, { params: { id } })).status).toBe(200);
    await until(
      'the VM Running',
      () => details(id),
      (d) => d.status === 'Running',
    );
    await until(
      'the second take ready',
      () => backupState(id),
      (s) => s === 'ready',
    );
    expect((await details(id)).status).toBe('Running');
  });

  it('a failed take leaves the VM as it is (no reason written on it)', async () => {
    const id = await created('x-fail-backup');
    expect((await take(id)).status).toBe(200);
    const [failed] = await until(
      'the take failed',
      () => list(id),
      (b) => b[0]?.state === 'failed',
    );
    expect(failed!.error).toContain('simulated permanent failure');
    const after = await until(
      'the take operation ended',
      () => details(id),
      (d) => d.pendingOperation === null,
    );
    expect(after).toMatchObject({ status: 'Running', errorReason: null });
  });

  it(`runs at most ${PER_HOST} takes at once per host; the others show queued and take their turn`, async () => {
    const names = ['lim-a1', 'lim-a2', 'lim-a3', 'lim-a4', 'lim-b1', 'lim-b2'];
    const ids = await Promise.all(names.map((n) => created(`${n}-slow-backup`)));
    hostDownVm = await created('host-down-backup');
    // Made after the machines: the simulator's catalog places on no host (placement would look for room on these).
    const [a, b] = await twoHosts();
    // Four machines on host A, two on host B.
    await t.db
      .update(virtualMachines)
      .set({ hostId: a!.id })
      .where(inArray(virtualMachines.id, ids.slice(0, 4)));
    await t.db
      .update(virtualMachines)
      .set({ hostId: b!.id })
      .where(inArray(virtualMachines.id, ids.slice(4)));

    const answers = await Promise.all(ids.map((id) => take(id, 'parallel')));
    expect(answers.map((r) => r.status)).toEqual(ids.map(() => 200));

    const max = { a: 0, b: 0, total: 0 };
    let queuedSeen = false;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await t.db.select().from(vmBackups).where(inArray(vmBackups.vmId, ids));
      const creating = (host: number) => rows.filter((r) => r.hostId === host && r.state === 'creating').length;
      max.a = Math.max(max.a, creating(a!.id));
      max.b = Math.max(max.b, creating(b!.id));
      max.total = Math.max(max.total, creating(a!.id) + creating(b!.id));
      // What a client sees of a take waiting for its turn.
      if (!queuedSeen && rows.some((r) => r.state === 'queued')) {
        const waiting = rows.find((r) => r.state === 'queued')!;
        const seen = (await list(waiting.vmId!)).find((x) => x.id === waiting.id);
        queuedSeen = seen?.state === 'queued' || seen?.state === 'creating';
      }
      if (rows.length === ids.length && rows.every((r) => r.state === 'ready')) break;
      if (Date.now() > deadline) throw new Error(`takes not all ready: ${rows.map((r) => r.state).join(', ')}`);
      await sleep(15);
    }
    expect(max).toEqual({ a: PER_HOST, b: PER_HOST, total: 2 * PER_HOST });
    expect(queuedSeen).toBe(true);
  });

  it('ends a take failed with the reason when its host is down, leaving the VM as it is; the next take starts afresh', async () => {
    const id = hostDownVm;
    const [host] = await t.db.select().from(hosts).where(eq(hosts.name, 'backup-host-b'));
    await t.db.update(virtualMachines).set({ hostId: host!.id }).where(eq(virtualMachines.id, id));
    await t.db.update(hosts).set({ lastError: 'connection refused' }).where(eq(hosts.id, host!.id));

    expect((await take(id, 'host down')).status).toBe(200);
    const [failed] = await until(
      'the take failed',
      () => list(id),
      (b) => b[0]?.state === 'failed',
    );
    expect(failed!.error).toBe(BACKUP_TEXT.hostDown('backup-host-b', 'connection refused'));
    expect(await details(id)).toMatchObject({ status: 'Running', errorReason: null });

    await t.db.update(hosts).set({ lastError: null }).where(eq(hosts.id, host!.id));
    expect((await take(id, 'host back')).status).toBe(200);
    const states = await until(
      'the next take ready',
      async () => (await list(id)).map((b): BackupState => b.state),
      (s) => s[0] === 'ready',
    );
    expect(states).toEqual(['ready', 'failed']);
  });
});
