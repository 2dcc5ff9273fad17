/**
 * The console websockets against a real guest (one, booted under TCG on a libvirtd this test starts): the VNC
 * socket completes the RFB handshake with QEMU, the serial socket shows the login prompt and takes the portal's
 * password, and the guest's display listens on the host's loopback only.
 *
 * Then the same guest's host is registered again as a remote `qemu+ssh://` host: an sshd of the test's own on
 * 127.0.0.2 in front of the same libvirtd. VNC then goes through the API's `ssh -W` tunnel, serial through libvirt's
 * ssh transport, and neither leaves an ssh process behind when the browser closes the socket.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { routes } from '@portal/contract/routes';
import { eq } from 'drizzle-orm';
import { configurations, providerOfferings, providers, regions, virtualMachines } from '../../db/schema.ts';
import { createHostsService } from '../../engine/hosts/hosts.service.ts';
import { createProviderRegistry } from '../registry.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../../../test/libvirt-daemon.ts';
import { startTestSshd, type TestSshd } from '../../../test/test-sshd.ts';
import { REF_RE } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-console';
const NETWORK = 'irontest-console';

let daemon: LibvirtDaemon;
let t: TestApp;
let admin: TestClient;
let origin = '';
let vmId = 0;
/** The guest's libvirt name. */
let ref = '';
let password = '';
let sshd: TestSshd | undefined;
/** What registers the guest's host (again, with another URI, for the qemu+ssh tests). */
let registerHost: (uri: string) => ReturnType<ReturnType<typeof createHostsService>['add']>;

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
    // The busybox fixture: these tests are about the console channels.
    guestImage: 'test-fixture',
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
  const hostsService = createHostsService({ db: t.db, registry: createProviderRegistry() });
  registerHost = (uri) =>
    hostsService.add({
      name: 'console-host',
      uri,
      provider: provider!.id,
      region: region!.id,
      cpus: 8,
      ramGb: 32,
      diskGb: 400,
    });
  await registerHost(daemon.socketUri);
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
  ref = placed!.providerRef!;
  password = (await admin.call(routes.vms.getPassword, { params: { id: vmId } })).data.sshPassword;
}, 900_000);

