/** Virtual machines through the real server: catalog, create chain, lifecycle, credentials, failures. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { TEXT } from '@portal/contract/messages';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import { auditLog, operations, virtualMachines } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
let admin: TestClient;

beforeAll(async () => {
  t = await createTestApp({
    // A reconcile pass every 250 ms: VM details show the usage of the engine's per-host samples (issue 22).
    env: { SIMULATOR_STEP_MS: '30', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '250' },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
});
afterAll(async () => {
  await t.close();
});

async function chain() {
  const countries = (await admin.call(routes.vms.listCountries)).data;
  const us = countries.find((c) => c.name === 'United States')!;
  const regions = (await admin.call(routes.vms.listRegions, { params: { id: us.id } })).data;
  const east = regions.find((r) => r.name === 'US East')!;
  const images = (await admin.call(routes.vms.listImages, { params: { id: east.id } })).data;
  const configs = (
    await admin.call(routes.vms.fetchConfigurations, { params: { regionId: east.id }, query: { image: images[0] } })
  ).data;
  return { us, east, images, configs };
}

async function createVm(name: string, extra: Record<string, unknown> = {}, client = admin) {
  const { east, configs } = await chain();
  const micro = configs.find((c) => c.key === 'micro')!;
  const providers = (
    await client.call(routes.vms.listProviders, { params: { regionId: east.id }, query: { configurationId: micro.id } })
  ).data;
  const res = await client.call(routes.vms.create, {
    body: {
      regionId: east.id,
      image: 'Debian 12',
      configurationId: micro.id,
      providerId: providers[0]!.id,
      name,
      numberOfInstances: 1,
      ...extra,
    },
  });
  return res;
}

async function waitForStatus(id: number, status: string, client = admin, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await client.call(routes.vms.details, { params: { id } });
    if (res.data?.status === status) return res.data;
    if (Date.now() > deadline) throw new Error(`VM ${id} is ${res.data?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Details once the engine has sampled the running VM twice (CPU % is taken over the interval between samples). */
async function waitForUsage(id: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data?.usage.cpuUsage > 0 || Date.now() > deadline) return res.data;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('catalog', () => {
  it('offers the create chain with one provider, several, or none', async () => {
    const { east, images, configs } = await chain();
    expect(images).toContain('Ubuntu 24.04 LTS');
    expect(configs.map((c) => c.key)).toEqual(['micro', 'extraSmall', 'small', 'medium', 'large', 'extraLarge']);
    const providersFor = async (regionId: number, key: string) =>
      (
        await admin.call(routes.vms.listProviders, {
          params: { regionId },
          query: {
            configurationId: (await admin.call(routes.vms.listConfigurations)).data.find((c) => c.key === key)!.id,
          },
        })
      ).data;
    expect(await providersFor(east.id, 'micro')).toHaveLength(1);
    expect(await providersFor(east.id, 'medium')).toHaveLength(2);
    const sg = (await admin.call(routes.vms.listCountries)).data.find((c) => c.name === 'Singapore')!;
    const sgRegion = (await admin.call(routes.vms.listRegions, { params: { id: sg.id } })).data[0]!;
    expect(await providersFor(sgRegion.id, 'extraLarge')).toEqual([]);
    expect((await admin.call(routes.vms.getRegion, { params: { id: east.id } })).data).toMatchObject({
      name: 'US East',
      country: 'United States',
    });
    expect((await admin.call(routes.vms.listCities, { params: { id: east.id } })).data.map((c) => c.name)).toContain(
      'Ashburn',
    );
    const all = (await admin.call(routes.vms.listConfigurations)).data;
    expect(all.find((c) => c.key === 'large')).toMatchObject({ name: 'Large', cpu: 12, ram: 48, disk: 300 });
  });
});

