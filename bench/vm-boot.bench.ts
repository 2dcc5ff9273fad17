/**
 * Boot to SSH with the real Debian 12 image (docs/guest-image.md), three ways on the same host in the same run, with
 * the same image, size (1 vCPU, 1 GB, 10 GB: the guest gets exactly the configuration) and seed (issue 23's Benchmark):
 *  1. through the portal: the create call → the runner → the libvirt driver → the guest answers → Running → SSH with
 *     the VM's key;
 *  2. `virsh create` of the same domain definition (a fresh overlay disk of the same size, the same seed and MAC, the
 *     portal's machine powered off meanwhile) → SSH;
 *  3. a plain `qemu-system-x86_64` boot of the same image and seed (user networking with the same MAC, SSH forwarded)
 *     → SSH;
 * then 4. a rebuild through the portal (the machine powered off by step 2) → Running → SSH with the VM's key.
 * Prints the times, the ratios (goal: portal ≤ 1.2 × virsh) and the load average, and saves
 * bench/results/vm-boot-*.json.
 *   npm run bench:boot -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 * The first boot reads the base image cold; the later ones find it in the page cache.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile as writeFileP } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildApp, type App } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openDatabase } from '../apps/api/src/db/client.ts';
import { configurations, hosts, providerOfferings, providers, regions } from '../apps/api/src/db/schema.ts';
import { createHostsService } from '../apps/api/src/engine/hosts/hosts.service.ts';
import { REF_RE } from '../apps/api/src/providers/libvirt/names.ts';
import { createProviderRegistry } from '../apps/api/src/providers/registry.ts';
import { seedDemoTenant, seedReferenceData } from '../apps/api/src/seed/seed.ts';
import { ensureGuestImage } from '../apps/api/src/providers/libvirt/guest-image.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';
import { codeFrom, startSmtpCatcher } from '../apps/api/test/smtp-catcher.ts';

const run = promisify(execFile);
const copy = promisify(copyFile);
const POOL = 'irontest-bench';
const NETWORK = 'irontest-bench';
const poolDir = path.join(LIBVIRT_TEST_DIR, POOL);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sshOpts = [
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'ConnectTimeout=2',
  '-o',
  'LogLevel=ERROR',
  '-o',
  'BatchMode=yes',
  '-o',
  'PasswordAuthentication=no',
];

async function sshUntilUp(key: string, target: string[], t0: number): Promise<number> {
  for (;;) {
    try {
      await run('ssh', [...sshOpts, '-i', key, ...target, 'true'], { timeout: 10_000 });
      return (Date.now() - t0) / 1000;
    } catch {
      if (Date.now() - t0 > 1_200_000) throw new Error(`no SSH on ${target.join(' ')} after 1200 s`);
      await sleep(200);
    }
  }
}

/**
 * Seconds from t0 until cloud-init's run of this boot is over: /run/cloud-init/result.json, what the portal's
 * readiness looks for through the guest agent before it says Running (SSH answers a little earlier).
 */
async function cloudInitDone(key: string, target: string[], t0: number): Promise<number> {
  for (;;) {
    try {
      await run('ssh', [...sshOpts, '-i', key, ...target, 'test -e /run/cloud-init/result.json'], { timeout: 30_000 });
      return (Date.now() - t0) / 1000;
    } catch {
      if (Date.now() - t0 > 1_200_000) throw new Error(`cloud-init not done on ${target.join(' ')} after 1200 s`);
      await sleep(500);
    }
  }
}