afterAll(async () => {
  await t?.close();
  // After the API: its `virsh event` watch on the qemu+ssh host ends with it.
  await sshd?.stop();
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

async function rfbHandshake({ ws, received }: { ws: WebSocket; received: Buffer[] }) {
  const greeting = await until(received, /^RFB 003\.00\d\n/, 10_000);
  expect(greeting.slice(0, 12)).toMatch(/^RFB 003\.00[38]\n$/);
  // Go on as noVNC does: same version back, then the server offers its security types (VNC auth "none" is 1).
  ws.send(Buffer.from(greeting.slice(0, 12), 'latin1'));
  // The server's next message: its security types (3.8), e.g. 01 01 for one type, "None".
  expect((await until(received, /[\s\S]/, 10_000)).length).toBeGreaterThan(0);
}

it('completes the RFB handshake with the real QEMU through the API', { timeout: 60_000 }, async () => {
  const vnc = await open(await socketUrl('vnc'));
  await rfbHandshake(vnc);
  vnc.ws.close();
});

it('listens for VNC on the host loopback only; the browser reaches it only through the API', async () => {
  const pid = (await readFile(`/run/libvirt/qemu/${ref}.pid`, 'utf8')).trim();
  const { stdout } = await execFileP('ss', ['-Hltnp']);
  const qemuListens = stdout
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => l.trim().split(/\s+/)[3]);
  expect(qemuListens.length).toBeGreaterThan(0);
  for (const address of qemuListens) expect(address).toMatch(/^(127\.0\.0\.1|\[::1\]):\d+$/);
});

async function serialLogin({ ws, received }: { ws: WebSocket; received: Buffer[] }) {
  ws.send(Buffer.from('\r'));
  await until(received, /login: $/m);
  ws.send(Buffer.from('root\r'));
  await until(received, /Password: ?$/m);
  ws.send(Buffer.from(`${password}\r`));
  await until(received, /~ # /);
  ws.send(Buffer.from('echo serial-$((6*7))\r'));
  expect(await until(received, /serial-42\r?\n/)).toContain('serial-42');
  ws.send(Buffer.from('exit\r'));
}

it('shows the serial login prompt and takes the VM password', { timeout: 120_000 }, async () => {
  const serial = await open(await socketUrl('serial'));
  await serialLogin(serial);
  serial.ws.close();
});

describe('on a qemu+ssh host', () => {
  interface Proc {
    pid: number;
    ppid: number;
    argv: string[];
  }
  /** This machine's processes with their command lines. */
  async function processes(): Promise<Proc[]> {
    const found: Proc[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const [raw, stat] = await Promise.all([
        readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => ''),
        readFile(`/proc/${entry}/stat`, 'utf8').catch(() => ''),
      ]);
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (raw) found.push({ pid: Number(entry), ppid, argv: raw.split('\0').filter(Boolean) });
    }
    return found;
  }
  /** ssh clients of the test's sshd: libvirt's transport (the driver's virsh calls, the host monitor's among them,
   * and the serial console's) and the API's VNC tunnels. */
  const sshClients = async () =>
    (await processes()).filter(
      ({ argv }) =>
        /(^|\/)ssh$/.test(argv[0] ?? '') &&
        argv.includes(sshd!.address) &&
        argv[argv.indexOf('-p') + 1] === String(sshd!.port),
    );
  const tunnels = async () => (await sshClients()).filter(({ argv }) => argv.includes('-W'));
  /** The `virsh console` processes of the test's guest. */
  const virshConsoles = async () =>
    (await processes()).filter(
      ({ argv }) => /(^|\/)virsh$/.test(argv[0] ?? '') && argv.includes('console') && argv.includes(ref),
    );
  /** Which of these processes still run (a zombie has no command line, so it counts as gone). */
  const alive = async (procs: Proc[]) => {
    const now = new Set((await processes()).map((p) => p.pid));
    return procs.filter((p) => now.has(p.pid)).map((p) => p.argv.join(' '));
  };
  async function eventually(check: () => Promise<void>, ms = 10_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        return await check();
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  beforeAll(async () => {
    sshd = await startTestSshd('127.0.0.2');
    // libvirt's ssh transport as an operator would write it for a host whose libvirtd listens on another socket
    // than the default: the key, no host key check (the test's sshd is new each run), nc to that socket.
    const query = [
      `keyfile=${sshd.keyfile}`,
      'no_verify=1',
      `command=${sshd.command}`,
      'proxy=netcat',
      `socket=${daemon.socketPath}`,
    ].join('&');
    const registered = await registerHost(`qemu+ssh://root@${sshd.address}:${sshd.port}/system?${query}`);
    // It answered over ssh (its capacity was read through the new URI).
    expect(registered.host.lastError).toBeNull();
  }, 60_000);

  it(
    'relays VNC through an ssh tunnel the API ends with the console; the host serves no VNC on its address',
    { timeout: 60_000 },
    async () => {
      const vnc = await open(await socketUrl('vnc'));
      await rfbHandshake(vnc);
      // The bytes came through `ssh -W <QEMU's loopback address>:<port> -- 127.0.0.2`.
      const [tunnel, ...more] = await tunnels();
      expect(more).toEqual([]);
      const forward = tunnel!.argv[tunnel!.argv.indexOf('-W') + 1]!;
      expect(forward).toMatch(/^127\.0\.0\.1:59\d\d$/);
      expect(tunnel!.argv.slice(-2)).toEqual(['--', sshd!.address]);
      // The host's own address has no VNC listener: only its loopback, reached from the API through ssh.
      const vncPort = Number(forward.split(':')[1]);
      await expect(
        new Promise((resolve, reject) =>
          net.connect({ host: sshd!.address, port: vncPort }).once('connect', resolve).once('error', reject),
        ),
      ).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      vnc.ws.close();
      await eventually(async () => {
        expect(await alive([tunnel!])).toEqual([]);
        expect(await tunnels()).toEqual([]);
      });
    },
  );

  it(
    'shows the serial login prompt over the ssh transport and leaves no ssh behind',
    { timeout: 120_000 },
    async () => {
      const serial = await open(await socketUrl('serial'));
      await serialLogin(serial);
      // The one virsh console reached the guest through the test's sshd, not the local socket.
      const [virshConsole, ...more] = await virshConsoles();
      expect(more).toEqual([]);
      expect(virshConsole!.argv[virshConsole!.argv.indexOf('-c') + 1]).toMatch(
        new RegExp(`^qemu\\+ssh://root@${sshd!.address.replace(/\./g, '\\.')}:${sshd!.port}/`),
      );
      // Its own ssh to the host (the host monitor's virsh calls have theirs, which come and go on their own).
      const itsSsh = (await sshClients()).filter((p) => p.ppid === virshConsole!.pid);
      expect(itsSsh).toHaveLength(1);
      serial.ws.close();
      await eventually(async () => {
        expect(await alive([virshConsole!, ...itsSsh])).toEqual([]);
        expect(await virshConsoles()).toEqual([]);
      });
    },
  );
});