describe('lifecycle', () => {
  it('creates a VM that goes Provisioning → Running, then stops, starts, resets, renames, upgrades and deletes it', async () => {
    const res = await createVm('web-1');
    expect(res.status).toBe(200);
    const id = res.data.ids[0]!;
    const first = await admin.call(routes.vms.details, { params: { id } });
    // Starting: the machine is made and powered on, its guest boots (docs/virtual-machines.md, "Starting").
    expect(['Provisioning', 'Starting', 'Running']).toContain(first.data.status);
    const running = await waitForStatus(id, 'Running');
    expect(running.consoleAvailable).toBe(true);
    expect(running.virtualMachine).toMatchObject({
      name: 'web-1',
      configuration: 'Micro',
      cpu: 2,
      ram: 4,
      disk: 80,
      country: 'United States',
      region: 'US East',
      image: 'Debian 12',
    });
    expect(running.virtualMachine.network.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const sampled = await waitForUsage(id);
    expect(sampled.usage.cpuUsage).toBeGreaterThan(0);
    expect(sampled.usage.ramUsage).toBeGreaterThan(0);

    const stop = await admin.call(routes.vms.stop, { params: { id } });
    expect(stop.status).toBe(200);
    expect(stop.message).toBe(TEXT.vmStopped);
    // One operation at a time.
    const busy = await admin.call(routes.vms.stop, { params: { id } });
    expect(busy.status).toBe(409);
    const stopped = await waitForStatus(id, 'Stopped');
    expect(stopped.consoleAvailable).toBe(false);
    expect(stopped.usage).toEqual({ cpuUsage: 0, ramUsage: 0 });
    expect((await admin.call(routes.vms.reset, { params: { id } })).status).toBe(409);
    expect((await admin.call(routes.vms.start, { params: { id } })).status).toBe(200);
    await waitForStatus(id, 'Running');
    expect((await admin.call(routes.vms.reset, { params: { id } })).status).toBe(200);
    await waitForStatus(id, 'Running');

    expect((await admin.call(routes.vms.edit, { params: { id }, body: { name: 'web-1' } })).status).toBe(400);
    expect((await admin.call(routes.vms.edit, { params: { id }, body: { name: '  ' } })).status).toBe(400);
    expect((await admin.call(routes.vms.edit, { params: { id }, body: { name: 'web-main' } })).status).toBe(200);

    const configs = (await admin.call(routes.vms.listConfigurations)).data;
    const down = await admin.call(routes.vms.changeConfiguration, {
      body: { id, configurationId: configs.find((c) => c.key === 'micro')!.id },
    });
    expect(down.status).toBe(400);
    const up = await admin.call(routes.vms.changeConfiguration, {
      body: { id, configurationId: configs.find((c) => c.key === 'small')!.id },
    });
    expect(up.status).toBe(200);
    expect((await admin.call(routes.vms.details, { params: { id } })).data.status).toBe('Resizing');
    const resized = await waitForStatus(id, 'Running');
    expect(resized.virtualMachine).toMatchObject({ name: 'web-main', configuration: 'Small', cpu: 6 });

    const actions = (
      await t.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.targetId, String(id)))
    ).map((a) => a.action);
    expect(actions).toEqual(
      expect.arrayContaining(['vm.create', 'vm.stop', 'vm.start', 'vm.reset', 'vm.rename', 'vm.resize']),
    );

    expect((await admin.call(routes.vms.delete, { params: { id } })).status).toBe(200);
    const deadline = Date.now() + 5000;
    while ((await admin.call(routes.vms.details, { params: { id } })).status !== 404 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    expect((await admin.call(routes.vms.details, { params: { id } })).status).toBe(404);
    expect((await admin.call(routes.vms.list, { query: { search: 'web-main' } })).data.data).toEqual([]);
  });

  it('hands out a password, an OpenSSH private key, access details and a single-use console URL', async () => {
    const id = (await createVm('creds-1')).data.ids[0]!;
    await waitForStatus(id, 'Running');
    const pw = await admin.call(routes.vms.getPassword, { params: { id } });
    expect(pw.data.sshPassword.length).toBeGreaterThanOrEqual(16);
    const [row] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id));
    expect(row!.sshPassword).not.toContain(pw.data.sshPassword);
    const key = await admin.call(routes.vms.getAccessKey, { params: { id } });
    expect(key.data.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(row!.privateKey).not.toContain('BEGIN');
    const access = await admin.call(routes.vms.getAccess, { params: { id } });
    expect(access.data).toMatchObject({ username: 'root', port: 22 });
    expect(access.data.publicKey).toMatch(/^ssh-ed25519 /);
    // The private key is an Ed25519 key OpenSSH reads (ssh-keygen -y, as ssh -i does), matching the public key.
    const keyDir = mkdtempSync(path.join(os.tmpdir(), 'vm-key-'));
    try {
      writeFileSync(path.join(keyDir, 'id'), key.data.privateKey, { mode: 0o600 });
      const derived = execFileSync('ssh-keygen', ['-y', '-f', path.join(keyDir, 'id')], { encoding: 'utf8' }).trim();
      expect(derived).toMatch(/^ssh-ed25519 /);
      expect(access.data.publicKey.startsWith(derived)).toBe(true);
    } finally {
      rmSync(keyDir, { recursive: true, force: true });
    }

    const consoleRes = await admin.call(routes.vms.getConsole, { params: { id } });
    const url = consoleRes.data.consoleUrl;
    expect(url).toMatch(/\/virtualMachines\/console\/\d+\?token=/);
    // A simulated machine has no display: the answer says so, and the portal offers only its serial console.
    expect(consoleRes.data.consoles).toEqual(['serial']);
    const page = await admin.raw('GET', url);
    expect(page.status).toBe(200);
    const html = (
      await t.portal.app.inject({
        url,
        headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      })
    ).body;
    expect(html).toContain('This console link has expired');
    const fresh = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl;
    const body = (
      await t.portal.app.inject({
        url: fresh,
        headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      })
    ).body;
    expect(body).toContain('creds-1 login:');
    // Another session cannot use it.
    const other = await signIn(t);
    const stolen = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl;
    expect(
      (
        await t.portal.app.inject({
          url: stolen,
          headers: { cookie: [...other.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        })
      ).statusCode,
    ).toBe(403);
  });

  it('puts a VM in Error with the reason when the provider fails for good, and retries transient failures', async () => {
    const usageBefore = (await admin.call(routes.vms.dashboard)).data.currentMonth.micro;
    const failed = (await createVm('will-fail-create')).data.ids[0]!;
    const err = await waitForStatus(failed, 'Error');
    expect(err.errorReason).toMatch(/simulated permanent failure/);
    // A machine that was never made is not usage.
    expect((await admin.call(routes.vms.dashboard)).data.currentMonth.micro).toBe(usageBefore);
    const [op] = await t.db.select().from(operations).where(eq(operations.vmId, failed));
    expect(op).toMatchObject({ status: 'failed', attempts: 1 });

    const flaky = (await createVm('flaky-one')).data.ids[0]!;
    await waitForStatus(flaky, 'Running', admin, 15_000);
    const [flakyOp] = await t.db.select().from(operations).where(eq(operations.vmId, flaky));
    expect(flakyOp).toMatchObject({ status: 'succeeded', attempts: 3 });
  });

  it('creates several copies, lists with search, sort and paging, and counts them on the dashboard', async () => {
    const res = await createVm('batch', { numberOfInstances: 3 });
    // The refusal's own words if the create is refused (it was once on a loaded CI machine, 128 ms in).
    expect(res.status, res.message).toBe(200);
    expect(res.data.ids).toHaveLength(3);
    const list = await admin.call(routes.vms.list, {
      query: { search: 'batch', sortColumn: 'name', sortDescending: 'true', rowsPerPage: 2 },
    });
    expect(list.data.totalPages).toBe(2);
    expect(list.data.data.map((v) => v.name)).toEqual(['batch-3', 'batch-2']);
    const second = await admin.call(routes.vms.list, {
      query: { search: 'BATCH', sortColumn: 'name', sortDescending: 'true', rowsPerPage: 2, page: 2 },
    });
    expect(second.data).toMatchObject({ totalPages: 2, data: [{ name: 'batch-1' }] });
    // Past the last page: no rows, and the page count still comes back.
    expect((await admin.call(routes.vms.list, { query: { search: 'batch', rowsPerPage: 2, page: 5 } })).data).toEqual({
      data: [],
      totalPages: 2,
    });
    // Wildcards are matched literally; a one-letter search still finds the VMs.
    expect((await admin.call(routes.vms.list, { query: { search: 'b%h' } })).data).toEqual({ data: [], totalPages: 0 });
    expect(
      (await admin.call(routes.vms.list, { query: { search: 'h-2', rowsPerPage: 100 } })).data.data.map((v) => v.name),
    ).toContain('batch-2');
    expect(
      (await admin.call(routes.vms.list, { query: { search: 'b', rowsPerPage: 100 } })).data.data.length,
    ).toBeGreaterThanOrEqual(3);
    const bySize = await admin.call(routes.vms.list, { query: { sortColumn: 'configuration', rowsPerPage: 100 } });
    expect(bySize.status).toBe(200);
    const dash = await admin.call(routes.vms.dashboard);
    expect(dash.data.currentMonth.micro).toBeGreaterThanOrEqual(3);
    expect(dash.data.ytd.micro).toBeGreaterThanOrEqual(dash.data.currentMonth.micro);
    expect(Object.keys(dash.data.previousMonth)).toEqual([
      'micro',
      'extraSmall',
      'small',
      'medium',
      'large',
      'extraLarge',
    ]);
  });

  it('rejects bad input with 400', async () => {
    const { east, configs } = await chain();
    const base = {
      regionId: east.id,
      image: 'Debian 12',
      configurationId: configs[0]!.id,
      providerId: 1,
      name: 'ok',
      numberOfInstances: 1,
    };
    for (const body of [
      { ...base, numberOfInstances: 11 },
      { ...base, numberOfInstances: 0 },
      { ...base, name: '' },
      { ...base, image: 'Nope OS' },
      { ...base, extra: true },
      { ...base, regionId: 'x' },
    ]) {
      const r = await admin.call(routes.vms.create, { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await admin.call(routes.vms.create, { body: { ...base, numberOfInstances: 11 } })).message).toContain(
      'Number of copies must be between 1 to 10',
    );
    expect((await admin.call(routes.vms.list, { query: { sortColumn: 'status' } })).status).toBe(400);
    expect((await admin.raw('GET', `${t.config.API_BASE_PATH}/virtualMachines/details/abc`)).status).toBe(400);
    expect((await admin.call(routes.vms.details, { params: { id: 999999 } })).status).toBe(404);
  });
});

describe('access', () => {
  it('lets a Viewer see but not operate, hides VMs from non-members and other companies', async () => {
    const viewer = await createUser(t, 1, 'vm-viewer@example.com');
    const outsider = await createUser(t, 1, 'vm-outsider@example.com');
    const team = await createTeam(t, 1, 'VM team', [
      { userId: 1, roleId: 1 },
      { userId: viewer.id, roleId: 3 },
    ]);
    const id = (await createVm('team-vm', { teamId: team.id })).data.ids[0]!;
    await waitForStatus(id, 'Running');
    const v = await signIn(t, viewer.email, PASSWORD);
    expect((await v.call(routes.vms.details, { params: { id } })).status).toBe(200);
    expect((await v.call(routes.vms.list, { query: { teamId: team.id } })).data.data.map((x) => x.id)).toEqual([id]);
    expect((await v.call(routes.vms.stop, { params: { id } })).status).toBe(403);
    expect((await v.call(routes.vms.getPassword, { params: { id } })).status).toBe(403);
    expect((await createVm('viewer-vm', { teamId: team.id }, v)).status).toBe(403);
    // Nor outside any team: a Viewer everywhere may not create billable machines of their own.
    expect((await createVm('viewer-own-vm', {}, v)).status).toBe(403);
    const o = await signIn(t, outsider.email, PASSWORD);
    expect((await o.call(routes.vms.details, { params: { id } })).status).toBe(404);
    expect((await o.call(routes.vms.list, { query: {} })).data.data).toEqual([]);
    expect((await createVm('outsider-vm', {}, o)).status).toBe(403);
    const operator = await createUser(t, 1, 'vm-operator@example.com');
    await createTeam(t, 1, 'Operators', [{ userId: operator.id, roleId: 2 }]);
    const op = await signIn(t, operator.email, PASSWORD);
    const own = (await createVm('operator-own-vm', {}, op)).data.ids[0]!;
    expect((await op.call(routes.vms.details, { params: { id: own } })).status).toBe(200);
    expect((await v.call(routes.vms.details, { params: { id: own } })).status).toBe(404);
    const other = await createOtherCompany(t, 'vm-boss@other.example');
    const x = await signIn(t, other.admin.email, PASSWORD);
    expect((await x.call(routes.vms.details, { params: { id } })).status).toBe(404);
    expect((await x.call(routes.vms.delete, { params: { id } })).status).toBe(404);
    expect((await x.call(routes.vms.dashboard)).data.ytd.micro).toBe(0);
    expect((await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id)))[0]!.deletedAt).toBeNull();
  });
});

