/**
 * Rebuild (reinstall, issue 23 item 6) through the real server and runner on the simulator, on both engines: the VM
 * keeps its id, name, size, addresses, team and the portal's password and key; the image changes, the chosen keys and
 * user-data are replaced, the machine boots anew from the image (its boot log says so); the activity log has the
 * request; an image not offered in the VM's region is a 400, another company's VM a 404, a Viewer a 403, a transitional
 * status or a VM in Error a 409, bad input a 400.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import { auditLog, virtualMachines } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { ed25519KeyLine } from '../../../test/ssh-key-lines.ts';

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
const row = async (id: number) => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id)))[0]!;
async function bootLog(id: number) {
  const url = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl;
  return (await admin.raw('GET', url)).message as string;
}

describe('rebuild', () => {
  it('reinstalls from another image of the region: same id, name, size, addresses, team and password; new keys and user-data', async () => {
    const team = await createTeam(t, 1, 'Rebuild team', []);
    const oldKey = (
      await admin.call(routes.sshKeys.add, { body: { name: 'rb old', publicKey: ed25519KeyLine('old@pc') } })
    ).data;
    const newKey = (
      await admin.call(routes.sshKeys.add, { body: { name: 'rb new', publicKey: ed25519KeyLine('new@pc') } })
    ).data;
    const created = await admin.call(routes.vms.create, {
      body: {
        ...catalog.createBody('rebuild-me'),
        teamId: team.id,
        sshKeyIds: [oldKey.id],
        userData: '#!/bin/sh\necho old\n',
      },
    });
    expect(created.status).toBe(200);
    const id = created.data.ids[0]!;
    const before = await waitFor(id, 'Running');
    const rowBefore = await row(id);
    const images = (await admin.call(routes.vms.listImages, { params: { id: catalog.east.id } })).data;
    const image = images.find((i) => i !== 'Debian 12')!;
    expect(image).toBeTruthy();

    const userData = '#cloud-config\nwrite_files:\n  - path: /root/rebuilt\n    content: yes\n';
    const res = await admin.call(routes.vms.rebuild, {
      params: { id },
      body: { image, sshKeyIds: [newKey.id], userData },
    });
    expect([res.status, res.message]).toEqual([200, VM_ACTIONS.rebuild.accepted]);
    // While it runs it shows what a create shows (the refusal of a second action then is the next test's).
    const during = await admin.call(routes.vms.details, { params: { id } });
    // (then Starting once the new machine is powered on and its guest boots).
    if (during.data.pendingOperation === 'rebuild') expect(['Provisioning', 'Starting']).toContain(during.data.status);

    const after = await waitFor(id, 'Running');
    expect(after.virtualMachine).toMatchObject({
      id,
      name: 'rebuild-me',
      image,
      configurationId: before.virtualMachine.configurationId,
      teamId: team.id,
      network: before.virtualMachine.network,
      cpu: before.virtualMachine.cpu,
      ram: before.virtualMachine.ram,
      disk: before.virtualMachine.disk,
    });
    expect(before.virtualMachine.network.privateIp).toBeTruthy();
    expect(before.virtualMachine.network.publicIp).toBeTruthy();
    expect(after.access.keys.map((k) => [k.name, k.portal])).toEqual([
      [SSH_KEY_TEXT.portalKey, true],
      ['rb new', false],
    ]);
    expect(after.access.userData).toEqual({ bytes: Buffer.byteLength(userData), kind: 'cloud-config' });
    // The portal's password and key are kept (what the customer saved keeps working); the machine is the same one.
    const rowAfter = await row(id);
    expect(rowAfter).toMatchObject({
      sshPassword: rowBefore.sshPassword,
      privateKey: rowBefore.privateKey,
      publicKey: rowBefore.publicKey,
      providerRef: rowBefore.providerRef,
      hostId: rowBefore.hostId,
    });
    expect(rowAfter.userData).not.toContain('rebuilt');

    // The machine booted from the new image with the new keys: the old boot log (the old disk) is gone.
    const log = await bootLog(id);
    expect(log).toContain(`Rebuilt rebuild-me from ${image}: previous disk erased`);
    expect(log).toContain(`Linux version 6.1.0-sim (${image})`);
    expect(log).toContain('cloud-init: authorized key ssh-ed25519 new@pc');
    expect(log).not.toContain('old@pc');
    expect(log).not.toContain('Debian 12');
    expect(log).toContain(`cloud-init: user-data (${Buffer.byteLength(userData)} bytes, #cloud-config) applied`);

    // Audited with what was asked, never the user-data itself.
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, String(id)), eq(auditLog.action, 'vm.rebuild')));
    expect(audit).toMatchObject({
      actorUserId: 1,
      before: { status: 'Running', name: 'rebuild-me' },
      after: { image, sshKeys: [newKey.fingerprint], userDataBytes: Buffer.byteLength(userData) },
    });

    // Without keys or user-data a rebuild clears the chosen ones (the portal's key stays), and a stopped VM comes back running.
    await admin.call(routes.vms.stop, { params: { id } });
    await waitFor(id, 'Stopped');
    expect((await admin.call(routes.vms.rebuild, { params: { id }, body: { image: 'Debian 12' } })).status).toBe(200);
    const plain = await waitFor(id, 'Running');
    expect(plain.virtualMachine.image).toBe('Debian 12');
    expect(plain.access.keys.map((k) => k.name)).toEqual([SSH_KEY_TEXT.portalKey]);
    expect(plain.access.userData).toBeNull();
    expect(plain.virtualMachine.network).toEqual(before.virtualMachine.network);
  });

  it('refuses an image not offered in the region, another user\u2019s key, bad input, a Viewer, another company and a busy VM', async () => {
    const id = (await admin.call(routes.vms.create, { body: catalog.createBody('rebuild-refused') })).data.ids[0]!;
    await waitFor(id, 'Running');
    const imageBefore = (await row(id)).image;

    const notOffered = await admin.call(routes.vms.rebuild, { params: { id }, body: { image: 'Plan 9' } });
    expect([notOffered.status, notOffered.message]).toEqual([400, CATALOG_TEXT.imageNotOffered]);

    const other = await createOtherCompany(t, 'rebuild-boss@other.example');
    const outsider = await signIn(t, other.admin.email, PASSWORD);
    const theirKey = (
      await outsider.call(routes.sshKeys.add, { body: { name: 'theirs', publicKey: ed25519KeyLine('them@x') } })
    ).data;
    const foreignKey = await admin.call(routes.vms.rebuild, {
      params: { id },
      body: { image: 'Debian 12', sshKeyIds: [theirKey.id] },
    });
    expect([foreignKey.status, foreignKey.message]).toEqual([400, SSH_KEY_TEXT.keyNotYours]);
    expect((await outsider.call(routes.vms.rebuild, { params: { id }, body: { image: 'Debian 12' } })).status).toBe(
      404,
    );

    for (const body of [
      {},
      { image: '' },
      { image: 'Debian 12', userData: 'echo no shebang' },
      { image: 'Debian 12', x: 1 },
    ]) {
      const bad = await admin.raw('POST', `${t.config.API_BASE_PATH}/virtualMachines/rebuild/${id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad).toHaveProperty('data');
    }
    expect(
      (await admin.raw('POST', `${t.config.API_BASE_PATH}/virtualMachines/rebuild/abc`, { image: 'Debian 12' })).status,
    ).toBe(400);

    const viewer = await createUser(t, 1, 'rebuild-viewer@example.com');
    const team = await createTeam(t, 1, 'Rebuild viewers', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
    const teamVm = (
      await admin.call(routes.vms.create, { body: { ...catalog.createBody('rebuild-team'), teamId: team.id } })
    ).data.ids[0]!;
    await waitFor(teamVm, 'Running');
    const v = await signIn(t, viewer.email, PASSWORD);
    expect((await v.call(routes.vms.rebuild, { params: { id: teamVm }, body: { image: 'Debian 12' } })).status).toBe(
      403,
    );

    // From a transitional status: the lifecycle table's words.
    await t.db.update(virtualMachines).set({ status: 'Stopping' }).where(eq(virtualMachines.id, id));
    const busy = await admin.call(routes.vms.rebuild, { params: { id }, body: { image: 'Debian 12' } });
    expect([busy.status, busy.message]).toEqual([409, 'The VM cannot be rebuilt while it is Stopping']);
    await t.db.update(virtualMachines).set({ status: 'Error' }).where(eq(virtualMachines.id, id));
    const broken = await admin.call(routes.vms.rebuild, { params: { id }, body: { image: 'Debian 12' } });
    expect([broken.status, broken.message]).toEqual([409, 'The VM cannot be rebuilt while it is Error']);

    // Nothing refused changed the VM or queued anything.
    expect((await row(id)).image).toBe(imageBefore);
    const rebuilds = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, String(id)), eq(auditLog.action, 'vm.rebuild')));
    expect(rebuilds).toEqual([]);
  });
});
