/**
 * Real VMs on libvirt through the portal itself, on a libvirtd this test starts, registered as two hosts:
 * its unix socket ("host-a") and its TCP listener behind a proxy this test can cut ("host-b"). Two guests boot
 * (one per host, spread by placement); the first is used for everything a user does: SSH with the key
 * getAccessKey hands out and with getPassword's password, the console page, an upgrade the guest sees, a
 * poweroff from inside that the live stream shows, a start and a reset. The API restarts (the VMs stay Running
 * and the new instance controls them). host-b is then cut: it is reported,
 * its VM keeps its status with a reason, an action on it waits and completes when it answers again, and
 * creates are refused (host-a draining) or go to host-a (a third guest, booting while host-b comes back).
 * Deletes leave no domain, volume, seed, DHCP entry or address.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import {
  configurations,
  hosts,
  operations,
  providerOfferings,
  providers,
  regions,
  virtualMachines,
} from '../../db/schema.ts';
import { createHostsService } from '../../engine/hosts/hosts.service.ts';
import { createOperatorTokens } from '../../modules/operator/operator-tokens.ts';
import { buildApp, type App } from '../../app.ts';
import { ADMIN, TestClient, createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../../../test/libvirt-daemon.ts';
import { createProviderRegistry } from '../registry.ts';
import { REF_RE } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-portal';
const NETWORK = 'irontest-portal';
const started = Date.now();

let daemon: LibvirtDaemon;
let t: TestApp;
let admin: TestClient;
let keyDir: string;
let base: string;
let operatorToken: string;
/** The API after its restart (the first instance is closed mid-test). */
let restarted: App | null = null;

/** A TCP proxy to libvirtd's listener: closing it makes host-b unreachable, as a network cut would. */
function tcpProxy(targetPort: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  return {
    get port() {
      return port;
    },
    async open() {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, '127.0.0.1');
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const end = () => (client.destroy(), upstream.destroy(), sockets.delete(client), sockets.delete(upstream));
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => server!.listen(port, '127.0.0.1', () => r()));
      port = (server.address() as net.AddressInfo).port;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      server = null;
    },
  };
}
let proxy: ReturnType<typeof tcpProxy>;

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  proxy = tcpProxy(Number(/:(\d+)\//.exec(daemon.tcpUri)![1]));
  await proxy.open();
  t = await createTestApp({
    env: { VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '100000', VM_HOST_CHECK_INTERVAL_MS: '500' },
  });
  await t.portal.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.portal.app.server.address() as { port: number }).port}${t.config.API_BASE_PATH}`;
  admin = await signIn(t);
  operatorToken = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('tests')
  ).token;
  keyDir = await mkdtemp(path.join(os.tmpdir(), 'portal-vm-key-'));
}, 900_000);

afterAll(async () => {
  await restarted?.close();
  await t?.close();
  await proxy?.close();
  await daemon?.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
  await rm(path.join(LIBVIRT_TEST_DIR, POOL), { recursive: true, force: true });
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
  console.log(`libvirt-vm.test.ts wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 120_000);

async function details(id: number) {
  const res = await admin.call(routes.vms.details, { params: { id } });
  return res.data;
}

async function waitFor(id: number, status: string, ms = 240_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const d = await details(id);
    if (d?.status === status) return d;
    if (d?.status === 'Error') throw new Error(`VM ${id} went to Error: ${d.errorReason}`);
    if (Date.now() > deadline) {
      // What the engine did meanwhile (a start that failed for good leaves the machine's observed state).
      const ops = (await t.db.select().from(operations).where(eq(operations.vmId, id)).orderBy(operations.id))
        .slice(-3)
        .map((o) => `${o.kind} ${o.status} after ${o.attempts} tries${o.lastError ? `: ${o.lastError}` : ''}`);
      throw new Error(`VM ${id} is ${d?.status}, not ${status}; last operations: ${ops.join('; ')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sshOpts = [
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'ConnectTimeout=3',
  '-o',
  'LogLevel=ERROR',
];

async function ssh(
  how: { key: string } | { password: string },
  user: string,
  ip: string,
  command: string,
  retryMs = 120_000,
): Promise<string> {
  const deadline = Date.now() + retryMs;
  for (;;) {
    try {
      const out =
        'key' in how
          ? await execFileP(
              'ssh',
              [
                ...sshOpts,
                '-o',
                'BatchMode=yes',
                '-o',
                'PasswordAuthentication=no',
                '-i',
                how.key,
                `${user}@${ip}`,
                command,
              ],
              { timeout: 20_000 },
            )
          : await execFileP(
              'sshpass',
              ['-e', 'ssh', ...sshOpts, '-o', 'PubkeyAuthentication=no', `${user}@${ip}`, command],
              { timeout: 20_000, env: { ...process.env, SSHPASS: how.password } },
            );
      return out.stdout.trim();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Opens the live status stream as the admin and collects what arrives. */
async function openStream() {
  const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${base}/virtualMachines/events`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const stream = { text: '', cancel: () => reader.cancel() };
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      stream.text += decoder.decode(value);
    }
  })();
  return stream;
}