describe('force stop', () => {
  it('powers a Running VM off, refuses it to a Viewer, from the wrong status and across companies', async () => {
    const id = (await createVm('power-off-1')).data.ids[0]!;
    await waitForStatus(id, 'Running');

    const viewer = await createUser(t, 1, 'force-stop-viewer@example.com');
    const team = await createTeam(t, 1, 'Force stop team', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
    const teamVm = (await createVm('power-off-team', { teamId: team.id })).data.ids[0]!;
    await waitForStatus(teamVm, 'Running');
    const v = await signIn(t, viewer.email, PASSWORD);
    expect((await v.call(routes.vms.forceStop, { params: { id: teamVm } })).status).toBe(403);
    expect((await admin.call(routes.vms.details, { params: { id: teamVm } })).data.status).toBe('Running');

    const other = await createOtherCompany(t, 'force-stop-boss@other.example');
    const x = await signIn(t, other.admin.email, PASSWORD);
    expect((await x.call(routes.vms.forceStop, { params: { id } })).status).toBe(404);

    const off = await admin.call(routes.vms.forceStop, { params: { id } });
    expect(off.status).toBe(200);
    expect(off.message).toBe(VM_ACTIONS.forceStop.accepted);
    await waitForStatus(id, 'Stopped');
    const actions = (
      await t.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.targetId, String(id)))
    ).map((a) => a.action);
    expect(actions).toContain('vm.forceStop');

    const again = await admin.call(routes.vms.forceStop, { params: { id } });
    expect(again.status).toBe(409);
    expect(again.message).toBe('The VM cannot be powered off while it is Stopped');
  });
});

