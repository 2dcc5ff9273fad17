/**
 * The console websockets against a real guest (one, booted under TCG on a libvirtd this test starts): the VNC
 * socket completes the RFB handshake with QEMU, the serial socket shows the login prompt and takes the portal's
 * password, and the guest's display listens on the host's loopback only.
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { routes } from '@portal/contract/routes';
import { eq } from 'drizzle-orm';
import { configurations, providerOfferings, providers, regions, virtualMachines } from '../../db/schema.ts';
import { createHostsService } from '../../modules/hosts/hosts.service.ts';
import { createProviderRegistry } from '../registry.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../../../test/libvirt-daemon.ts';
import { REF_RE } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-console';
const NETWORK = 'irontest-console';

let daemon: LibvirtDaemon;
let t: TestApp;
let admin: TestClient;
let origin = '';
let vmId = 0;
let password = '';

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  t = await createTestApp({ env: { VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '100000' } });
  t.portal.startWorkers();
  await t.portal.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.portal.app.server.address();
  origin = `ws://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  admin = await signIn(t);

  // The provider's default URI leads nowhere: the guest runs on a registered host, and the console must find it
  // there (it once asked the provider's default and so could not open a console on any other host).
  const settings = {
    uri: 'qemu+unix:///system?socket=/nonexistent/libvirt-sock',
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
    network: { name: NETWORK, bridge: 'irontestc0', cidr: '10.231.79.0/24' },
    maxCpus: 1,
    maxRamMb: 256,
    maxDiskGb: 2,
  };
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Console libvirt', driver: 'libvirt', settings })
    .returning();
  const [region] = (await t.db.select().from(regions)).filter((r) => r.name === 'US East');
  const [micro] = (await t.db.select().from(configurations)).filter((c) => c.key === 'micro');
  await t.db
    .insert(providerOfferings)
    .values({ providerId: provider!.id, regionId: region!.id, configurationId: micro!.id });
  await createHostsService({ db: t.db, registry: createProviderRegistry() }).add({
    name: 'console-host',
    uri: daemon.socketUri,
    provider: provider!.id,
    region: region!.id,
    cpus: 8,
    ramGb: 32,
    diskGb: 400,
  });
  const created = await admin.call(routes.vms.create, {
    body: {
      regionId: region!.id,
      image: 'Debian 12',
      configurationId: micro!.id,
      providerId: provider!.id,
      name: 'console-guest',
      numberOfInstances: 1,
    },
  });
  vmId = created.data.ids[0] as number;
  const deadline = Date.now() + 240_000;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id: vmId } });
    if (res.data?.status === 'Running') break;
    if (res.data?.status === 'Error' || Date.now() > deadline)
      throw new Error(`VM ${vmId}: ${res.data?.status} ${res.data?.errorReason ?? ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const [placed] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId));
  expect(placed!.hostId).not.toBeNull();
  password = (await admin.call(routes.vms.getPassword, { params: { id: vmId } })).data.sshPassword;
}, 900_000);

afterAll(async () => {
  await t?.close();
  await daemon?.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
  await rm(path.join(LIBVIRT_TEST_DIR, POOL), { recursive: true, force: true });
}, 120_000);

async function socketUrl(kind: 'vnc' | 'serial'): Promise<string> {
  const link = (await admin.call(routes.vms.getConsole, { params: { id: vmId } })).data.consoleUrl;
  const u = new URL(link, 'http://x');
  return `${origin}${u.pathname}/${kind}${u.search}`;
}

async function open(url: string): Promise<{ ws: WebSocket; received: Buffer[] }> {
  const ws = new WebSocket(url, { headers: { cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
  const received: Buffer[] = [];
  ws.on('message', (d: Buffer) => received.push(d));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_q, res) => reject(new Error(`refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return { ws, received };
}

async function until(received: Buffer[], re: RegExp, ms = 60_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = Buffer.concat(received).toString('latin1');
    if (re.test(text)) {
      received.length = 0;
      return text;
    }
    if (Date.now() > deadline) throw new Error(`no ${re} in ${JSON.stringify(text.slice(-500))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('completes the RFB handshake with the real QEMU through the API', { timeout: 60_000 }, async () => {
  const { ws, received } = await open(await socketUrl('vnc'));
  const greeting = await until(received, /^RFB 003\.00\d\n/, 10_000);
  expect(greeting.slice(0, 12)).toMatch(/^RFB 003\.00[38]\n$/);
  // Go on as noVNC does: same version back, then the server offers its security types (VNC auth "none" is 1).
  ws.send(Buffer.from(greeting.slice(0, 12), 'latin1'));
  // The server's next message: its security types (3.8), e.g. 01 01 for one type, "None".
  expect((await until(received, /[\s\S]/, 10_000)).length).toBeGreaterThan(0);
  ws.close();
});

it('listens for VNC on the host loopback only; the browser reaches it only through the API', async () => {
  const ref = (await daemon.virsh(daemon.socketUri, ['list', '--name']))
    .split('\n')
    .map((n) => n.trim())
    .find((n) => REF_RE.test(n))!;
  const pid = (await readFile(`/run/libvirt/qemu/${ref}.pid`, 'utf8')).trim();
  const { stdout } = await execFileP('ss', ['-Hltnp']);
  const qemuListens = stdout
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => l.trim().split(/\s+/)[3]);
  expect(qemuListens.length).toBeGreaterThan(0);
  for (const address of qemuListens) expect(address).toMatch(/^(127\.0\.0\.1|\[::1\]):\d+$/);
});

it('shows the serial login prompt and takes the VM password', { timeout: 120_000 }, async () => {
  const { ws, received } = await open(await socketUrl('serial'));
  ws.send(Buffer.from('\r'));
  await until(received, /login: $/m);
  ws.send(Buffer.from('root\r'));
  await until(received, /Password: ?$/m);
  ws.send(Buffer.from(`${password}\r`));
  await until(received, /~ # /);
  ws.send(Buffer.from('echo serial-$((6*7))\r'));
  expect(await until(received, /serial-42\r?\n/)).toContain('serial-42');
  ws.send(Buffer.from('exit\r'));
  ws.close();
});
