/**
 * The authorisation matrix of the virtual-machine calls: every call signed in as a company admin, each
 * team role, a non-member and another company's administrator (docs/permissions.md). Allowed = 200 and
 * the effect happened; denied = 403 or 404 with nothing changed (VM rows, operations, audit log).
 *
 * The VMs are made through the API from the seeded catalog and run by the real operation runner on the
 * simulator. Every action cell gets its own fresh VM in the status the action needs, and the runner is
 * left to finish (no operation pending or running) after each cell, so cells cannot disturb each other
 * and the "nothing changed" snapshot is stable.
 */
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { auditLog, operations, virtualMachines, vmBackups, vmBackupSchedules, vmSnapshots } from '../../db/schema.ts';
import { A, ACTORS, all, runMatrix, type Actor, type Cell } from '../../../test/authorization-matrix.ts';
import { createTestApp, signIn, TestClient, type CallResult, type TestApp } from '../../../test/harness.ts';
import type { App } from '../../app.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';

type VmStatus = 'Running' | 'Stopped';

let t: TestApp;
const clients = {} as Record<Actor, TestClient>;
const ids = {} as Record<Actor, number> & { team: number; otherCompanyId: number };
/** The catalog the VMs are made from: US East, Debian 12, micro on its first provider; small to upgrade to. */
const catalog = { regionId: 0, providerId: 0, micro: 0, small: 0 };
/** Shared VMs of the team for the calls that change no status: reads, credentials, console, rename. */
const shared = { read: 0, edit: 0, operatorOwn: 0 };
/** Fresh VMs of the team, one per action cell, by status. */
const pool: Record<VmStatus, number[]> = { Running: [], Stopped: [] };
let seq = 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the runner has no operation pending or running, and no backup verification is queued or running. */
async function settle(timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const busy = await t.db
      .select({ id: operations.id })
      .from(operations)
      .where(inArray(operations.status, ['pending', 'running']));
    const verifying = await t.db.select({ id: vmBackups.id }).from(vmBackups).where(isNotNull(vmBackups.verifyAfter));
    if (busy.length === 0 && verifying.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${busy.length} VM operations, ${verifying.length} backup verifications still under way`);
    await sleep(20);
  }
}

async function vmRow(id: number) {
  const [row] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id));
  return row!;
}

/** Creates VMs through the API as the company admin (in the team unless `teamId` is null) and lets them finish provisioning. */
async function createVms(
  count: number,
  name: string,
  teamId: number | null = ids.team,
  client = clients.companyAdmin,
): Promise<number[]> {
  const made: number[] = [];
  for (let left = count; left > 0; left -= 10) {
    const n = Math.min(left, 10);
    const res = await client.call(routes.vms.create, {
      body: {
        regionId: catalog.regionId,
        image: 'Debian 12',
        configurationId: catalog.micro,
        providerId: catalog.providerId,
        name: `${name}-${++seq}`,
        numberOfInstances: n,
        ...(teamId === null ? {} : { teamId }),
      },
    });
    if (res.status !== 200) throw new Error(`could not create VMs: ${res.status} ${res.message}`);
    made.push(...(res.data.ids as number[]));
  }
  await settle();
  for (const id of made) if ((await vmRow(id)).status !== 'Running') throw new Error(`VM ${id} did not come up`);
  return made;
}

function take(status: VmStatus): Promise<number> {
  const id = pool[status].shift();
  if (id === undefined) throw new Error(`the pool has no ${status} VM left`);
  return Promise.resolve(id);
}

/** Everything a VM call could change. Taken only while the runner is idle, so it is stable. */
async function snapshot(): Promise<string> {
  const [vms, ops, audit, snaps, backups, schedules] = await Promise.all([
    t.db
      .select({
        id: virtualMachines.id,
        name: virtualMachines.name,
        status: virtualMachines.status,
        configurationId: virtualMachines.configurationId,
        teamId: virtualMachines.teamId,
        deletedAt: virtualMachines.deletedAt,
      })
      .from(virtualMachines),
    t.db.select({ id: operations.id, status: operations.status }).from(operations),
    t.db.select({ id: auditLog.id }).from(auditLog),
    t.db.select({ id: vmSnapshots.id, state: vmSnapshots.state }).from(vmSnapshots),
    t.db.select({ id: vmBackups.id, state: vmBackups.state, vmId: vmBackups.vmId }).from(vmBackups),
    t.db.select().from(vmBackupSchedules),
  ]);
  return JSON.stringify([
    vms.map((v) => JSON.stringify(v)).sort(),
    ops.map((o) => `${o.id}:${o.status}`).sort(),
    audit.length,
    snaps.map((s) => `${s.id}:${s.state}`).sort(),
    backups.map((b) => `${b.id}:${b.state}:${b.vmId}`).sort(),
    schedules.map((s) => JSON.stringify(s)).sort(),
  ]);
}

beforeAll(async () => {
  t = await createTestApp({
    env: {
      SIMULATOR_STEP_MS: '20',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      // Each take's verification (and Verify now's) ends soon after it: settle() waits for them.
      BACKUP_VERIFY_INTERVAL_MS: '50',
    },
  });
  t.portal.startWorkers();
  const mk = (email: string) => createUser(t, 1, email);
  const teamAdmin = await mk('vmx-teamadmin@example.com');
  const operator = await mk('vmx-operator@example.com');
  const viewer = await mk('vmx-viewer@example.com');
  const nonMember = await mk('vmx-nonmember@example.com');
  const team = await createTeam(t, 1, 'VM matrix team', [
    { userId: teamAdmin.id, roleId: 1 },
    { userId: operator.id, roleId: 2 },
    { userId: viewer.id, roleId: 3 },
  ]);
  const other = await createOtherCompany(t, 'vmx-boss@other.example');
  Object.assign(ids, {
    companyAdmin: 1,
    teamAdmin: teamAdmin.id,
    operator: operator.id,
    viewer: viewer.id,
    nonMember: nonMember.id,
    otherCompany: other.admin.id,
    team: team.id,
    otherCompanyId: other.companyId,
  });
  clients.companyAdmin = await signIn(t);
  for (const [actor, email] of [
    ['teamAdmin', teamAdmin.email],
    ['operator', operator.email],
    ['viewer', viewer.email],
    ['nonMember', nonMember.email],
    ['otherCompany', other.admin.email],
  ] as const) {
    clients[actor] = await signIn(t, email, PASSWORD);
  }

  // The seeded catalog, read the way the portal's create form reads it.
  const admin = clients.companyAdmin;
  const us = ((await admin.call(routes.vms.listCountries)).data as { id: number; name: string }[]).find(
    (c) => c.name === 'United States',
  )!;
  const east = (
    (await admin.call(routes.vms.listRegions, { params: { id: us.id } })).data as { id: number; name: string }[]
  ).find((r) => r.name === 'US East')!;
  const configs = (
    await admin.call(routes.vms.fetchConfigurations, { params: { regionId: east.id }, query: { image: 'Debian 12' } })
  ).data as { id: number; key: string }[];
  const micro = configs.find((c) => c.key === 'micro')!;
  const providers = (
    await admin.call(routes.vms.listProviders, { params: { regionId: east.id }, query: { configurationId: micro.id } })
  ).data as { id: number }[];
  Object.assign(catalog, {
    regionId: east.id,
    providerId: providers[0]!.id,
    micro: micro.id,
    small: configs.find((c) => c.key === 'small')!.id,
  });

  // 6 callers × (stop, force stop, reset, upgrade, rebuild, delete, take/revert/delete a snapshot, take/restore/
  // delete a backup, restore one as new, list and delete a kept one) Running VMs, 2 for Verify now (a backup of a live
  // VM and a kept one, asked by every caller: a verification changes nothing a next one needs), 6 to start (stopped
  // below), the shared ones.
  // A VM outside any team, made by the Operator: theirs and the company admins' only. Named to come first in name
  // order, as the shared ones come next (mx-2-1, …): the list cells read one page of 100, and there are more VMs.
  [shared.operatorOwn] = (await createVms(1, 'a-mx-own', null, clients.operator)) as [number];
  const made = await createVms(6 * 15 + 2 + 6 + 2, 'mx');
  [shared.read, shared.edit] = [made[0]!, made[1]!];
  pool.Running = made.slice(2, 2 + 6 * 15 + 2);
  pool.Stopped = made.slice(2 + 6 * 15 + 2);
  for (const id of pool.Stopped) {
    const res = await admin.call(routes.vms.stop, { params: { id } });
    if (res.status !== 200) throw new Error(`could not stop VM ${id}: ${res.status} ${res.message}`);
  }
  await settle();
  for (const id of pool.Stopped) if ((await vmRow(id)).status !== 'Stopped') throw new Error(`VM ${id} did not stop`);
}, 60_000);
afterAll(async () => {
  await t.close();
});

/** vm.view on the team's VMs. */
const vmView = { companyAdmin: A, teamAdmin: A, operator: A, viewer: A, nonMember: 404, otherCompany: 404 } as const;
/** vm.create / vm.operate / vm.modify / vm.delete: Admin and Operator; a Viewer sees the VM but may not change it. */
const vmChange = {
  companyAdmin: A,
  teamAdmin: A,
  operator: A,
  viewer: 403,
  nonMember: 404,
  otherCompany: 404,
} as const;

const listed = (res: CallResult) => (res.data as { data: { id: number }[] }).data.map((v) => v.id);
const opsOf = async (vmId: number) => t.db.select().from(operations).where(eq(operations.vmId, vmId));
let lastName = '';

/** A Running VM of the pool with one ready snapshot, taken by the company admin (for the revert and delete cells). */
const snapshotOf = new Map<number, number>();
async function withSnapshot(): Promise<number> {
  const id = await take('Running');
  const res = await clients.companyAdmin.call(routes.snapshots.takeSnapshot, { params: { id }, body: { name: 'mx' } });
  if (res.status !== 200) throw new Error(`could not take a snapshot of VM ${id}: ${res.status} ${res.message}`);
  snapshotOf.set(id, res.data.id);
  await settle();
  return id;
}
const snapshotRows = (vmId: number) => t.db.select().from(vmSnapshots).where(eq(vmSnapshots.vmId, vmId));

/** A Running VM of the pool with one ready backup, taken by the company admin (restore, delete, restore as new). */
const backupOf = new Map<number, number>();
async function withBackup(): Promise<number> {
  const id = await take('Running');
  const res = await clients.companyAdmin.call(routes.backups.takeBackup, { params: { id }, body: { name: 'mx' } });
  if (res.status !== 200) throw new Error(`could not take a backup of VM ${id}: ${res.status} ${res.message}`);
  backupOf.set(id, res.data.id);
  await settle();
  return id;
}
/** As withBackup, then the VM deleted with its backups kept: answers the kept backup's id. */
async function keptBackup(): Promise<number> {
  const id = await withBackup();
  const res = await clients.companyAdmin.call(routes.vms.delete, { params: { id }, query: { keepBackups: 'true' } });
  if (res.status !== 200) throw new Error(`could not delete VM ${id}: ${res.status} ${res.message}`);
  await settle();
  return backupOf.get(id)!;
}
const backupRows = (vmId: number) => t.db.select().from(vmBackups).where(eq(vmBackups.vmId, vmId));
const backupRow = async (id: number) => (await t.db.select().from(vmBackups).where(eq(vmBackups.id, id)))[0];
/** One VM with a ready backup, and one kept backup, for every caller's Verify now (made on first use). */
const verifiable = { vm: 0, kept: 0 };
async function verifiableVm(): Promise<number> {
  verifiable.vm ||= await withBackup();
  return verifiable.vm;
}
async function verifiableKept(): Promise<number> {
  verifiable.kept ||= await keptBackup();
  return verifiable.kept;
}
/** Verify now was accepted as this caller: audited by them, and the verification ran to its end (settle waited). */
async function verifiedNow(backupId: number, actor: Actor) {
  const entries = await t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, 'vm.backupVerify'), eq(auditLog.actorUserId, ids[actor])));
  expect(entries.filter((e) => (e.after as { backupId: number }).backupId === backupId)).toHaveLength(1);
  expect(await backupRow(backupId)).toMatchObject({ verifyAfter: null, verificationError: null });
  expect((await backupRow(backupId))!.verifiedAt).not.toBeNull();
}

const cells: Cell[] = [
  {
    call: 'GET /virtualMachines/list?teamId',
    expect: vmView,
    run: (c) => c.call(routes.vms.list, { query: { teamId: ids.team, rowsPerPage: 100, sortColumn: 'name' } }),
    check: (res) => expect(listed(res)).toContain(shared.read),
  },
  {
    call: 'GET /virtualMachines/list',
    expect: all(A),
    run: (c) => c.call(routes.vms.list, { query: { rowsPerPage: 100, sortColumn: 'name' } }),
    check: async (res, actor) => {
      const seen = listed(res);
      expect(seen.includes(shared.read)).toBe(!['nonMember', 'otherCompany'].includes(actor));
      // The Operator's team-less VM: theirs and the company admin's only.
      expect(seen.includes(shared.operatorOwn)).toBe(['companyAdmin', 'operator'].includes(actor));
      // Nobody sees another company's VMs.
      const companyOf = new Map(
        (await t.db.select({ id: virtualMachines.id, companyId: virtualMachines.companyId }).from(virtualMachines)).map(
          (v) => [v.id, v.companyId],
        ),
      );
      const own = actor === 'otherCompany' ? ids.otherCompanyId : 1;
      expect(seen.filter((id) => companyOf.get(id) !== own)).toEqual([]);
    },
  },
  {
    call: 'GET /virtualMachines/details/:id',
    expect: vmView,
    run: (c) => c.call(routes.vms.details, { params: { id: shared.read } }),
    check: (res) =>
      expect(res.data).toMatchObject({ virtualMachine: { id: shared.read, teamId: ids.team }, status: 'Running' }),
  },
  {
    call: 'GET /virtualMachines/details/:id (team-less VM of the Operator)',
    expect: { companyAdmin: A, teamAdmin: 404, operator: A, viewer: 404, nonMember: 404, otherCompany: 404 },
    run: (c) => c.call(routes.vms.details, { params: { id: shared.operatorOwn } }),
    check: (res) => expect(res.data).toMatchObject({ virtualMachine: { id: shared.operatorOwn, teamId: null } }),
  },
  {
    call: 'GET /virtualMachines/metrics/:id',
    expect: vmView,
    run: (c) => c.call(routes.vms.metrics, { params: { id: shared.read }, query: { range: '24h' } }),
    check: (res) =>
      expect(res.data).toMatchObject({ range: '24h', stepSeconds: 60, traffic: { rxBytes: expect.any(Number) } }),
  },
  {
    call: 'GET /virtualMachines/metrics/:id (team-less VM of the Operator)',
    expect: { companyAdmin: A, teamAdmin: 404, operator: A, viewer: 404, nonMember: 404, otherCompany: 404 },
    run: (c) => c.call(routes.vms.metrics, { params: { id: shared.operatorOwn }, query: { range: '7d' } }),
    check: (res) => expect(res.data).toMatchObject({ range: '7d', stepSeconds: 3600, points: expect.any(Array) }),
  },
  {
    call: 'GET /virtualMachines/getPassword/:id',
    expect: vmChange,
    run: (c) => c.call(routes.vms.getPassword, { params: { id: shared.read } }),
    check: (res) => expect((res.data as { sshPassword: string }).sshPassword.length).toBeGreaterThanOrEqual(16),
  },
  {
    call: 'GET /virtualMachines/getAccessKey/:id',
    expect: vmChange,
    run: (c) => c.call(routes.vms.getAccessKey, { params: { id: shared.read } }),
    check: (res) =>
      expect((res.data as { privateKey: string }).privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/),
  },
  {
    call: 'GET /virtualMachines/getAccess/:id',
    expect: vmChange,
    run: (c) => c.call(routes.vms.getAccess, { params: { id: shared.read } }),
    check: (res) =>
      expect(res.data).toMatchObject({ username: 'root', port: 22, publicKey: expect.stringMatching(/^ssh-ed25519 /) }),
  },
  {
    call: 'GET /virtualMachines/getConsole/:id',
    expect: vmChange,
    run: (c) => c.call(routes.vms.getConsole, { params: { id: shared.read } }),
    check: (res) =>
      expect((res.data as { consoleUrl: string }).consoleUrl).toMatch(
        new RegExp(`/virtualMachines/console/${shared.read}\\?token=`),
      ),
  },
  {
    call: 'POST /virtualMachines/start/:id',
    expect: vmChange,
    prepare: () => take('Stopped'),
    run: (c, id) => c.call(routes.vms.start, { params: { id } }),
    check: async (_res, _actor, id) => expect((await vmRow(id)).status).toBe('Running'),
  },
  {
    call: 'POST /virtualMachines/stop/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.stop, { params: { id } }),
    check: async (_res, _actor, id) => expect((await vmRow(id)).status).toBe('Stopped'),
  },
  {
    call: 'POST /virtualMachines/forceStop/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.forceStop, { params: { id } }),
    check: async (_res, _actor, id) => {
      expect((await vmRow(id)).status).toBe('Stopped');
      expect((await opsOf(id)).filter((o) => o.kind === 'forceStop').map((o) => o.status)).toEqual(['succeeded']);
    },
  },
  {
    call: 'POST /virtualMachines/reset/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.reset, { params: { id } }),
    check: async (_res, _actor, id) => {
      expect((await vmRow(id)).status).toBe('Running');
      expect((await opsOf(id)).filter((o) => o.kind === 'reset').map((o) => o.status)).toEqual(['succeeded']);
    },
  },
  {
    call: 'PUT /virtualMachines/edit/:id',
    expect: vmChange,
    run: (c) =>
      c.call(routes.vms.edit, { params: { id: shared.edit }, body: { name: (lastName = `mx-renamed-${++seq}`) } }),
    check: async () => expect((await vmRow(shared.edit)).name).toBe(lastName),
  },
  {
    call: 'PUT /virtualMachines/changeConfiguration',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.changeConfiguration, { body: { id, configurationId: catalog.small } }),
    check: async (_res, _actor, id) =>
      expect(await vmRow(id)).toMatchObject({ configurationId: catalog.small, status: 'Running' }),
  },
  {
    call: 'POST /virtualMachines/rebuild/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.rebuild, { params: { id }, body: { image: 'Ubuntu 24.04 LTS' } }),
    check: async (_res, _actor, id) => {
      expect(await vmRow(id)).toMatchObject({ image: 'Ubuntu 24.04 LTS', status: 'Running' });
      expect((await opsOf(id)).filter((o) => o.kind === 'rebuild').map((o) => o.status)).toEqual(['succeeded']);
    },
  },
  {
    call: 'GET /virtualMachines/listSnapshots/:id',
    expect: vmView,
    run: (c) => c.call(routes.snapshots.listSnapshots, { params: { id: shared.read } }),
    check: (res) => expect(res.data).toMatchObject({ snapshots: [], limit: expect.any(Number) }),
  },
  {
    // Taking one is vm.operate; it loses nothing.
    call: 'POST /virtualMachines/takeSnapshot/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.snapshots.takeSnapshot, { params: { id }, body: { name: 'matrix' } }),
    check: async (_res, _actor, id) =>
      expect((await snapshotRows(id)).map((s) => [s.name, s.state])).toEqual([['matrix', 'ready']]),
  },
  {
    // Going back erases what the disk gained since: vm.delete (Admin and Operator hold it, as vm.operate).
    call: 'POST /virtualMachines/revertSnapshot/:id/:snapshotId',
    expect: vmChange,
    prepare: withSnapshot,
    run: (c, id) => c.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: snapshotOf.get(id)! } }),
    check: async (_res, _actor, id) => {
      expect((await opsOf(id)).filter((o) => o.kind === 'snapshotRevert').map((o) => o.status)).toEqual(['succeeded']);
      expect((await vmRow(id)).status).toBe('Running');
    },
  },
  {
    call: 'DELETE /virtualMachines/deleteSnapshot/:id/:snapshotId',
    expect: vmChange,
    prepare: withSnapshot,
    run: (c, id) => c.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId: snapshotOf.get(id)! } }),
    check: async (_res, _actor, id) => expect(await snapshotRows(id)).toEqual([]),
  },
  {
    call: 'GET /virtualMachines/listBackups/:id',
    expect: vmView,
    run: (c) => c.call(routes.backups.listBackups, { params: { id: shared.read } }),
    check: (res) => expect(res.data).toMatchObject({ backups: [], limit: expect.any(Number) }),
  },
  {
    // Taking one is vm.operate; it loses nothing (and the VM stays Running).
    call: 'POST /virtualMachines/takeBackup/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.backups.takeBackup, { params: { id }, body: { name: 'matrix' } }),
    check: async (_res, _actor, id) => {
      expect((await backupRows(id)).map((b) => [b.name, b.state])).toEqual([['matrix', 'ready']]);
      expect((await vmRow(id)).status).toBe('Running');
    },
  },
  {
    // A restore erases what the disk gained since: vm.delete, as a snapshot's revert.
    call: 'POST /virtualMachines/restoreBackup/:id/:backupId',
    expect: vmChange,
    prepare: withBackup,
    run: (c, id) => c.call(routes.backups.restoreBackup, { params: { id, backupId: backupOf.get(id)! } }),
    check: async (_res, _actor, id) => {
      expect((await opsOf(id)).filter((o) => o.kind === 'backupRestore').map((o) => o.status)).toEqual(['succeeded']);
      expect((await vmRow(id)).status).toBe('Running');
    },
  },
  {
    call: 'DELETE /virtualMachines/deleteBackup/:id/:backupId',
    expect: vmChange,
    prepare: withBackup,
    run: (c, id) => c.call(routes.backups.deleteBackup, { params: { id, backupId: backupOf.get(id)! } }),
    check: async (_res, _actor, id) => expect(await backupRows(id)).toEqual([]),
  },
  {
    // A new VM in the backup's team, as a create there: vm.create.
    call: 'POST /virtualMachines/restoreBackupAsNew/:backupId',
    expect: vmChange,
    prepare: withBackup,
    run: (c, id) =>
      c.call(routes.backups.restoreBackupAsNew, {
        params: { backupId: backupOf.get(id)! },
        body: { name: `mx-restored-${++seq}` },
      }),
    check: async (res, actor) =>
      expect(await vmRow((res.data as { id: number }).id)).toMatchObject({
        companyId: 1,
        teamId: ids.team,
        createdByUserId: ids[actor],
        status: 'Running',
      }),
  },
  {
    call: 'GET /backups',
    expect: all(A),
    prepare: keptBackup,
    run: (c) => c.call(routes.backups.listCompanyBackups),
    check: (res, actor, kept) => {
      const seen = (res.data as { backups: { id: number }[] }).backups.map((b) => b.id);
      // A kept backup is seen by its VM's team (and the company admins), like the VM was.
      expect(seen.includes(kept)).toBe(!['nonMember', 'otherCompany'].includes(actor));
    },
  },
  {
    // A backup kept after its VM was deleted: vm.delete in the team the VM had.
    call: 'DELETE /backups/:backupId',
    expect: vmChange,
    prepare: keptBackup,
    run: (c, backupId) => c.call(routes.backups.deleteKeptBackup, { params: { backupId } }),
    check: async (_res, _actor, backupId) => expect(await backupRow(backupId)).toBeUndefined(),
  },
  {
    // Verify now only reads the copy (a throwaway machine boots from it, never the VM): vm.operate, as a take.
    call: 'POST /virtualMachines/verifyBackup/:id/:backupId',
    expect: vmChange,
    prepare: verifiableVm,
    run: (c, id) => c.call(routes.backups.verifyBackup, { params: { id, backupId: backupOf.get(id)! } }),
    check: (_res, actor, id) => verifiedNow(backupOf.get(id)!, actor),
  },
  {
    // By the backup's id (the company's Backups screen), a kept one too: vm.operate in the team the VM had.
    call: 'POST /backups/:backupId/verify',
    expect: vmChange,
    prepare: verifiableKept,
    run: (c, backupId) => c.call(routes.backups.verifyKeptBackup, { params: { backupId } }),
    check: (_res, actor, backupId) => verifiedNow(backupId, actor),
  },
  {
    call: 'GET /virtualMachines/backupSchedule/:id',
    expect: vmView,
    run: (c) => c.call(routes.backupSchedules.getBackupSchedule, { params: { id: shared.read } }),
    check: (res) => expect(res.data).toMatchObject({ schedule: null, limit: expect.any(Number) }),
  },
  {
    // Setting a schedule takes backups later: vm.operate, as a take.
    call: 'PUT /virtualMachines/backupSchedule/:id',
    expect: vmChange,
    run: (c) =>
      c.call(routes.backupSchedules.setBackupSchedule, {
        params: { id: shared.edit },
        body: { frequency: 'weekly', weekday: 'sunday', hour: ++seq % 24, keep: 1 },
      }),
    check: async () =>
      expect(
        (await t.db.select().from(vmBackupSchedules).where(eq(vmBackupSchedules.vmId, shared.edit)))[0],
      ).toMatchObject({
        frequency: 'weekly',
        weekday: 0,
        hour: seq % 24,
      }),
  },
  {
    call: 'DELETE /virtualMachines/backupSchedule/:id',
    expect: vmChange,
    prepare: async () => {
      const body = { frequency: 'daily', hour: 4, keep: 1 };
      const res = await clients.companyAdmin.call(routes.backupSchedules.setBackupSchedule, {
        params: { id: shared.edit },
        body,
      });
      if (res.status !== 200) throw new Error(`could not set a schedule: ${res.status} ${res.message}`);
      return shared.edit;
    },
    run: (c, id) => c.call(routes.backupSchedules.removeBackupSchedule, { params: { id } }),
    check: async (_res, _actor, id) =>
      expect(await t.db.select().from(vmBackupSchedules).where(eq(vmBackupSchedules.vmId, id))).toEqual([]),
  },
  {
    call: 'DELETE /virtualMachines/delete/:id',
    expect: vmChange,
    prepare: () => take('Running'),
    run: (c, id) => c.call(routes.vms.delete, { params: { id } }),
    check: async (_res, _actor, id) => expect((await vmRow(id)).deletedAt).not.toBeNull(),
  },
  {
    call: 'POST /virtualMachines/create (in the team)',
    expect: vmChange,
    run: (c) =>
      c.call(routes.vms.create, {
        body: {
          regionId: catalog.regionId,
          image: 'Debian 12',
          configurationId: catalog.micro,
          providerId: catalog.providerId,
          name: `mx-created-${++seq}`,
          numberOfInstances: 1,
          teamId: ids.team,
        },
      }),
    check: async (res, actor) => {
      const [id] = (res.data as { ids: number[] }).ids;
      expect(await vmRow(id!)).toMatchObject({
        companyId: 1,
        teamId: ids.team,
        createdByUserId: ids[actor],
        status: 'Running',
      });
    },
  },
  {
    // Before the team-less create below, which gives the other company a VM of its own.
    call: 'GET /virtualMachines/GetDashboardData',
    expect: all(A),
    run: (c) => c.call(routes.vms.dashboard),
    check: (res, actor) => {
      const d = res.data as Record<'currentMonth' | 'previousMonth' | 'ytd', Record<string, number>>;
      const total = (period: keyof typeof d) => Object.values(d[period]).reduce((a, b) => a + b, 0);
      if (actor === 'nonMember' || actor === 'otherCompany') {
        // Another company's (and a non-member's) counts stay 0: none of the team's VMs leak into them.
        expect([total('currentMonth'), total('previousMonth'), total('ytd')]).toEqual([0, 0, 0]);
      } else {
        expect(d.currentMonth.micro).toBeGreaterThan(0);
        expect(d.ytd.micro).toBeGreaterThanOrEqual(d.currentMonth.micro!);
      }
    },
  },
  {
    // Outside any team: company admins (of their own company), or an Admin/Operator of some team.
    call: 'POST /virtualMachines/create (no team)',
    expect: { companyAdmin: A, teamAdmin: A, operator: A, viewer: 403, nonMember: 403, otherCompany: A },
    run: (c) =>
      c.call(routes.vms.create, {
        body: {
          regionId: catalog.regionId,
          image: 'Debian 12',
          configurationId: catalog.micro,
          providerId: catalog.providerId,
          name: `mx-own-${++seq}`,
          numberOfInstances: 1,
        },
      }),
    check: async (res, actor) => {
      const [id] = (res.data as { ids: number[] }).ids;
      expect(await vmRow(id!)).toMatchObject({
        companyId: actor === 'otherCompany' ? ids.otherCompanyId : 1,
        teamId: null,
        createdByUserId: ids[actor],
        status: 'Running',
      });
    },
  },
];

describe('authorisation matrix: virtual machines', () => {
  it(`checks ${cells.length} calls × ${ACTORS.length} callers`, async () => {
    const { checked, failures } = await runMatrix({ cells, clients, snapshot, settle });
    console.log(`VM authorisation matrix: ${checked} cells checked (${cells.length} calls × ${ACTORS.length} callers)`);
    expect(failures).toEqual([]);
    expect(checked).toBe(cells.length * ACTORS.length);
    // 192 cells, each waiting for the runner: about 30 s alone, more under a full run's load.
  }, 180_000);
});

/**
 * Token callers (issue 26 item 4; docs/api-tokens.md): the company admin's read-only and act tokens, the company
 * admin's act token limited to another team it is a member of (the matrix team's VMs: 404), and the other
 * company's administrator's act token (404). Same VMs, same "nothing changed" rule.
 */
const TOKEN_ACTORS = ['tokenRead', 'tokenAct', 'tokenOtherTeam', 'tokenOtherCompany'] as const;
type TokenActor = (typeof TOKEN_ACTORS)[number];

/** A caller with `Authorization: Bearer` (its jar holds only the CSRF cookie, which bearer calls ignore). */
class BearerClient extends TestClient {
  constructor(
    portal: App,
    apiBase: string,
    private readonly token: string,
  ) {
    super(portal, apiBase);
  }
  override raw<T = unknown>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.raw<T>(method, url, body, { ...headers, authorization: `Bearer ${this.token}` });
  }
}

describe('authorisation matrix: virtual machines, token callers', () => {
  const tokenClients = {} as Record<TokenActor, TestClient>;
  const tokenPool: number[] = [];
  const takeFresh = () => {
    const id = tokenPool.shift();
    if (id === undefined) throw new Error('the token pool has no Running VM left');
    return Promise.resolve(id);
  };
  /** Allowed to the full-scope tokens, 403 to the read-only one, 404 outside the token's team or company. */
  const tokenChange = { tokenRead: 403, tokenAct: A, tokenOtherTeam: 404, tokenOtherCompany: 404 } as const;
  const tokenView = { tokenRead: A, tokenAct: A, tokenOtherTeam: 404, tokenOtherCompany: 404 } as const;

  beforeAll(async () => {
    const otherTeam = await createTeam(t, 1, 'VM matrix token team', [{ userId: ids.companyAdmin, roleId: 1 }]);
    const make = async (client: TestClient, body: Record<string, unknown>) => {
      const res = await client.call(routes.apiTokens.create, {
        body: { name: 'matrix', expiresAt: new Date(Date.now() + 86_400_000).toISOString(), ...body },
      });
      if (res.status !== 200) throw new Error(`could not create a token: ${res.status} ${res.message}`);
      return new BearerClient(t.portal, t.config.API_BASE_PATH, res.data.token);
    };
    tokenClients.tokenRead = await make(clients.companyAdmin, { scope: 'read' });
    tokenClients.tokenAct = await make(clients.companyAdmin, { scope: 'act' });
    tokenClients.tokenOtherTeam = await make(clients.companyAdmin, { scope: 'act', teamIds: [otherTeam.id] });
    tokenClients.tokenOtherCompany = await make(clients.otherCompany, { scope: 'act' });
    // stop and delete: one fresh Running VM of the matrix team per token caller.
    tokenPool.push(...(await createVms(2 * TOKEN_ACTORS.length, 'mx-token')));
  }, 60_000);

  const tokenCells: Cell<TokenActor>[] = [
    {
      call: 'GET /virtualMachines/list (token)',
      expect: { tokenRead: A, tokenAct: A, tokenOtherTeam: A, tokenOtherCompany: A },
      run: (c) => c.call(routes.vms.list, { query: { rowsPerPage: 100, sortColumn: 'name' } }),
      check: (res, actor) => {
        const seen = listed(res);
        // The company admin's full-scope tokens see the team's VMs and the Operator's team-less one; a token
        // limited to another team sees neither, another company's token nothing of this company.
        const full = actor === 'tokenRead' || actor === 'tokenAct';
        expect([seen.includes(shared.read), seen.includes(shared.operatorOwn)]).toEqual([full, full]);
      },
    },
    {
      call: 'GET /virtualMachines/details/:id (token)',
      expect: tokenView,
      run: (c) => c.call(routes.vms.details, { params: { id: shared.read } }),
      check: (res) => expect(res.data).toMatchObject({ virtualMachine: { id: shared.read, teamId: ids.team } }),
    },
    {
      // A credential is as good as control of the machine: refused to a read-only token like a write.
      call: 'GET /virtualMachines/getPassword/:id (token)',
      expect: tokenChange,
      run: (c) => c.call(routes.vms.getPassword, { params: { id: shared.read } }),
      check: (res) => expect((res.data as { sshPassword: string }).sshPassword.length).toBeGreaterThanOrEqual(16),
    },
    {
      call: 'PUT /virtualMachines/edit/:id (token)',
      expect: tokenChange,
      run: (c) =>
        c.call(routes.vms.edit, { params: { id: shared.edit }, body: { name: (lastName = `mx-token-${++seq}`) } }),
      check: async () => expect((await vmRow(shared.edit)).name).toBe(lastName),
    },
    {
      call: 'POST /virtualMachines/stop/:id (token)',
      expect: tokenChange,
      prepare: takeFresh,
      run: (c, id) => c.call(routes.vms.stop, { params: { id } }),
      check: async (_res, _actor, id) => expect((await vmRow(id)).status).toBe('Stopped'),
    },
    {
      call: 'DELETE /virtualMachines/delete/:id (token)',
      expect: tokenChange,
      prepare: takeFresh,
      run: (c, id) => c.call(routes.vms.delete, { params: { id } }),
      check: async (_res, _actor, id) => expect((await vmRow(id)).deletedAt).not.toBeNull(),
    },
    {
      call: 'POST /virtualMachines/create (in the team, token)',
      expect: tokenChange,
      run: (c) =>
        c.call(routes.vms.create, {
          body: {
            regionId: catalog.regionId,
            image: 'Debian 12',
            configurationId: catalog.micro,
            providerId: catalog.providerId,
            name: `mx-token-created-${++seq}`,
            numberOfInstances: 1,
            teamId: ids.team,
          },
        }),
      check: async (res) => {
        const [id] = (res.data as { ids: number[] }).ids;
        expect(await vmRow(id!)).toMatchObject({ companyId: 1, teamId: ids.team, createdByUserId: ids.companyAdmin });
      },
    },
  ];

  it(`checks ${tokenCells.length} calls × ${TOKEN_ACTORS.length} token callers`, async () => {
    const { checked, failures } = await runMatrix({
      cells: tokenCells,
      clients: tokenClients,
      actors: TOKEN_ACTORS,
      snapshot,
      settle,
    });
    console.log(`VM authorisation matrix, token callers: ${checked} cells checked`);
    expect(failures).toEqual([]);
    expect(checked).toBe(tokenCells.length * TOKEN_ACTORS.length);
  });
});