describe('teams and their VMs', () => {
  it('refuses to delete a team that owns VMs, and deletes it once they are gone (keeping their usage)', async () => {
    const team = await createTeam(t, 1, 'Short-lived', [{ userId: 1, roleId: 1 }]);
    const id = (await createVm('short-lived-vm', { teamId: team.id })).data.ids[0]!;
    await waitForStatus(id, 'Running');
    const refused = await admin.call(routes.teams.delete, { body: { teamId: team.id } });
    expect(refused.status).toBe(409);
    expect(refused.message).toBe('This team still has 1 virtual machine. Delete them first.');
    const ytdBefore = (await admin.call(routes.vms.dashboard)).data.ytd.micro;
    expect((await admin.call(routes.vms.delete, { params: { id } })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    while ((await admin.call(routes.vms.details, { params: { id } })).status !== 404) {
      if (Date.now() > deadline) throw new Error('the VM was not deleted');
      await new Promise((r) => setTimeout(r, 25));
    }
    const deleted = await admin.call(routes.teams.delete, { body: { teamId: team.id } });
    expect(deleted.status).toBe(200);
    expect((await admin.call(routes.teams.details, { params: { id: team.id } })).status).toBe(404);
    // The deleted VM still counts for the months it existed.
    expect((await admin.call(routes.vms.dashboard)).data.ytd.micro).toBe(ytdBefore);
  });
});
