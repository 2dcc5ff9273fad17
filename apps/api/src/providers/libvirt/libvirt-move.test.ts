/**
 * A cold move between TWO libvirtd on this machine (docs/draining.md), "host A" and "host B", each in mount and
 * network namespaces of its own (libvirt-namespaced-daemon.ts), so each has its own QEMU state, pool directory (the
 * same path, another directory), NAT network, dnsmasq and firewall, as two machines have; one daemon through two URIs
 * would be one host (its pool, network and domains the same objects). Neither is the system daemon of
 * libvirt-daemon.ts: they need none of its directories or its lock. A guest boots on A and a marker is written to
 * its disk over SSH. A move that fails once the guest is stopped and its disk copied (B refuses the definition: a
 * domain holds its UUID) leaves it running on A with its disk, nothing left on B. The move then runs: the guest runs
 * on B with the same name, MAC and private address, B's DHCP holds its entry, the marker is on its disk, and A has
 * no domain, volume or DHCP entry left. A snapshot taken on A (with memory) came inside the qcow2 and its metadata
 * was redefined on B: reverting to it there brings the marker back (decision 0019). Moved back powered off onto a
 * stale definition of it on A, B's copy wins.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FIXTURE_BOOT_TIMEOUT_MS } from '../../../test/libvirt-daemon.ts';
import { startNamespacedLibvirtDaemon, type NamespacedLibvirtDaemon } from '../../../test/libvirt-namespaced-daemon.ts';
import type { MachineSpec } from '../provider.ts';
import { createLibvirtDriver, type LibvirtDriver, type LibvirtSettings } from './libvirt.ts';
import { macForKey, REF_RE, refForKey, uuidForKey, volumes } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-move';
const NETWORK = 'irontest-move';
/** The pool's path on both hosts: each daemon has its own directory mounted over it. */
const POOL_PATH = '/tmp/irontech-move-pool';
const DIRS = { a: '/tmp/irontech-libvirtd-move-a', b: '/tmp/irontech-libvirtd-move-b' };
const BLOCKER = 'irontest-move-blocker';
/** Where the marker goes on the guest's disk: 2 GiB in, past the fixture's boot file system (512-byte sectors). */
const MARKER_SECTOR = 4 * 1024 * 1024;
const started = Date.now();

let a: TestHost;
let b: TestHost;
let daemons: NamespacedLibvirtDaemon[] = [];
let keyDir = '';
let privateKey = '';
let spec: MachineSpec;

interface TestHost {
  driver: LibvirtDriver;
  virsh(args: string[]): Promise<string>;
  /** SSH to one of its guests (reachable inside the host's network namespace only). */
  ssh(ip: string, command: string): Promise<string>;
}

function settings(uri: string): LibvirtSettings {
  return {
    uri,
    pool: { name: POOL, path: POOL_PATH },
    network: { name: NETWORK, bridge: 'irontestm0', cidr: '10.231.88.0/24' },
    publicNat: false,
    guestImage: 'test-fixture',
    bootTimeoutMs: FIXTURE_BOOT_TIMEOUT_MS,
    stopTimeoutMs: 30_000,
    deleteGraceMs: 5_000,
  };
}

const sshArgs = (ip: string, command: string) => [
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'ConnectTimeout=3',
  '-o',
  'LogLevel=ERROR',
  '-o',
  'BatchMode=yes',
  '-i',
  privateKey,
  `root@${ip}`,
  command,
];