const loadAtStart = os.loadavg();
// Built (or found in the cache) before anything is timed.
const imageFile = await ensureGuestImage({ kind: 'debian-12' });
const daemon = await startLibvirtDaemon();
const virsh = (args: string[]) => daemon.virsh(daemon.socketUri, args);
const tmp = await mkdtemp(path.join(os.tmpdir(), 'vm-boot-bench-'));
const smtp = await startSmtpCatcher();
const database = await openDatabase({ dataDir: 'memory://' });
const results: Record<string, number> = {};
const DISK_GB = 10;
/** Closed before the database, also on a failure (its runner would otherwise write to a closed PGlite). */
let portal: App | null = null;
try {
  await seedReferenceData(database.db);
  await seedDemoTenant(database.db, { adminEmail: 'admin@example.com', adminPassword: 'Bench-Password-1!' });
  const settings = {
    pool: { name: POOL, path: poolDir },
    network: { name: NETWORK, bridge: 'irontestb0', cidr: '10.231.79.0/24' },
    guestImage: 'debian-12',
    bootTimeoutMs: 1_200_000,
    deleteGraceMs: 0,
  };
  const [provider] = await database.db
    .insert(providers)
    .values({ name: 'Bench libvirt', driver: 'libvirt', settings })
    .returning();
  const region = (await database.db.select().from(regions)).find((r) => r.name === 'US East')!;
  const [size] = await database.db
    .insert(configurations)
    .values({ key: 'bench-debian', name: 'Bench Debian', cpu: 1, ram: 1, disk: DISK_GB })
    .returning();
  await database.db
    .insert(providerOfferings)
    .values({ providerId: provider!.id, regionId: region.id, configurationId: size!.id });
  // Registering the host makes the pool, network and base image before any clock starts.
  await createHostsService({ db: database.db, registry: createProviderRegistry() }).add({
    name: 'bench',
    uri: daemon.socketUri,
    provider: provider!.id,
    region: region.id,
    cpus: 8,
    ramGb: 32,
    diskGb: 100,
  });

  portal = await buildApp({
    config: loadConfig({
      SMTP_URL: smtp.url,
      LOG_LEVEL: 'silent',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      VM_RUNNER_POLL_MS: '50',
    }),
    database,
    secret: 'bench-secret-that-is-long-enough-0123456',
    logger: false,
    webDistDir: '/nonexistent',
  });
  await portal.app.listen({ port: 0, host: '127.0.0.1' });
  portal.startWorkers();
  const base = `http://127.0.0.1:${(portal.app.server.address() as { port: number }).port}/irontech/api/v1`;
  const csrf = 'benchcsrf0123456789abcdef';
  let cookie = `csrf_token=${csrf}`;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method,
      headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const sid = res.headers.getSetCookie().find((c) => c.startsWith('sid='));
    if (sid) cookie = `csrf_token=${csrf}; ${sid.split(';')[0]}`;
    return { status: res.status, ...((await res.json()) as { data: Record<string, unknown> & { ids?: number[] } }) };
  };
  await call('POST', '/auth/login', { email: 'admin@example.com', password: 'Bench-Password-1!' });
  await call('POST', '/auth/mfa', { code: codeFrom(await smtp.waitFor('admin@example.com')) });
  // The host monitor's first look (marks the host seen).
  for (let i = 0; ; i++) {
    const [h] = await database.db.select().from(hosts);
    if (h?.lastSeenAt && !h.lastError) break;
    if (i > 600) throw new Error(`the bench host is not seen: ${h?.lastError}`);
    await sleep(200);
  }

  // The base image read once, so the first boot (the portal's) does not pay for a cold page cache alone.
  await run('dd', [`if=${path.join(poolDir, path.basename(imageFile))}`, 'of=/dev/null', 'bs=4M']);

  // 1. Through the portal.
  let t0 = Date.now();
  const created = await call('POST', '/virtualMachines/create', {
    regionId: region.id,
    image: 'Debian 12',
    configurationId: size!.id,
    providerId: provider!.id,
    name: 'bench-vm',
    numberOfInstances: 1,
  });
  if (!created.data?.ids) throw new Error(`create failed: ${JSON.stringify(created)}`);
  const id = created.data.ids[0]!;
  const keyFile = path.join(tmp, 'key');
  await writeFileP(keyFile, (await call('GET', `/virtualMachines/getAccessKey/${id}`)).data.privateKey as string, {
    mode: 0o600,
  });
  /** Polls the VM until Running with no operation pending; its private address and when Running was first seen. */
  const untilRunning = async () => {
    for (;;) {
      const d = (await call('GET', `/virtualMachines/details/${id}`)).data as {
        status: string;
        pendingOperation: string | null;
        errorReason: string | null;
        virtualMachine: { network: { privateIp: string | null } };
      };
      if (d.status === 'Error') throw new Error(`the portal VM went to Error: ${d.errorReason}`);
      if (d.status === 'Running' && d.pendingOperation === null && d.virtualMachine.network.privateIp)
        return { ip: d.virtualMachine.network.privateIp, at: Date.now() };
      await sleep(100);
    }
  };
  const running = await untilRunning();
  const ip = running.ip;
  results.portalRunningSeconds = (running.at - t0) / 1000;
  results.portalSeconds = await sshUntilUp(keyFile, [`root@${ip}`], t0);
  results.portalCloudInitSeconds = await cloudInitDone(keyFile, [`root@${ip}`], t0);
  console.log(
    `portal create → Running ${results.portalRunningSeconds.toFixed(1)} s → SSH: ${results.portalSeconds.toFixed(1)} s (cloud-init done ${results.portalCloudInitSeconds.toFixed(1)} s)`,
  );

  // The same definition, disk image and seed for the other two; the portal's guest is powered off first.
  const ref = (await virsh(['list', '--all', '--name']))
    .split('\n')
    .map((n) => n.trim())
    .find((n) => REF_RE.test(n))!;
  const xml = await virsh(['dumpxml', '--inactive', ref]);
  await virsh(['destroy', ref]);
  const base0 =
    /<backingStore type='file'>\s*<format type='qcow2'\/>\s*<source file='([^']+)'/.exec(
      await virsh(['dumpxml', ref]),
    )?.[1] ??
    (await run('qemu-img', ['info', '--output=json', path.join(poolDir, `${ref}.qcow2`)])).stdout.match(
      /"backing-filename":\s*"([^"]+)"/,
    )![1]!;
  const seed = path.join(poolDir, `${ref}-seed.iso`);

  // The seed's network-config names the NIC by its MAC: the other two boots keep the portal machine's MAC (it is off).
  const mac = /<mac address='([^']+)'\/>/.exec(xml)![1]!;

  // 2. virsh create (a transient domain of the same definition with its own disk and UUID; the same MAC and seed,
  //    so the same DHCP reservation and address).
  const disk2 = path.join(poolDir, 'bench-virsh.qcow2');
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', base0, '-F', 'qcow2', disk2, `${DISK_GB}G`]);
  const seed2 = path.join(poolDir, 'bench-virsh-seed.iso');
  await copy(seed, seed2);
  const xml2 = xml
    .replace(/<name>[^<]+<\/name>/, '<name>bench-virsh</name>')
    .replace(/<uuid>[^<]+<\/uuid>/, '')
    .replace(/<metadata>[\s\S]*<\/metadata>/, '')
    .replace(path.join(poolDir, `${ref}.qcow2`), disk2)
    .replace(seed, seed2)
    .replace(/<log file='[^']+'/, `<log file='${path.join(poolDir, 'bench-virsh.log')}'`);
  const xmlFile = path.join(tmp, 'virsh.xml');
  await writeFileP(xmlFile, xml2);
  t0 = Date.now();
  await virsh(['create', xmlFile]);
  results.virshSeconds = await sshUntilUp(keyFile, [`root@${ip}`], t0);
  results.virshCloudInitSeconds = await cloudInitDone(keyFile, [`root@${ip}`], t0);
  console.log(
    `virsh create → SSH: ${results.virshSeconds.toFixed(1)} s, → cloud-init done ${results.virshCloudInitSeconds.toFixed(1)} s`,
  );
  await virsh(['destroy', 'bench-virsh']);

  // 3. Plain QEMU, same image, seed and size, user networking with SSH forwarded.
  const disk3 = path.join(tmp, 'qemu.qcow2');
  await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-b', base0, '-F', 'qcow2', disk3, `${DISK_GB}G`]);
  const port = await new Promise<number>((r) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => r(p));
    });
  });
  const vcpus = /<vcpu[^>]*>(\d+)</.exec(xml)![1]!;
  const memMb = Number(/<memory unit='KiB'>(\d+)</.exec(xml)?.[1] ?? 262144) / 1024;
  t0 = Date.now();
  const qemu = spawn(
    'qemu-system-x86_64',
    [
      '-machine',
      'q35,accel=tcg',
      '-smp',
      vcpus,
      '-m',
      String(memMb),
      '-drive',
      `file=${disk3},if=virtio,format=qcow2`,
      '-drive',
      `file=${seed},if=virtio,format=raw,readonly=on`,
      '-netdev',
      `user,id=n0,hostfwd=tcp:127.0.0.1:${port}-:22`,
      '-device',
      `virtio-net-pci,netdev=n0,mac=${mac}`,
      '-device',
      'virtio-rng-pci',
      '-display',
      'none',
      '-serial',
      'null',
      '-nodefaults',
      '-vga',
      'std',
    ],
    { stdio: 'ignore' },
  );
  try {
    results.qemuSeconds = await sshUntilUp(keyFile, ['-p', String(port), 'root@127.0.0.1'], t0);
    results.qemuCloudInitSeconds = await cloudInitDone(keyFile, ['-p', String(port), 'root@127.0.0.1'], t0);
  } finally {
    qemu.kill();
  }
  console.log(
    `qemu-system-x86_64 → SSH: ${results.qemuSeconds.toFixed(1)} s, → cloud-init done ${results.qemuCloudInitSeconds.toFixed(1)} s`,
  );

  // 4. Rebuild through the portal (its machine is off since step 2: no ACPI stop to wait for) → Running → SSH.
  t0 = Date.now();
  const rebuilt = await call('POST', `/virtualMachines/rebuild/${id}`, { image: 'Debian 12' });
  if (rebuilt.status !== 200) throw new Error(`rebuild failed: ${JSON.stringify(rebuilt)}`);
  // The status may still say Running (the reconciler has not seen step 2's destroy) until the rebuild is queued.
  await sleep(200);
  const rerunning = await untilRunning();
  results.rebuildRunningSeconds = (rerunning.at - t0) / 1000;
  results.rebuildSeconds = await sshUntilUp(keyFile, [`root@${rerunning.ip}`], t0);
  console.log(
    `portal rebuild → Running ${results.rebuildRunningSeconds.toFixed(1)} s → SSH: ${results.rebuildSeconds.toFixed(1)} s`,
  );

  const ratios = {
    portalOverVirsh: results.portalSeconds / results.virshSeconds,
    portalOverQemu: results.portalSeconds / results.qemuSeconds,
    virshOverQemu: results.virshSeconds / results.qemuSeconds,
    /** Like for like: the portal says Running once cloud-init is done; the others' cloud-init done over SSH. */
    portalRunningOverVirshCloudInit: results.portalRunningSeconds / results.virshCloudInitSeconds,
  };
  const loadAverage = { start: loadAtStart, end: os.loadavg() };
  console.log(
    `portal / virsh = ${ratios.portalOverVirsh.toFixed(2)} (goal ≤ 1.2; portal Running / virsh cloud-init done ${ratios.portalRunningOverVirshCloudInit.toFixed(2)}), portal / qemu = ${ratios.portalOverQemu.toFixed(2)}, virsh / qemu = ${ratios.virshOverQemu.toFixed(2)}; load average ${loadAverage.start.map((l) => l.toFixed(1)).join(' ')} at the start, ${loadAverage.end.map((l) => l.toFixed(1)).join(' ')} at the end`,
  );
  const dir = new URL('./results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const file = new URL(`vm-boot-${new Date().toISOString().slice(0, 16).replace(/:/g, '')}.json`, dir);
  writeFileSync(
    file,
    `${JSON.stringify({ at: new Date().toISOString(), host: { cpus: os.cpus().length, model: os.cpus()[0]?.model, domainType: 'qemu (TCG)' }, loadAverage, image: 'debian-12', guest: { vcpus: Number(vcpus), memMb, diskGb: DISK_GB }, ...results, ...ratios }, null, 2)}\n`,
  );
  console.log(`saved ${file.pathname}`);
  await call('DELETE', `/virtualMachines/delete/${id}`).catch(() => undefined);
} finally {
  await portal?.close().catch(() => undefined);
  await smtp.close();
  await database.close().catch(() => undefined);
  await daemon.stop({ domainPattern: /^(irontech-|bench-)/, networks: [NETWORK], pools: [POOL] });
  await rm(poolDir, { recursive: true, force: true });
  await rm(tmp, { recursive: true, force: true });
}
