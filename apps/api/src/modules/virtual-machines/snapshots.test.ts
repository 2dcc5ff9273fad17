/**
 * Snapshots (issue 24 item 1) through the real server and runner on the simulator, on both engines: take (running:
 * with memory; powered off: not), list with size, time and state, revert (the VM comes back as the snapshot was
 * taken), delete; each an operation with its own status, audited; the per-VM limit (the default, then the reseller
 * catalog's column); bad input a 400, another company's VM a 404, a Viewer a 403; a failed take leaves a 'failed' row
 * that can be deleted; a rebuild and a delete drop the VM's snapshots.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOTS } from '@portal/contract/constants';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { SNAPSHOT_NAME_RULE } from '@portal/contract/snapshots';
import { SNAPSHOT_ACTIONS, SNAPSHOT_TEXT } from '@portal/contract/vm-lifecycle';
import { auditLog, companies, configurationPrices, virtualMachines, vmSnapshots } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

let t: TestApp;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t.close();
});

async function waitFor(id: number, status: string) {
  for (let i = 0; i < 400; i++) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data.status === status && res.data.pendingOperation === null) return res.data;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} did not reach ${status}`);
}
const list = async (id: number, client = admin) => client.call(routes.snapshots.listSnapshots, { params: { id } });
const take = (id: number, name: string, client = admin) =>
  client.call(routes.snapshots.takeSnapshot, { params: { id }, body: { name } });
async function created(name: string) {
  const id = (await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!;
  await waitFor(id, 'Running');
  return id;
}
async function bootLog(id: number) {
  const url = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl;
  return (await admin.raw('GET', url)).message as string;
}
const audits = (id: number, action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetId, String(id)), eq(auditLog.action, action)));

describe('snapshots', () => {
  it('takes running (with memory) and powered off, lists them, reverts to each and deletes, audited', async () => {
    const id = await created('snap-me');
    const res = await take(id, 'before upgrade');
    expect([res.status, res.message]).toEqual([200, SNAPSHOT_ACTIONS.snapshot.accepted]);
    const during = await admin.call(routes.vms.details, { params: { id } });
    if (during.data.pendingOperation === 'snapshot') expect(during.data.status).toBe('Snapshotting');
    await waitFor(id, 'Running');

    const first = (await list(id)).data;
    expect(first.limit).toBe(SNAPSHOTS.defaultPerVm);
    expect(first.snapshots).toHaveLength(1);
    expect(first.snapshots[0]).toMatchObject({
      id: res.data.id,
      name: 'before upgrade',
      state: 'ready',
      includesMemory: true,
      error: null,
    });
    expect(first.snapshots[0]!.sizeBytes).toBeGreaterThan(0);
    expect(Date.parse(first.snapshots[0]!.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    // Powered off: disks only, and the VM stays Stopped.
    await admin.call(routes.vms.stop, { params: { id } });
    await waitFor(id, 'Stopped');
    const off = await take(id, 'cold');
    expect(off.status).toBe(200);
    await waitFor(id, 'Stopped');
    const both = (await list(id)).data.snapshots;
    expect(both.map((s) => [s.name, s.state, s.includesMemory])).toEqual([
      ['cold', 'ready', false],
      ['before upgrade', 'ready', true],
    ]);

    // A revert to the running snapshot brings the VM back running, as it was then.
    const rv = await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: res.data.id } });
    expect([rv.status, rv.message]).toEqual([200, SNAPSHOT_ACTIONS.snapshotRevert.accepted]);
    const reverting = await admin.call(routes.vms.details, { params: { id } });
    if (reverting.data.pendingOperation === 'snapshotRevert') expect(reverting.data.status).toBe('Reverting');
    await waitFor(id, 'Running');
    expect(await bootLog(id)).toContain(`reverted to snapshot portal-snap-${res.data.id}`);
    // ... and to the cold one, powered off.
    await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: off.data.id } });
    await waitFor(id, 'Stopped');
    expect((await list(id)).data.snapshots.every((s) => s.state === 'ready')).toBe(true);

    const del = await admin.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId: off.data.id } });
    expect([del.status, del.message]).toEqual([200, SNAPSHOT_ACTIONS.snapshotDelete.accepted]);
    await waitFor(id, 'Stopped');
    expect((await list(id)).data.snapshots.map((s) => s.name)).toEqual(['before upgrade']);

    expect((await audits(id, 'vm.snapshot')).map((a) => [a.before, a.after])).toEqual([
      [
        { status: 'Running', name: 'snap-me' },
        {
          snapshotId: res.data.id,
          name: 'before upgrade',
          providerName: `portal-snap-${res.data.id}`,
          status: 'Running',
        },
      ],
      [
        { status: 'Stopped', name: 'snap-me' },
        { snapshotId: off.data.id, name: 'cold', providerName: `portal-snap-${off.data.id}`, status: 'Stopped' },
      ],
    ]);
    expect(await audits(id, 'vm.snapshotRevert')).toHaveLength(2);
    expect(await audits(id, 'vm.snapshotDelete')).toHaveLength(1);
  });

  it('keeps Shutoff through a take and refuses while another operation runs', async () => {
    const id = await created('snap-shutoff');
    await admin.call(routes.vms.stop, { params: { id } });
    await waitFor(id, 'Stopped');
    await t.db.update(virtualMachines).set({ status: 'Shutoff' }).where(eq(virtualMachines.id, id));
    expect((await take(id, 'off')).status).toBe(200);
    await waitFor(id, 'Shutoff');
    await t.db.update(virtualMachines).set({ status: 'Snapshotting' }).where(eq(virtualMachines.id, id));
    const second = await take(id, 'again');
    expect([second.status, second.message]).toEqual([409, 'The VM cannot be snapshotted while it is Snapshotting']);
    await t.db.update(virtualMachines).set({ status: 'Stopping' }).where(eq(virtualMachines.id, id));
    const [snap] = (await list(id)).data.snapshots;
    const rv = await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: snap!.id } });
    expect([rv.status, rv.message]).toEqual([409, 'The VM cannot be reverted while it is Stopping']);
  });

  it('holds the per-VM limit: the default, then the reseller catalog column for the size', async () => {
    const id = await created('snap-limit');
    for (let i = 1; i <= SNAPSHOTS.defaultPerVm; i++) {
      expect((await take(id, `s${i}`)).status).toBe(200);
      await waitFor(id, 'Running');
    }
    const over = await take(id, 'one too many');
    expect([over.status, over.message]).toEqual([409, SNAPSHOT_TEXT.limit(SNAPSHOTS.defaultPerVm)]);
    const dup = await take(id, 's1');
    // The limit is checked first; with room, a duplicate name is bad input.
    expect(dup.status).toBe(409);

    const [company] = await t.db.select().from(companies).where(eq(companies.id, 1));
    const hadPrices = (await t.db.select().from(configurationPrices)).length > 0;
    await t.db
      .insert(configurationPrices)
      .values({
        resellerId: company!.resellerId!,
        configurationId: catalog.micro.id,
        monthlyPrice: '5.00',
        hourlyPrice: '0.01000',
        snapshotLimit: SNAPSHOTS.defaultPerVm + 1,
      })
      .onConflictDoUpdate({
        target: [configurationPrices.resellerId, configurationPrices.configurationId],
        set: { snapshotLimit: SNAPSHOTS.defaultPerVm + 1 },
      });
    expect((await list(id)).data.limit).toBe(SNAPSHOTS.defaultPerVm + 1);
    const dupNow = await take(id, 's1');
    expect([dupNow.status, dupNow.message]).toEqual([400, SNAPSHOT_TEXT.nameTaken]);
    expect((await take(id, 'fourth')).status).toBe(200);
    await waitFor(id, 'Running');
    expect((await take(id, 'fifth')).status).toBe(409);
    // A snapshot deleted makes room again.
    const [newest] = (await list(id)).data.snapshots;
    await admin.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId: newest!.id } });
    await waitFor(id, 'Running');
    expect((await take(id, 'fifth')).status).toBe(200);
    await waitFor(id, 'Running');
    // As it was: a reseller with price rows offers only the sizes it prices (the upgrade test below needs small).
    if (hadPrices)
      await t.db
        .update(configurationPrices)
        .set({ snapshotLimit: null })
        .where(eq(configurationPrices.configurationId, catalog.micro.id));
    else await t.db.delete(configurationPrices);
  });

  it('does not revert to a snapshot taken before an upgrade (it would bring the old size back)', async () => {
    const id = await created('snap-upgraded');
    const before = await take(id, 'small days');
    await waitFor(id, 'Running');
    expect(
      (await admin.call(routes.vms.changeConfiguration, { body: { id, configurationId: catalog.small.id } })).status,
    ).toBe(200);
    await waitFor(id, 'Running');
    const rv = await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: before.data.id } });
    expect([rv.status, rv.message]).toEqual([409, SNAPSHOT_TEXT.otherSize]);
    // One taken at the new size reverts; the old one can still be deleted.
    const after = await take(id, 'bigger');
    await waitFor(id, 'Running');
    expect(
      (await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: after.data.id } })).status,
    ).toBe(200);
    await waitFor(id, 'Running');
    expect(
      (await admin.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId: before.data.id } })).status,
    ).toBe(200);
    await waitFor(id, 'Running');
  });

  it('refuses bad input (400), another company (404), a Viewer (403) and a snapshot that is not this VM’s (404)', async () => {
    const id = await created('snap-refused');
    const other = await created('snap-other-vm');
    expect((await take(other, 'theirs')).status).toBe(200);
    await waitFor(other, 'Running');
    const [othersSnap] = (await list(other)).data.snapshots;

    const base = `${t.config.API_BASE_PATH}/virtualMachines`;
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x'.repeat(65) },
      { name: 'a\nb' },
      { name: 'a/b' },
      { name: 1 },
      { name: 'ok', x: 1 },
    ]) {
      const bad = await admin.raw('POST', `${base}/takeSnapshot/${id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad).toHaveProperty('data');
      if (typeof body.name === 'string' && !('x' in body) && body.name.trim() !== '')
        expect(bad.message, JSON.stringify(body)).toBe(SNAPSHOT_NAME_RULE);
    }
    expect((await admin.raw('POST', `${base}/takeSnapshot/abc`, { name: 'ok' })).status).toBe(400);
    expect((await admin.raw('GET', `${base}/listSnapshots/0`)).status).toBe(400);
    expect((await admin.raw('POST', `${base}/revertSnapshot/${id}/x`)).status).toBe(400);
    expect((await admin.raw('DELETE', `${base}/deleteSnapshot/${id}/99999999999`)).status).toBe(400);

    // Another VM's snapshot through this VM, or one that does not exist: 404.
    for (const snapshotId of [othersSnap!.id, 999_999]) {
      const rv = await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId } });
      expect([rv.status, rv.message]).toEqual([404, SNAPSHOT_TEXT.notFound]);
      const del = await admin.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId } });
      expect(del.status).toBe(404);
    }

    const company = await createOtherCompany(t, 'snap-boss@other.example');
    const outsider = await signIn(t, company.admin.email, PASSWORD);
    expect((await list(other, outsider)).status).toBe(404);
    expect((await take(other, 'mine now', outsider)).status).toBe(404);
    const params = { id: other, snapshotId: othersSnap!.id };
    expect((await outsider.call(routes.snapshots.revertSnapshot, { params })).status).toBe(404);
    expect((await outsider.call(routes.snapshots.deleteSnapshot, { params })).status).toBe(404);

    // A Viewer sees the list and changes nothing.
    const viewer = await createUser(t, 1, 'snap-viewer@example.com');
    const team = await createTeam(t, 1, 'Snapshot viewers', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
    const teamVm = (
      await admin.call(routes.vms.create, { body: { ...catalog.createBody('snap-team'), teamId: team.id } })
    ).data.ids[0]!;
    await waitFor(teamVm, 'Running');
    expect((await take(teamVm, 'kept')).status).toBe(200);
    await waitFor(teamVm, 'Running');
    const [kept] = (await list(teamVm)).data.snapshots;
    const v = await signIn(t, viewer.email, PASSWORD);
    expect((await list(teamVm, v)).data.snapshots.map((s) => s.name)).toEqual(['kept']);
    expect((await take(teamVm, 'nope', v)).status).toBe(403);
    const vp = { id: teamVm, snapshotId: kept!.id };
    expect((await v.call(routes.snapshots.revertSnapshot, { params: vp })).status).toBe(403);
    expect((await v.call(routes.snapshots.deleteSnapshot, { params: vp })).status).toBe(403);

    // Nothing refused queued anything.
    expect(await audits(id, 'vm.snapshot')).toEqual([]);
    expect((await list(id)).data.snapshots).toEqual([]);
  });

  it('a failed take leaves a failed row with the reason, which can be deleted; rebuild and delete drop the snapshots', async () => {
    const id = await created('fail-snapshot-vm');
    expect((await take(id, 'doomed')).status).toBe(200);
    await waitFor(id, 'Running');
    const [failed] = (await list(id)).data.snapshots;
    expect(failed).toMatchObject({ name: 'doomed', state: 'failed', sizeBytes: null });
    expect(failed!.error).toContain('simulated permanent failure');
    const rv = await admin.call(routes.snapshots.revertSnapshot, { params: { id, snapshotId: failed!.id } });
    expect([rv.status, rv.message]).toEqual([409, SNAPSHOT_TEXT.notReady('failed')]);
    expect((await admin.call(routes.snapshots.deleteSnapshot, { params: { id, snapshotId: failed!.id } })).status).toBe(
      200,
    );
    await waitFor(id, 'Running');
    expect((await list(id)).data.snapshots).toEqual([]);

    const rebuilt = await created('snap-rebuilt');
    await take(rebuilt, 'old disk');
    await waitFor(rebuilt, 'Running');
    expect(
      (await admin.call(routes.vms.rebuild, { params: { id: rebuilt }, body: { image: 'Debian 12' } })).status,
    ).toBe(200);
    await waitFor(rebuilt, 'Running');
    expect((await list(rebuilt)).data.snapshots).toEqual([]);

    const gone = await created('snap-deleted');
    await take(gone, 'with the disk');
    await waitFor(gone, 'Running');
    await admin.call(routes.vms.delete, { params: { id: gone } });
    for (let i = 0; i < 400; i++) {
      const [vm] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, gone));
      if (vm!.deletedAt) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await t.db.select().from(vmSnapshots).where(eq(vmSnapshots.vmId, gone))).toEqual([]);
  });
});
