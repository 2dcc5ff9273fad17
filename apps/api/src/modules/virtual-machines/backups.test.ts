/**
 * Backups (issue 24 item 2; docs/decisions/0021-backups.md) through the real server and runner on the simulator, on
 * both engines: take (a running VM stays Running), list with size, time and state, restore in place (the machine's
 * disk comes back: its console log), restore as a new VM (appears, Running, from the backup's disk), delete; the
 * per-VM limit (failed takes not counted); a VM deleted with its backups kept (the company's list shows them, a
 * restore as new and a delete work) or not (they go); bad input a 400, another company's ids a 404, a Viewer a 403.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUPS } from '@portal/contract/constants';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { BACKUP_NAME_RULE, BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import { auditLog, configurationPrices, companies, virtualMachines, vmBackups } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

let t: TestApp;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    // Verification (decision 0024) is backup-verification.test.ts's: off here, so a take's row reads as it was taken.
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000', BACKUP_VERIFY: 'off' },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t.close();
});

async function waitFor(id: number, status: string) {
  for (let i = 0; i < 800; i++) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data.status === status && res.data.pendingOperation === null) return res.data;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} did not reach ${status}`);
}
async function waitDeleted(id: number) {
  for (let i = 0; i < 800; i++) {
    const [vm] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id));
    if (vm!.deletedAt) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} was not deleted`);
}
const list = async (id: number, client = admin) => client.call(routes.backups.listBackups, { params: { id } });
const take = (id: number, name?: string, client = admin) =>
  client.call(routes.backups.takeBackup, { params: { id }, body: name === undefined ? {} : { name } });
async function created(name: string, extra: Record<string, unknown> = {}) {
  const id = (await admin.call(routes.vms.create, { body: { ...catalog.createBody(name), ...extra } })).data.ids[0]!;
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

describe('backups', () => {
  it('takes one of a running VM (it stays Running), lists it, restores it in place and as a new VM, deletes it', async () => {
    const id = await created('backup-me');
    const res = await take(id, 'before the change');
    expect([res.status, res.message]).toEqual([200, BACKUP_ACTIONS.backup.accepted]);
    // No status of its own: the machine keeps running while it is copied.
    expect((await admin.call(routes.vms.details, { params: { id } })).data.status).toBe('Running');
    await waitFor(id, 'Running');

    const first = (await list(id)).data;
    expect(first.limit).toBe(BACKUPS.defaultPerVm);
    expect(first.backups).toHaveLength(1);
    const backup = first.backups[0]!;
    expect(backup).toMatchObject({
      id: res.data.id,
      vmId: id,
      vmName: 'backup-me',
      name: 'before the change',
      state: 'ready',
      incremental: false,
      // The simulator's guest has no agent unless its name says so (decision 0028).
      consistency: 'crash-consistent',
      image: catalog.createBody('x').image,
      configurationId: catalog.micro.id,
      verifiedAt: null,
      verificationError: null,
      error: null,
    });
    expect(backup.sizeBytes).toBeGreaterThan(0);
    expect(Date.parse(backup.completedAt!)).toBeGreaterThanOrEqual(Date.parse(backup.createdAt));
    const [row] = await t.db.select().from(vmBackups).where(eq(vmBackups.id, backup.id));
    expect(row!.providerName).toBe(`portal-backup-${backup.id}`);

    // Without a name: "Backup <UTC date and time>".
    const unnamed = await take(id);
    expect(unnamed.status).toBe(200);
    await waitFor(id, 'Running');
    expect((await list(id)).data.backups[0]!.name).toMatch(/^Backup \d{4}-\d\d-\d\d \d\d:\d\d$/);

    // A snapshot of the disk the restore will replace.
    const snap = await admin.call(routes.snapshots.takeSnapshot, { params: { id }, body: { name: 'of the old disk' } });
    expect(snap.status, snap.message).toBe(200);
    await waitFor(id, 'Running');
    expect((await admin.call(routes.snapshots.listSnapshots, { params: { id } })).data.snapshots).toHaveLength(1);

    // Restore in place: Restoring, then Running again with the backup's disk.
    const rs = await admin.call(routes.backups.restoreBackup, { params: { id, backupId: backup.id } });
    expect([rs.status, rs.message]).toEqual([200, BACKUP_ACTIONS.backupRestore.accepted]);
    const during = await admin.call(routes.vms.details, { params: { id } });
    if (during.data.pendingOperation === 'backupRestore') expect(during.data.status).toBe('Restoring');
    await waitFor(id, 'Running');
    expect(await bootLog(id)).toContain(`disk restored from backup portal-backup-${backup.id}`);
    expect((await list(id)).data.backups.every((b) => b.state === 'ready')).toBe(true);
    // The snapshots were inside the replaced disk: they are gone from the list too.
    expect((await admin.call(routes.snapshots.listSnapshots, { params: { id } })).data.snapshots).toEqual([]);

    // Restore as a new VM: it appears, runs, in the same region and size, from the backup's disk.
    const asNew = await admin.call(routes.backups.restoreBackupAsNew, {
      params: { backupId: backup.id },
      body: { name: 'backup-me-copy' },
    });
    expect([asNew.status, asNew.message]).toEqual([200, BACKUP_TEXT.restoringAsNew]);
    const copy = await waitFor(asNew.data.id, 'Running');
    expect(copy.virtualMachine.name).toBe('backup-me-copy');
    expect(await bootLog(asNew.data.id)).toContain(`from backup portal-backup-${backup.id}`);
    const [copyRow] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, asNew.data.id));
    expect(copyRow!.configurationId).toBe(catalog.micro.id);
    expect((await list(id)).data.backups.find((b) => b.id === backup.id)!.state).toBe('ready');

    const del = await admin.call(routes.backups.deleteBackup, { params: { id, backupId: backup.id } });
    expect([del.status, del.message]).toEqual([200, BACKUP_ACTIONS.backupDelete.accepted]);
    expect((await list(id)).data.backups.map((b) => b.id)).toEqual([unnamed.data.id]);
    // Gone from the backup target too: a restore as new from it is refused (not found).
    const again = await admin.call(routes.backups.restoreBackupAsNew, {
      params: { backupId: backup.id },
      body: { name: 'too-late' },
    });
    expect(again.status).toBe(404);

    const taken = await audits(id, 'vm.backup');
    expect(taken.map((a) => a.after)).toEqual([
      {
        backupId: backup.id,
        name: 'before the change',
        providerName: `portal-backup-${backup.id}`,
        status: 'Running',
      },
      expect.objectContaining({ backupId: unnamed.data.id }),
    ]);
    expect(await audits(id, 'vm.backupRestore')).toHaveLength(1);
    expect(await audits(id, 'vm.backupDelete')).toHaveLength(1);
  });

  it('says how consistent each copy is: application-consistent when a running guest with an agent was frozen, crash-consistent powered off', async () => {
    const id = await created('with-agent');
    const running = await take(id, 'frozen');
    expect(running.status, running.message).toBe(200);
    await waitFor(id, 'Running');
    expect((await list(id)).data.backups.find((b) => b.id === running.data.id)).toMatchObject({
      state: 'ready',
      consistency: 'application-consistent',
    });
    expect((await admin.call(routes.vms.stop, { params: { id } })).status).toBe(200);
    await waitFor(id, 'Stopped');
    const off = await take(id, 'powered off');
    expect(off.status, off.message).toBe(200);
    await waitFor(id, 'Stopped');
    for (let i = 0; i < 400; i++) {
      const b = (await list(id)).data.backups.find((x) => x.id === off.data.id);
      if (b?.state === 'ready') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await list(id)).data.backups.find((b) => b.id === off.data.id)).toMatchObject({
      state: 'ready',
      consistency: 'crash-consistent',
    });
  });

  it('holds the per-VM limit (failed takes not counted), and the reseller catalog column for the size', async () => {
    const id = await created('backup-limit');
    for (let i = 1; i <= BACKUPS.defaultPerVm; i++) {
      expect((await take(id, `b${i}`)).status).toBe(200);
      await waitFor(id, 'Running');
    }
    const over = await take(id, 'one too many');
    expect([over.status, over.message]).toEqual([409, BACKUP_TEXT.limit(BACKUPS.defaultPerVm)]);

    // A failed take leaves a failed row with the reason, which does not count and can be deleted.
    const failing = await created('fail-backup-vm');
    expect((await take(failing, 'doomed')).status).toBe(200);
    await waitFor(failing, 'Running');
    const [failed] = (await list(failing)).data.backups;
    expect(failed).toMatchObject({ name: 'doomed', state: 'failed', sizeBytes: null, completedAt: null });
    expect(failed!.error).toContain('simulated permanent failure');
    const rs = await admin.call(routes.backups.restoreBackup, { params: { id: failing, backupId: failed!.id } });
    expect([rs.status, rs.message]).toEqual([409, BACKUP_TEXT.notReady('failed')]);
    for (let i = 1; i < BACKUPS.defaultPerVm; i++) {
      expect((await take(failing, `more ${i}`)).status).toBe(200);
      await waitFor(failing, 'Running');
    }
    // All failed: none counted, so the next is still accepted.
    expect((await take(failing, 'still room')).status).toBe(200);
    await waitFor(failing, 'Running');
    expect(
      (await admin.call(routes.backups.deleteBackup, { params: { id: failing, backupId: failed!.id } })).status,
    ).toBe(200);

    // The reseller's limit for the size: 0 offers none.
    const [company] = await t.db.select().from(companies).where(eq(companies.id, 1));
    const hadPrices = (await t.db.select().from(configurationPrices)).length > 0;
    await t.db
      .insert(configurationPrices)
      .values({
        resellerId: company!.resellerId!,
        configurationId: catalog.micro.id,
        monthlyPrice: '5.00',
        hourlyPrice: '0.01000',
        backupLimit: 0,
      })
      .onConflictDoUpdate({
        target: [configurationPrices.resellerId, configurationPrices.configurationId],
        set: { backupLimit: 0 },
      });
    expect((await list(id)).data.limit).toBe(0);
    const none = await take(id, 'none');
    expect([none.status, none.message]).toEqual([409, BACKUP_TEXT.limit(0)]);
    if (hadPrices)
      await t.db
        .update(configurationPrices)
        .set({ backupLimit: null })
        .where(eq(configurationPrices.configurationId, catalog.micro.id));
    else await t.db.delete(configurationPrices);
  });

  it('a VM deleted with keepBackups leaves its backups to the company (restore as new, delete); without, they go', async () => {
    const id = await created('backup-kept');
    const b = (await take(id, 'keep me')).data.id;
    await waitFor(id, 'Running');
    const del = await admin.call(routes.vms.delete, { params: { id }, query: { keepBackups: 'true' } });
    expect(del.status).toBe(200);
    await waitDeleted(id);

    const company = (await admin.call(routes.backups.listCompanyBackups)).data.backups;
    const kept = company.find((x) => x.id === b);
    expect(kept).toMatchObject({ vmId: null, vmName: 'backup-kept', name: 'keep me', state: 'ready' });

    const asNew = await admin.call(routes.backups.restoreBackupAsNew, {
      params: { backupId: b },
      body: { name: 'backup-kept-again' },
    });
    expect(asNew.status).toBe(200);
    await waitFor(asNew.data.id, 'Running');
    expect(await bootLog(asNew.data.id)).toContain(`from backup portal-backup-${b}`);

    const gone = await admin.call(routes.backups.deleteKeptBackup, { params: { backupId: b } });
    expect(gone.status).toBe(200);
    expect((await admin.call(routes.backups.listCompanyBackups)).data.backups.some((x) => x.id === b)).toBe(false);

    // Without keepBackups (the default) the backups go with the VM.
    const other = await created('backup-not-kept');
    const ob = (await take(other, 'goes')).data.id;
    await waitFor(other, 'Running');
    expect((await admin.call(routes.vms.delete, { params: { id: other } })).status).toBe(200);
    await waitDeleted(other);
    expect(await t.db.select().from(vmBackups).where(eq(vmBackups.id, ob))).toEqual([]);
    expect(
      (await admin.raw('DELETE', `${t.config.API_BASE_PATH}/virtualMachines/delete/${id}?keepBackups=maybe`)).status,
    ).toBe(400);
  });

  it('a bulk delete keeps every deleted VM’s backups when asked (keepBackups: true); without, they go', async () => {
    const kept = await created('bulk-backup-kept');
    const gone = await created('bulk-backup-gone');
    const keptBackup = (await take(kept, 'bulk keep')).data.id;
    const goneBackup = (await take(gone, 'bulk goes')).data.id;
    await waitFor(kept, 'Running');
    await waitFor(gone, 'Running');
    const bad = await admin.raw('POST', `${t.config.API_BASE_PATH}/virtualMachines/bulk`, {
      action: 'delete',
      ids: [kept],
      keepBackups: 'yes',
    });
    expect([bad.status, bad.message]).toEqual([400, 'keepBackups must be true or false']);

    const res = await admin.call(routes.vms.bulk, { body: { action: 'delete', ids: [kept], keepBackups: true } });
    expect(res.data).toMatchObject({ done: 1, refused: 0 });
    expect((await admin.call(routes.vms.bulk, { body: { action: 'delete', ids: [gone] } })).data.done).toBe(1);
    await waitDeleted(kept);
    await waitDeleted(gone);
    const company = (await admin.call(routes.backups.listCompanyBackups)).data.backups;
    expect(company.find((x) => x.id === keptBackup)).toMatchObject({ vmId: null, vmName: 'bulk-backup-kept' });
    expect(company.some((x) => x.id === goneBackup)).toBe(false);
    expect((await admin.call(routes.backups.deleteKeptBackup, { params: { backupId: keptBackup } })).status).toBe(200);
  });

  it('refuses bad input (400), another company (404), a Viewer (403) and a backup that is not this VM’s (404)', async () => {
    const id = await created('backup-refused');
    const other = await created('backup-other-vm');
    const theirs = (await take(other, 'theirs')).data.id;
    await waitFor(other, 'Running');

    const base = `${t.config.API_BASE_PATH}/virtualMachines`;
    for (const body of [{ name: '' }, { name: '   ' }, { name: 'x'.repeat(65) }, { name: 'a\nb' }, { name: 'a/b' }]) {
      const bad = await admin.raw('POST', `${base}/takeBackup/${id}`, body);
      expect([bad.status, bad.message], JSON.stringify(body)).toEqual([400, BACKUP_NAME_RULE]);
      expect(bad).toHaveProperty('data');
    }
    for (const body of [{ name: 1 }, { name: 'ok', x: 1 }]) {
      const bad = await admin.raw('POST', `${base}/takeBackup/${id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    expect((await admin.raw('POST', `${base}/takeBackup/abc`, {})).status).toBe(400);
    expect((await admin.raw('GET', `${base}/listBackups/0`)).status).toBe(400);
    expect((await admin.raw('POST', `${base}/restoreBackup/${id}/x`)).status).toBe(400);
    expect((await admin.raw('DELETE', `${base}/deleteBackup/${id}/99999999999`)).status).toBe(400);
    expect((await admin.raw('DELETE', `${t.config.API_BASE_PATH}/backups/-1`)).status).toBe(400);
    for (const body of [{}, { name: '' }, { name: 'a b/c' }, { name: 'ok', x: 1 }]) {
      const bad = await admin.raw('POST', `${base}/restoreBackupAsNew/${theirs}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }

    // Another VM's backup through this VM, or one that does not exist: 404.
    for (const backupId of [theirs, 999_999]) {
      const rs = await admin.call(routes.backups.restoreBackup, { params: { id, backupId } });
      expect([rs.status, rs.message]).toEqual([404, BACKUP_TEXT.notFound]);
      expect((await admin.call(routes.backups.deleteBackup, { params: { id, backupId } })).status).toBe(404);
    }

    const company = await createOtherCompany(t, 'backup-boss@other.example');
    const outsider = await signIn(t, company.admin.email, PASSWORD);
    expect((await list(other, outsider)).status).toBe(404);
    expect((await take(other, 'mine now', outsider)).status).toBe(404);
    const params = { id: other, backupId: theirs };
    expect((await outsider.call(routes.backups.restoreBackup, { params })).status).toBe(404);
    expect((await outsider.call(routes.backups.deleteBackup, { params })).status).toBe(404);
    expect((await outsider.call(routes.backups.deleteKeptBackup, { params: { backupId: theirs } })).status).toBe(404);
    const stolen = await outsider.call(routes.backups.restoreBackupAsNew, {
      params: { backupId: theirs },
      body: { name: 'stolen' },
    });
    expect([stolen.status, stolen.message]).toEqual([404, BACKUP_TEXT.notFound]);
    expect((await outsider.call(routes.backups.listCompanyBackups)).data.backups).toEqual([]);

    // A Viewer sees the list and changes nothing.
    const viewer = await createUser(t, 1, 'backup-viewer@example.com');
    const team = await createTeam(t, 1, 'Backup viewers', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
    const teamVm = await created('backup-team', { teamId: team.id });
    const kept = (await take(teamVm, 'kept')).data.id;
    await waitFor(teamVm, 'Running');
    const v = await signIn(t, viewer.email, PASSWORD);
    expect((await list(teamVm, v)).data.backups.map((b) => b.name)).toEqual(['kept']);
    expect((await v.call(routes.backups.listCompanyBackups)).data.backups.map((b) => b.id)).toEqual([kept]);
    expect((await take(teamVm, 'nope', v)).status).toBe(403);
    const vp = { id: teamVm, backupId: kept };
    expect((await v.call(routes.backups.restoreBackup, { params: vp })).status).toBe(403);
    expect((await v.call(routes.backups.deleteBackup, { params: vp })).status).toBe(403);
    expect((await v.call(routes.backups.deleteKeptBackup, { params: { backupId: kept } })).status).toBe(403);
    expect(
      (await v.call(routes.backups.restoreBackupAsNew, { params: { backupId: kept }, body: { name: 'v-copy' } }))
        .status,
    ).toBe(403);

    // Nothing refused queued anything.
    expect(await audits(id, 'vm.backup')).toEqual([]);
    expect((await list(id)).data.backups).toEqual([]);
  });
});