async function waitForSsh(host: TestHost, ip: string) {
  const since = Date.now();
  for (;;) {
    try {
      return await host.ssh(ip, 'true');
    } catch (e) {
      if (Date.now() - since > 150_000) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

const readMarker = (host: TestHost, ip: string) =>
  host.ssh(ip, `dd if=/dev/vda bs=512 skip=${MARKER_SECTOR} count=1 2>/dev/null | head -c 40`);

beforeAll(async () => {
  daemons = await Promise.all(
    (['a', 'b'] as const).map((h) =>
      startNamespacedLibvirtDaemon(DIRS[h], { binds: [{ from: path.join(DIRS[h], 'pool'), over: POOL_PATH }] }),
    ),
  );
  keyDir = await mkdtemp(path.join(os.tmpdir(), 'libvirt-move-key-'));
  privateKey = path.join(keyDir, 'id');
  await execFileP('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'portal', '-f', privateKey]);
  [a, b] = daemons.map((d) => ({
    driver: createLibvirtDriver(settings(d.socketUri)),
    virsh: (args: string[]) => d.virsh(args),
    ssh: async (ip: string, command: string) =>
      (await d.inNetns('ssh', sshArgs(ip, command), { timeout: 20_000 })).trim(),
  })) as [TestHost, TestHost];
  // Each host's pool, network and base image before the guest's clock starts.
  await Promise.all([a.driver.health(), b.driver.health()]);
  spec = {
    key: `libvirt-move-${process.pid}-${Date.now()}`,
    name: 'Mover 01',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 0.25,
    diskGb: 3,
    region: 'US East',
    username: 'root',
    publicKey: (await readFile(`${privateKey}.pub`, 'utf8')).trim(),
    password: 'not-used-9',
    publicIp: null,
    authorizedKeys: [],
    userData: null,
  } as MachineSpec;
}, 900_000);

afterAll(async () => {
  const cleanup = { domainPattern: new RegExp(`${REF_RE.source}|^${BLOCKER}$`), networks: [NETWORK], pools: [POOL] };
  a?.driver.close?.();
  b?.driver.close?.();
  await Promise.allSettled(daemons.map((d) => d.stop(cleanup)));
  if (keyDir) await rm(keyDir, { recursive: true, force: true });
  await rm(POOL_PATH, { recursive: true, force: true });
  console.log(`libvirt-move.test.ts wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 180_000);

it('moves a running guest from host A to host B with its disk, MAC and address; a move that fails leaves it on A', async () => {
  const made = await a.driver.create(spec);
  const ref = refForKey(spec.key);
  expect(made.ref).toBe(ref);
  const ip = made.privateIp!;
  expect(ip).toMatch(/^10\.231\.88\./);
  await waitForSsh(a, ip);
  const marker = `moved-${Date.now().toString(36)}`;
  await a.ssh(
    ip,
    `printf '%s' ${marker} > /tmp/m && dd if=/tmp/m of=/dev/vda bs=512 seek=${MARKER_SECTOR} conv=notrunc 2>/dev/null && sync`,
  );
  expect(await readMarker(a, ip)).toContain(marker);
  const v = volumes(ref);
  // A snapshot (with memory) on A travels inside the qcow2; the move redefines its metadata on B (decision 0019).
  expect((await a.driver.snapshotTake!(ref, 'portal-snap-move')).includesMemory).toBe(true);

  // B holds a domain with the guest's UUID: the definition fails after the stop and the copy. Rolled back: the guest
  // runs on A again with its disk; B has neither its volumes nor its DHCP entry.
  const blockerXml = path.join(keyDir, 'blocker.xml');
  await writeFile(
    blockerXml,
    `<domain type='qemu'><name>${BLOCKER}</name><uuid>${uuidForKey(spec.key)}</uuid><memory unit='MiB'>64</memory><os><type arch='x86_64'>hvm</type></os></domain>`,
  );
  await b.virsh(['define', blockerXml]);
  await expect(a.driver.moveTo(ref, b.driver, { running: true })).rejects.toThrow(/uuid|already/i);
  expect(await a.driver.status(ref)).toBe('running');
  expect(await b.driver.status(ref)).toBe('missing');
  await b.virsh(['pool-refresh', POOL]);
  expect(await b.virsh(['vol-list', '--pool', POOL])).not.toContain(ref);
  expect(await b.virsh(['net-dumpxml', NETWORK])).not.toContain(macForKey(spec.key));
  await waitForSsh(a, ip);
  expect(await readMarker(a, ip)).toContain(marker);
  await b.virsh(['undefine', BLOCKER]);

  // The move: stopped on A, streamed to B, defined and started there, then gone from A.
  const t0 = Date.now();
  await a.driver.moveTo(ref, b.driver, { running: true });
  const moveSeconds = (Date.now() - t0) / 1000;
  expect(await b.driver.status(ref)).toBe('running');
  expect(await a.driver.status(ref)).toBe('missing');
  await a.virsh(['pool-refresh', POOL]);
  const leftOnA = await a.virsh(['vol-list', '--pool', POOL]);
  for (const vol of [v.disk, v.seed, v.log]) expect(leftOnA).not.toContain(vol);
  expect(await a.virsh(['net-dumpxml', NETWORK])).not.toContain(macForKey(spec.key));
  // Same name, MAC and address on B; its DHCP gives the guest the address it had.
  expect(await b.virsh(['domiflist', ref])).toContain(macForKey(spec.key));
  expect(await b.virsh(['net-dumpxml', NETWORK])).toMatch(
    new RegExp(`mac='${macForKey(spec.key)}' name='${ref}' ip='${ip.replaceAll('.', '\\.')}'`),
  );
  await waitForSsh(b, ip);
  expect(await b.driver.privateIp(ref)).toBe(ip);
  expect(await readMarker(b, ip)).toContain(marker);
  console.log(`cold move of a running guest between two libvirtd: ${moveSeconds.toFixed(1)} s`);
  // The snapshot came along: B knows it and reverts the disk to it.
  expect(await b.virsh(['snapshot-list', ref, '--name'])).toContain('portal-snap-move');
  await b.ssh(
    ip,
    `printf '%s' overwritten > /tmp/m && dd if=/tmp/m of=/dev/vda bs=512 seek=${MARKER_SECTOR} conv=notrunc 2>/dev/null && sync`,
  );
  expect(await readMarker(b, ip)).toContain('overwritten');
  await b.driver.snapshotRevert!(ref, 'portal-snap-move');
  await waitForSsh(b, ip);
  expect(await readMarker(b, ip)).toContain(marker);

  // Back to A powered off, where a stale definition of it waits (not marked as copied from B): it is discarded, not
  // kept over B's copy; the guest comes back on A with the marker.
  await b.driver.stop(ref);
  const stale = path.join(keyDir, 'stale.xml');
  await writeFile(stale, await b.virsh(['dumpxml', '--inactive', ref]));
  await a.virsh(['define', stale]);
  await b.driver.moveTo(ref, a.driver, { running: false });
  expect(await a.driver.status(ref)).toBe('stopped');
  expect(await b.driver.status(ref)).toBe('missing');
  await a.driver.start(ref);
  await waitForSsh(a, ip);
  expect(await readMarker(a, ip)).toContain(marker);

  await a.driver.delete(ref);
  expect(await a.driver.status(ref)).toBe('missing');
}, 900_000);