const hostOf = async (id: number) =>
  (await t.db.select({ hostId: virtualMachines.hostId }).from(virtualMachines).where(eq(virtualMachines.id, id)))[0]!
    .hostId;

it(
  'places VMs across two hosts, lets the portal key and password in, upgrades, shows a guest poweroff live, survives a host cut and deletes cleanly',
  { timeout: 900_000 },
  async () => {
    const settings = {
      pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
      network: { name: NETWORK, bridge: 'irontestp0', cidr: '10.231.78.0/24' },
      // The busybox fixture (seconds to boot): the real Debian image through the portal is libvirt-debian.test.ts.
      guestImage: 'test-fixture',
      stopTimeoutMs: 30_000,
      deleteGraceMs: 5_000,
    };
    const [provider] = await t.db
      .insert(providers)
      .values({ name: 'Local libvirt', driver: 'libvirt', settings })
      .returning();
    const [region] = (await t.db.select().from(regions)).filter((r) => r.name === 'US East');
    const configs = await t.db.select().from(configurations);
    // Exactly these sizes in the guest (issue 23 item 3); TCG allocates guest memory lazily and the disks are sparse,
    // so two busybox guests of 4 GB and an 8 GB one cost this small machine little.
    const micro = configs.find((c) => c.key === 'micro')!; // 2 CPUs, 4 GB, 80 GB
    const extraSmall = configs.find((c) => c.key === 'extraSmall')!; // 4 CPUs, 8 GB, 120 GB
    for (const c of [micro, extraSmall])
      await t.db
        .insert(providerOfferings)
        .values({ providerId: provider!.id, regionId: region!.id, configurationId: c.id });

    // Two hosts of one region: the socket, and TCP through the proxy. Capacity given (this box is small).
    const hostsService = createHostsService({ db: t.db, registry: createProviderRegistry() });
    const a = await hostsService.add({
      name: 'host-a',
      uri: daemon.socketUri,
      provider: provider!.id,
      region: region!.id,
      cpus: 8,
      ramGb: 32,
      diskGb: 400,
    });
    const b = await hostsService.add({
      name: 'host-b',
      uri: `qemu+tcp://127.0.0.1:${proxy.port}/system`,
      provider: provider!.id,
      region: region!.id,
      cpus: 8,
      ramGb: 32,
      diskGb: 400,
    });
    expect(a.changed && b.changed).toBe(true);
    expect(a.host.lastSeenAt).not.toBeNull();
    expect(
      (
        await hostsService.add({
          name: 'host-a',
          uri: daemon.socketUri,
          provider: provider!.id,
          region: region!.id,
          cpus: 8,
          ramGb: 32,
          diskGb: 400,
        })
      ).changed,
    ).toBe(false);
    t.portal.startWorkers();

    // One request, two VMs: spread over both hosts.
    const t0 = Date.now();
    const created = await admin.call(routes.vms.create, {
      body: {
        regionId: region!.id,
        image: 'Debian 12',
        configurationId: micro.id,
        providerId: provider!.id,
        name: 'real-guest',
        numberOfInstances: 2,
      },
    });
    expect(created.status).toBe(200);
    const [id1, id2] = created.data.ids as [number, number];
    expect([await hostOf(id1), await hostOf(id2)]).toEqual([a.host.id, b.host.id]);
    const vm1 = await waitFor(id1, 'Running');
    const vm2 = await waitFor(id2, 'Running');
    const ip = vm1.virtualMachine.network.privateIp!;
    expect(ip).toMatch(/^10\.231\.78\.\d+$/);
    expect(vm2.virtualMachine.network.privateIp).toMatch(/^10\.231\.78\.\d+$/);
    expect(vm2.virtualMachine.network.privateIp).not.toBe(ip);

    // The key getAccessKey hands out and getPassword's password both open the guest, as sshUsername.
    const access = (await admin.call(routes.vms.getAccess, { params: { id: id1 } })).data;
    const keyFile = path.join(keyDir, 'privateKey.pem');
    await writeFile(keyFile, (await admin.call(routes.vms.getAccessKey, { params: { id: id1 } })).data.privateKey, {
      mode: 0o600,
    });
    const password = (await admin.call(routes.vms.getPassword, { params: { id: id1 } })).data.sshPassword;
    expect(await ssh({ key: keyFile }, access.username, ip, 'hostname; nproc')).toBe('real-guest-1\n2');
    console.log(`portal create → SSH (two guests booting at once): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    expect(await ssh({ password }, access.username, ip, 'hostname')).toBe('real-guest-1');
    // Each VM has a static DHCP entry on the network, so its address is never handed to another machine.
    const netXml = await daemon.virsh(daemon.socketUri, ['net-dumpxml', NETWORK]);
    expect(netXml).toContain(`ip='${ip}'`);

    const consoleUrl = (await admin.call(routes.vms.getConsole, { params: { id: id1 } })).data.consoleUrl as string;
    const page = await admin.raw('GET', consoleUrl);
    expect(page.status).toBe(200);
    expect(page.message).toContain('real-guest-1 login:');

    // Upgrade: the runner restarts the machine and the guest sees more vCPUs and memory.
    const memBefore = Number(
      /MemTotal:\s+(\d+)/.exec(await ssh({ key: keyFile }, 'root', ip, 'cat /proc/meminfo'))![1],
    );
    expect(
      (await admin.call(routes.vms.changeConfiguration, { body: { id: id1, configurationId: extraSmall.id } })).status,
    ).toBe(200);
    await until(
      async () => (await details(id1))?.status === 'Running' && (await details(id1))?.pendingOperation === null,
      'the upgrade',
      180_000,
    );
    const memAfter = Number(/MemTotal:\s+(\d+)/.exec(await ssh({ key: keyFile }, 'root', ip, 'cat /proc/meminfo'))![1]);
    // MemTotal (kB) within 5% of the size: 4 GB before, 8 GB after.
    expect(memBefore / 1024).toBeGreaterThan(4096 * 0.95);
    expect(memAfter / 1024).toBeGreaterThan(8192 * 0.95);
    expect(memAfter / 1024).toBeLessThanOrEqual(8192);
    expect(await ssh({ key: keyFile }, 'root', ip, 'nproc')).toBe('4');

    // A poweroff inside the guest shows through the live stream within 2 s of the machine going off.
    const stream = await openStream();
    await ssh({ key: keyFile }, 'root', ip, 'poweroff >/dev/null 2>&1 &', 10_000).catch(() => '');
    await until(
      async () =>
        (
          await daemon.virsh(daemon.socketUri, [
            'domstate',
            (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id1)))[0]!.providerRef!,
          ])
        ).trim() === 'shut off',
      'the guest to power off',
      60_000,
    );
    const offAt = Date.now();
    await until(
      () => new RegExp(`"id":${id1},[^\\n]*"status":"Shutoff"`).test(stream.text),
      'Shutoff on the stream',
      10_000,
    );
    console.log(`guest poweroff → Shutoff on the live stream: ${((Date.now() - offAt) / 1000).toFixed(2)} s`);
    expect(Date.now() - offAt).toBeLessThan(2000);
    stream.cancel();

    expect((await admin.call(routes.vms.start, { params: { id: id1 } })).status).toBe(200);
    await waitFor(id1, 'Running');
    expect(await ssh({ key: keyFile }, 'root', ip, 'nproc')).toBe('4');
    const uptime = Number.parseFloat(await ssh({ key: keyFile }, 'root', ip, 'cut -d" " -f1 /proc/uptime'));
    expect((await admin.call(routes.vms.reset, { params: { id: id1 } })).status).toBe(200);
    await waitFor(id1, 'Running');
    await new Promise((r) => setTimeout(r, 2000));
    const uptimeAfter = Number.parseFloat(await ssh({ key: keyFile }, 'root', ip, 'cut -d" " -f1 /proc/uptime'));
    expect(uptimeAfter).toBeLessThan(uptime + 30);

    // The API restarts while both VMs run: they stay Running and the new instance controls them.
    await t.portal.close();
    restarted = await buildApp({
      config: t.config,
      database: t.database,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: false,
    });
    await restarted.app.ready();
    restarted.startWorkers();
    const again = new TestClient(restarted, t.config.API_BASE_PATH);
    for (const [k, v] of admin.cookies) again.cookies.set(k, v);
    admin = again;
    await new Promise((r) => setTimeout(r, 1500)); // the reconciler's first pass and the host monitor's first look
    expect((await details(id1))?.status).toBe('Running');
    expect((await details(id2))?.status).toBe('Running');
    expect(await ssh({ key: keyFile }, 'root', ip, 'hostname', 10_000)).toBe('real-guest-1');
    const operator = () => new TestClient(restarted!, t.config.API_BASE_PATH);

    // host-b is cut off: reported, its VM keeps its status with a reason, a stop waits for it.
    await proxy.close();
    const hostDown = async () =>
      (await t.db.select().from(hosts).where(eq(hosts.id, b.host.id)))[0]!.lastError !== null;
    await until(hostDown, 'host-b reported unreachable', 30_000);
    const health = await operator().call(routes.platform.healthRemoteApi, {
      headers: { authorization: `Bearer ${operatorToken}` },
    });
    expect(health.status).toBe(503);
    expect(health.data.checks['host host-b']).toMatchObject({ status: 'down' });
    expect(health.data.checks['host host-a']).toMatchObject({ status: 'ok' });
    const anonymous = await operator().call(routes.platform.healthRemoteApi);
    expect(Object.keys(anonymous.data.checks)).toEqual(
      expect.arrayContaining([`host-${a.host.id}`, `host-${b.host.id}`]),
    );
    expect(JSON.stringify(anonymous.data)).not.toContain('host-b');
    await until(
      async () => /Host host-b is unreachable/.test((await details(id2))?.errorReason ?? ''),
      'the reason on the VM',
      10_000,
    );
    expect((await details(id2))?.status).toBe('Running');
    expect((await admin.call(routes.vms.stop, { params: { id: id2 } })).status).toBe(200);

    // Creates avoid host-b: with host-a draining nobody can take one, and the answer says why.
    const drained = await hostsService.setDraining('host-a', true);
    expect(drained.changed).toBe(true);
    const refused = await admin.call(routes.vms.create, {
      body: {
        regionId: region!.id,
        image: 'Debian 12',
        configurationId: micro.id,
        providerId: provider!.id,
        name: 'nowhere',
        numberOfInstances: 1,
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(
      'No host in US East has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: 1 draining, 1 unreachable)',
    );
    expect((await hostsService.setDraining('host-a', false)).changed).toBe(true);

    // host-a takes VMs again while host-b is still cut: a create goes to host-a (its guest boots meanwhile).
    const elsewhere = await admin.call(routes.vms.create, {
      body: {
        regionId: region!.id,
        image: 'Debian 12',
        configurationId: micro.id,
        providerId: provider!.id,
        name: 'elsewhere',
        numberOfInstances: 1,
      },
    });
    expect(elsewhere.status).toBe(200);
    const [id3] = elsewhere.data.ids as [number];
    expect(await hostOf(id3)).toBe(a.host.id);

    // host-b answers again: the waiting stop completes and the reason goes.
    await proxy.open();
    await waitFor(id2, 'Stopped', 120_000);
    expect((await details(id2))?.errorReason).toBeNull();
    const vm3 = await waitFor(id3, 'Running');
    expect(vm3.virtualMachine.network.privateIp).toMatch(/^10\.231\.78\.\d+$/);
    expect((await details(id3))?.errorReason).toBeNull();

    // The boots above may take longer than the step-up window of the sign-in (docs/two-factor.md "Step-up").
    expect((await admin.call(routes.stepUp.stepUp, { body: { password: ADMIN.password } })).status).toBe(200);
    for (const id of [id1, id2, id3])
      expect((await admin.call(routes.vms.delete, { params: { id } })).status).toBe(200);
    for (const id of [id1, id2, id3]) {
      await until(
        async () => (await admin.call(routes.vms.details, { params: { id } })).status === 404,
        `VM ${id} deleted`,
        120_000,
      );
    }
    const left = (await daemon.virsh(daemon.socketUri, ['list', '--all', '--name']))
      .split('\n')
      .filter((n) => REF_RE.test(n.trim()));
    expect(left).toEqual([]);
    await daemon.virsh(daemon.socketUri, ['pool-refresh', POOL]);
    expect(
      (await daemon.virsh(daemon.socketUri, ['vol-list', POOL]))
        .split('\n')
        .filter((l) => /irontech-[0-9a-f]{20}/.test(l)),
    ).toEqual([]);
    expect(await daemon.virsh(daemon.socketUri, ['net-dumpxml', NETWORK])).not.toMatch(/<host /);
  },
);
