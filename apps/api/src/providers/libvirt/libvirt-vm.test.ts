/**
 * A VM on a libvirt provider through the portal itself: the create call, the durable runner booting a real
 * guest on a libvirtd this test starts, the private address on the VM page, an SSH login with the password
 * the portal hands out, the console page, a stop, and the delete that leaves no domain behind.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { configurations, providerOfferings, providers, regions } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../../../test/libvirt-daemon.ts';
import { REF_RE } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-portal';
const NETWORK = 'irontest-portal';

let daemon: LibvirtDaemon;
let t: TestApp;
let admin: TestClient;

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  t = await createTestApp({ env: { VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '100000' } });
  t.portal.startWorkers();
  admin = await signIn(t);
}, 900_000);

afterAll(async () => {
  await t?.close();
  await daemon?.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
  await rm(path.join(LIBVIRT_TEST_DIR, POOL), { recursive: true, force: true });
}, 120_000);

async function waitFor(id: number, status: string, ms = 180_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data?.status === status) return res.data;
    if (res.data?.status === 'Error') throw new Error(`VM ${id} went to Error: ${res.data.errorReason}`);
    if (Date.now() > deadline) throw new Error(`VM ${id} is ${res.data?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function sshWithPassword(user: string, ip: string, password: string, command: string): Promise<string> {
  const opts = ['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'ConnectTimeout=3', '-o', 'LogLevel=ERROR', '-o', 'PubkeyAuthentication=no'];
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      return (await execFileP('sshpass', ['-e', 'ssh', ...opts, `${user}@${ip}`, command], { timeout: 20_000, env: { ...process.env, SSHPASS: password } })).stdout.trim();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

it('creates a VM that boots a real guest, shows its address, lets the portal password in, stops and is deleted', { timeout: 400_000 }, async () => {
  const settings = {
    uri: daemon.socketUri,
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
    network: { name: NETWORK, bridge: 'irontestp0', cidr: '10.231.78.0/24' },
    maxCpus: 1,
    maxRamMb: 256,
    maxDiskGb: 2,
    stopTimeoutMs: 30_000,
  };
  const [provider] = await t.db.insert(providers).values({ name: 'Local libvirt', driver: 'libvirt', settings }).returning();
  const [region] = (await t.db.select().from(regions)).filter((r) => r.name === 'US East');
  const [micro] = (await t.db.select().from(configurations)).filter((c) => c.key === 'micro');
  await t.db.insert(providerOfferings).values({ providerId: provider!.id, regionId: region!.id, configurationId: micro!.id });

  const created = await admin.call(routes.vms.create, { body: { regionId: region!.id, image: 'Debian 12', configurationId: micro!.id, providerId: provider!.id, name: 'real-guest', numberOfInstances: 1 } });
  expect(created.status).toBe(200);
  const id = created.data.ids[0] as number;
  const running = await waitFor(id, 'Running');
  const ip = running.virtualMachine.network.privateIp;
  expect(ip).toMatch(/^10\.231\.78\.\d+$/);

  const access = (await admin.call(routes.vms.getAccess, { params: { id } })).data;
  const password = (await admin.call(routes.vms.getPassword, { params: { id } })).data.sshPassword;
  expect(await sshWithPassword(access.username, ip!, password, 'hostname; nproc')).toBe('real-guest\n1');

  // The console page shows the guest's own serial output.
  const consoleUrl = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
  const page = await admin.raw('GET', consoleUrl);
  expect(page.status).toBe(200);
  expect(page.message).toContain('real-guest login:');

  expect((await admin.call(routes.vms.stop, { params: { id } })).status).toBe(200);
  await waitFor(id, 'Stopped', 90_000);

  expect((await admin.call(routes.vms.delete, { params: { id } })).status).toBe(200);
  const deadline = Date.now() + 60_000;
  while ((await admin.call(routes.vms.details, { params: { id } })).status !== 404) {
    if (Date.now() > deadline) throw new Error('the VM was not deleted');
    await new Promise((r) => setTimeout(r, 200));
  }
  const left = (await daemon.virsh(daemon.socketUri, ['list', '--all', '--name'])).split('\n').filter((n) => REF_RE.test(n.trim()));
  expect(left).toEqual([]);
});
