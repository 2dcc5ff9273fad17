/**
 * The libvirt driver: real machines on one libvirt host (`uri`), driven through the `virsh` client.
 *
 * Per host it keeps a directory storage pool (base images, each machine's disk, seed ISO and serial log) and
 * a NAT network with DHCP from libvirt's dnsmasq; both are made on first use when missing. A machine is a
 * persistent domain named after its idempotency key (`irontech-<hash>`, also its ref): a copy-on-write qcow2
 * volume over its image's base volume, a cloud-init NoCloud seed ISO (hostname, user, password, SSH key),
 * virtio disk and network with a MAC derived from the key, a serial console logged to a file in the pool (read
 * back with vol-download, so it works on remote hosts too) and VNC with a websocket on the host's loopback.
 * What the portal asked for (size, name, image) lives in the domain's <metadata>; the guest gets exactly that
 * size: the configuration's vCPUs, its memory (GB = 1024 MiB) and its disk (issue 23 item 3). A host too small
 * for a size is refused it at placement (engine/placement.ts), never given a smaller guest.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import readline from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import {
  GuestNotReadyError,
  TransientProviderError,
  type BackupInfo,
  type BootOptions,
  type CreatedMachine,
  type MachineSpec,
  type HostSample,
  type MachineState,
  type ProviderDriver,
  type Usage,
} from '../provider.ts';
import { libvirtConsoleChannels } from './console.ts';
import { ensureGuestImage } from './guest-image.ts';
import { REF_RE, guestHostname, macForKey, publicMacForKey, refForKey, uuidForKey, volumes } from './names.ts';
import { buildSeedIso } from './seed.ts';
import { moveMachine, type MoveEndpoint } from './move.ts';
import { rebuildMachine } from './rebuild.ts';
import { deleteSnapshot, revertSnapshot, takeSnapshot, type SnapshotHost } from './snapshots.ts';
import {
  deleteBackup,
  diskFromBackup,
  restoreBackup,
  takeBackup,
  verifyBackup,
  type BackupHost,
  type BackupPool,
} from './backups.ts';
import { deleteMarker, proveBackup, recordMarker, writeMarker, type VerifyHost } from './backup-verify.ts';
import { waitForGuest } from './boot-wait.ts';
import { defineIdempotent, serializePerUri } from './host-objects.ts';
import { HostRefusedError, type HostTarget } from './host-connection.ts';
import { createVirsh, isNotFound, VirshError } from './virsh.ts';
import { SpawnHelperError, sharedSpawner } from './spawner.ts';
import { machineStateOf, parseDomainSample, parseDomainStates, SAMPLE_GROUPS } from './domain-states.ts';
import {
  dirPoolXml,
  domainXml,
  domifaddrIps,
  guestSize,
  hasDhcp,
  ipToNumber,
  natNetworkXml,
  numberToIp,
  parseMeta,
  staticHosts,
  volumeXml,
  type MachineMeta,
} from './xml.ts';

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);

export const libvirtSettingsSchema = z.object({
  /** The host's libvirt URI: `qemu:///system`, `qemu+ssh://root@host/system`, `qemu+tls://host/system`, … */
  uri: z.string().min(1).max(500).default('qemu:///system'),
  virshBinary: z.string().min(1).max(500).default('virsh'),
  /** A directory pool on the host; made (and its directory built) when missing. */
  pool: z
    .object({ name: name.default('irontech'), path: z.string().min(1).max(500).default('/var/lib/libvirt/irontech') })
    .default({ name: 'irontech', path: '/var/lib/libvirt/irontech' }),
  /**
   * Where backups go (issue 24 item 2; docs/decisions/0022-libvirt-backups.md): a directory pool on the host, made
   * (and its directory built) on first use like `pool`. Unset: the pool's name + `-backups` at a sibling path of the
   * pool's (`/var/lib/libvirt/irontech-backups`). An operator points it at another disk (a pool they defined over
   * NFS, for instance) by naming it here.
   */
  backupPool: z.object({ name, path: z.string().min(1).max(500) }).optional(),
  /** How long one backup's copy (a take, a restore, a restore as new) may run. */
  backupTimeoutMs: z.number().int().min(1000).max(86_400_000).default(14_400_000),
  /**
   * Backup verification's throwaway machines (backup-verify.ts; decision 0024): their isolated network (no forward;
   * made on first use; unset: the network's name + `-verify`, its bridge + `v`, 10.231.255.0/24), their memory, and
   * how long one has to show it came up (unset: bootTimeoutMs).
   */
  verifyNetwork: z
    .object({
      name,
      bridge: z.string().regex(/^[A-Za-z0-9_-]{1,15}$/),
      cidr: z.string(),
    })
    .optional(),
  verifyRamMib: z.number().int().min(128).max(65_536).default(512),
  verifyBootTimeoutMs: z.number().int().min(1000).max(1_800_000).optional(),
  /**
   * The machines' network; when missing it is made as a NAT network with DHCP over `cidr`. An existing network the
   * operator defined may be bridged (`<forward mode='bridge'/>`, no <ip>): then the operator's DHCP serves it, the
   * driver reserves nothing and finds the address in the host's ARP table.
   */
  network: z
    .object({
      name: name.default('irontech'),
      bridge: z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,15}$/)
        .default('irontech0'),
      cidr: z.string().default('10.231.0.0/24'),
    })
    .default({ name: 'irontech', bridge: 'irontech0', cidr: '10.231.0.0/24' }),
  /**
   * The host's public network (docs/virtual-machines.md, "Public addresses"): a libvirt network the operator
   * defined over the public block, routed (`<forward mode='route'/>`) or bridged to the uplink, with libvirt's DHCP.
   * A VM given a public address gets a second NIC on it and a static DHCP entry for the address (none on a bridged
   * network: the operator's DHCP or the guest's own configuration gives it). Unset: see `publicNat`.
   */
  publicNetwork: z.object({ name }).optional(),
  /**
   * Without `publicNetwork`: a VM's public address is mapped 1:1 to its private one by the host's hook
   * (scripts/libvirt-hooks/qemu, installed by the operator), from a mapping the driver writes into the domain's
   * metadata. false: public addresses are recorded and shown only.
   */
  publicNat: z.boolean().default(true),
  /** Image name (as the catalog lists it) → base volume in the pool. Images not listed use the built guest. */
  images: z.record(z.string(), name).default({}),
  /** The catalog's image names the built guest image serves (when uploaded) on this host. */
  guestImages: z.array(z.string().min(1).max(100)).default(['Debian 12']),
  /** Upload the Irontech guest image (scripts/guest-image) into the pool when it is not there yet. */
  uploadGuestImage: z.boolean().default(true),
  /**
   * Which one: `debian-12` (build-debian.sh, a real Debian 12) or `test-fixture` (build.sh, a busybox initramfs
   * that boots in seconds; for tests of the driver's and consoles' plumbing, never for customers).
   */
  guestImage: z.enum(['debian-12', 'test-fixture']).default('debian-12'),
  guestImageCacheDir: z.string().min(1).max(500).optional(),
  /** The login the seed gives the password and key when the spec names none (the portal's VMs name `root`). */
  guestUser: z
    .string()
    .regex(/^[a-z_][a-z0-9_-]{0,31}$/)
    .default('root'),
  /** `qemu` runs under TCG anywhere; `kvm` needs a working /dev/kvm on the host. */
  domainType: z.enum(['qemu', 'kvm']).default('qemu'),
  machine: z.string().min(1).max(50).default('q35'),
  /**
   * How long a power-on (create, start, reset, rebuild, the restart of an upgrade) waits for the guest to be ready
   * (`readyWhen`) before it gives up with "The guest did not answer within N s", the machine left running. A real
   * Debian under TCG on a loaded 2-core host took up to 7 min to SSH (docs/guest-image.md); KVM hosts: seconds.
   */
  bootTimeoutMs: z.number().int().min(1000).max(1_800_000).default(600_000),
  /**
   * When a powered-on machine is Running (docs/virtual-machines.md, "Starting"). `agent`: its guest agent answers
   * `guest-ping` and cloud-init's last stage of this boot is over (/run/cloud-init/result.json, looked for through
   * the agent; SSH is up then; an agent that refuses file access, or a guest without cloud-init, is ready at the
   * ping). `lease`: it has a DHCP lease on the private network (images without an agent). Unset: `lease` for the
   * busybox test fixture, which has no agent, and `agent` otherwise: the built Debian image has one, as every cloud
   * image has or can install.
   */
  readyWhen: z.enum(['agent', 'lease']).optional(),
  /** How long stop waits for the guest to power off before it forces the machine off. */
  stopTimeoutMs: z.number().int().min(0).max(1_800_000).default(60_000),
  /**
   * While a stop waits, the ACPI power button is pressed again this often: a guest still booting ignores it (systemd
   * before logind is up), and one press would leave the stop waiting out `stopTimeoutMs` blind.
   */
  stopRepeatMs: z.number().int().min(500).max(600_000).default(3000),
  /** How long delete lets a running guest shut down (and release its DHCP lease) before it is destroyed. */
  deleteGraceMs: z.number().int().min(0).max(600_000).default(10_000),
  /** How long a move (draining) may take to copy one volume to another host. */
  moveCopyTimeoutMs: z.number().int().min(1000).max(86_400_000).default(14_400_000),
  /**
   * Short reads (the reconciler's one call per pass, states, definitions, leases, health) share one long-lived virsh
   * per host (virsh.ts, virsh-session.ts); false: a process per call, as before issue 22.
   */
  session: z.boolean().default(true),
});
export type LibvirtSettings = z.input<typeof libvirtSettingsSchema>;

export interface LibvirtDriver extends ProviderDriver {
  capacity(): Promise<{ cpus: number; ramGb: number; diskGb: number }>;
  images(): Promise<string[]>;
  watch(listener: (ref: string) => void): () => void;
  statusAll(): Promise<Map<string, MachineState>>;
  sampleAll(): Promise<HostSample>;
  /** The machine's address on its libvirt network, from the DHCP leases (null before its first lease). */
  privateIp(ref: string): Promise<string | null>;
  /** A cold move to another host of the provider (move.ts, docs/draining.md). */
  moveTo(ref: string, target: ProviderDriver, opts: { running: boolean }): Promise<void>;
  /** This host as a move's other end (move.ts). */
  moveEndpoint(): MoveEndpoint;
}

interface Host {
  poolPath: string;
  /** The base volume used for images the `images` setting does not name. */
  guestVolume: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** libvirt's words for an agent that does not answer (yet): not connected, not responding, or no domain running. */
const AGENT_NOT_UP_RE = /not responding|not connected|not available|is not running|not syncing|timed? ?out/i;
/** Written by cloud-init when its last stage of this boot is over (in /run: each boot's own). */
const CLOUD_INIT_DONE = '/run/cloud-init/result.json';
/** Where cloud-init is installed in every image that has it (Debian, Ubuntu, RHEL/Rocky). */
const CLOUD_INIT_BINARY = '/usr/bin/cloud-init';

/** `target`: how to reach the host (registry.ts; a reseller host's URI is checked before each connection). */
export function createLibvirtDriver(input: LibvirtSettings = {}, target?: HostTarget): LibvirtDriver {
  const s = libvirtSettingsSchema.parse(input);
  const virsh = createVirsh(target ?? s.uri, s.virshBinary, 60_000, { session: s.session });
  const pool = s.pool.name;
  const readyWhen = s.readyWhen ?? (s.guestImage === 'test-fixture' ? 'lease' : 'agent');
  const locks = new Map<string, Promise<unknown>>();
  const cpuSamples = new Map<string, { cpuNs: number; at: number }>();

  /** Serialises the actions on one machine inside this process. */
  function withLock<T>(ref: string, fn: () => Promise<T>): Promise<T> {
    const prev = locks.get(ref) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    locks.set(ref, tail);
    void tail.then(() => {
      if (locks.get(ref) === tail) locks.delete(ref);
    });
    return next;
  }

  /** Running takes past their job's start (backupTake): what must not touch the disk meanwhile waits for them. */
  const takesInFlight = new Map<string, Promise<void>>();

  /**
   * The machine's lock, then the end of a take still copying it: for what changes the disk or its block jobs
   * (snapshots, a resize, a restore). Power actions take the lock alone: a stop during a take goes ahead.
   */
  function withDiskLock<T>(ref: string, fn: () => Promise<T>): Promise<T> {
    return withLock(ref, async () => {
      await takesInFlight.get(ref);
      return fn();
    });
  }

  function checkRef(ref: string) {
    if (!REF_RE.test(ref)) throw new Error(`"${ref}" is not a libvirt machine reference`);
  }

  async function withXmlFile<T>(xml: string, fn: (file: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-virsh-'));
    try {
      const file = path.join(dir, 'def.xml');
      await writeFile(file, xml, { mode: 0o600 });
      return await fn(file);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  // ---- the host: pool, network, base image ---------------------------------------------------------

  let hostPromise: Promise<Host> | null = null;
  function host(): Promise<Host> {
    // One setup per libvirt at a time in this process, and a define someone else made meanwhile is done
    // (host-objects.ts: two demo hosts on one URI raced to define the pool).
    hostPromise ??= serializePerUri(target?.label ?? s.uri, async () => {
      const poolInfo = await virsh.maybe(['pool-info', pool]);
      if (poolInfo === null) {
        await defineIdempotent(() => withXmlFile(dirPoolXml(pool, s.pool.path), (f) => virsh.run(['pool-define', f])));
        await virsh.run(['pool-build', pool]);
        await virsh.run(['pool-autostart', pool]);
      }
      if (!/^State:\s+running/m.test(poolInfo ?? ''))
        await virsh.run(['pool-start', pool]).catch((e) => ignoreIf(e, /already active/));
      const poolPath = /<path>([^<]+)<\/path>/.exec(await virsh.run(['pool-dumpxml', pool]))?.[1] ?? s.pool.path;

      const netInfo = await virsh.maybe(['net-info', s.network.name]);
      if (netInfo === null) {
        await defineIdempotent(() =>
          withXmlFile(natNetworkXml(s.network.name, s.network.bridge, s.network.cidr), (f) =>
            virsh.run(['net-define', f]),
          ),
        );
        await virsh.run(['net-autostart', s.network.name]);
      }
      if (!/^Active:\s+yes/m.test(netInfo ?? ''))
        await virsh.run(['net-start', s.network.name]).catch((e) => ignoreIf(e, /already active/));

      let guestVolume: string | null = null;
      if (s.uploadGuestImage) {
        const file = await ensureGuestImage({ cacheDir: s.guestImageCacheDir, kind: s.guestImage });
        guestVolume = path.basename(file);
        if ((await virsh.maybe(['vol-info', '--pool', pool, guestVolume])) === null)
          await uploadVolume(guestVolume, await readFile(file));
      }
      return { poolPath, guestVolume };
    });
    hostPromise.catch(() => (hostPromise = null));
    return hostPromise;
  }

  /**
   * The backup pool (backups.ts): defined, built and started on first use, like the machines' pool. Its default is
   * the pool's name + `-backups` in a directory beside the pool's.
   */
  const backupPoolName = s.backupPool?.name ?? `${pool}-backups`;
  let backupPoolPromise: Promise<BackupPool> | null = null;
  function backupPool(): Promise<BackupPool> {
    backupPoolPromise ??= serializePerUri(target?.label ?? s.uri, async () => {
      const info = await virsh.maybe(['pool-info', backupPoolName]);
      if (info === null) {
        const dir =
          s.backupPool?.path ??
          path.posix.join(path.posix.dirname(s.pool.path), `${path.posix.basename(s.pool.path)}-backups`);
        await defineIdempotent(() =>
          withXmlFile(dirPoolXml(backupPoolName, dir), (f) => virsh.run(['pool-define', f])),
        );
        await virsh.run(['pool-build', backupPoolName]);
        await virsh.run(['pool-autostart', backupPoolName]);
      }
      if (!/^State:\s+running/m.test(info ?? ''))
        await virsh.run(['pool-start', backupPoolName]).catch((e) => ignoreIf(e, /already active/));
      const xml = await virsh.run(['pool-dumpxml', backupPoolName]);
      const dir = /<path>([^<]+)<\/path>/.exec(xml)?.[1];
      if (!dir) throw new Error(`backup pool ${backupPoolName} on ${s.uri} has no directory`);
      return { name: backupPoolName, path: dir };
    });
    backupPoolPromise.catch(() => (backupPoolPromise = null));
    return backupPoolPromise;
  }

  function ignoreIf(e: unknown, re: RegExp) {
    if (!(e instanceof Error && re.test(e.message))) throw e;
  }

  /** Creates (or replaces) a raw volume in the pool holding `data`: vol-upload streams it to remote hosts too. */
  async function uploadVolume(vol: string, data: Buffer) {
    await virsh.maybe(['vol-delete', '--pool', pool, vol]);
    await virsh.run(['vol-create-as', '--pool', pool, vol, `${data.length}B`, '--format', 'raw']);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-vol-'));
    try {
      const file = path.join(dir, 'data');
      await writeFile(file, data, { mode: 0o600 });
      await virsh.run(['vol-upload', '--pool', pool, vol, file], { timeoutMs: 600_000 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async function baseVolume(image: string, h: Host): Promise<string> {
    const vol = s.images[image] ?? h.guestVolume;
    if (!vol)
      throw new Error(`no base volume for image "${image}" on ${s.uri} (set images["${image}"] or uploadGuestImage)`);
    return vol;
  }

  function definition(ref: string, meta: MachineMeta, h: Host): string {
    const v = volumes(ref);
    return domainXml({
      ref,
      uuid: uuidForKey(meta.key),
      mac: macForKey(meta.key),
      meta,
      domainType: s.domainType,
      machine: s.machine,
      diskPath: path.posix.join(h.poolPath, v.disk),
      seedPath: path.posix.join(h.poolPath, v.seed),
      serialLogPath: path.posix.join(h.poolPath, v.log),
      network: s.network.name,
      publicNic:
        meta.publicIp && s.publicNetwork ? { network: s.publicNetwork.name, mac: publicMacForKey(meta.key) } : null,
      nat:
        meta.publicIp && meta.privateIp && !s.publicNetwork && s.publicNat
          ? { publicIp: meta.publicIp, privateIp: meta.privateIp }
          : null,
    });
  }

  // ---- domain state ------------------------------------------------------------------------------------

  /** libvirt's state word (`running`, `shut off`, `paused`, …) or null when there is no such domain. */
  async function domState(ref: string): Promise<string | null> {
    const out = await virsh.maybe(['domstate', ref]);
    return out === null ? null : out.trim();
  }

  async function mustMeta(ref: string): Promise<MachineMeta> {
    checkRef(ref);
    const xml = await virsh.maybe(['dumpxml', '--inactive', ref]);
    const meta = xml && parseMeta(xml);
    if (!meta) throw new Error(`libvirt machine ${ref} does not exist on ${s.uri}`);
    return meta;
  }

  async function waitForState(ref: string, done: (state: string | null) => boolean, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (done(await domState(ref))) return true;
      if (Date.now() >= until) return false;
      await sleep(250);
    }
  }

  const isRunning = (state: string | null) =>
    state === 'running' || state === 'paused' || state === 'in shutdown' || state === 'blocked';

  async function destroy(ref: string) {
    await virsh.run(['destroy', ref]).catch((e) => ignoreIf(e, /not running|domain is not running/i));
  }

  let dhcpPromise: Promise<boolean> | null = null;
  function privateNetworkHasDhcp(): Promise<boolean> {
    dhcpPromise ??= virsh.run(['net-dumpxml', '--inactive', s.network.name]).then(hasDhcp);
    dhcpPromise.catch(() => (dhcpPromise = null));
    return dhcpPromise;
  }

  /**
   * The machine's private address: libvirt's DHCP leases, else (a bridged network, whose DHCP is the operator's)
   * the host's ARP table, which knows the guest once it has sent anything the host sees.
   */
  async function leaseIp(ref: string): Promise<string | null> {
    const meta = await mustMeta(ref);
    const mac = macForKey(meta.key);
    const leases = domifaddrIps(await virsh.run(['net-dhcp-leases', s.network.name, '--mac', mac]), mac);
    if (leases.length > 0 || (await privateNetworkHasDhcp())) return leases.at(-1) ?? null;
    if (!isRunning(await domState(ref))) return null;
    const arp = await virsh.maybe(['domifaddr', ref, '--source', 'arp']);
    return (arp && domifaddrIps(arp, mac).at(-1)) ?? null;
  }

  /**
   * A static DHCP entry (MAC → address) on the machine's network, made before its first boot: dnsmasq then
   * never hands that address to another machine while this one exists, and delete removes the entry. The
   * address is the lowest one of the DHCP range that no entry and no current lease holds. Null on a network
   * without libvirt's DHCP (bridged): its addresses are the operator's DHCP's.
   */
  function reserveAddress(ref: string, mac: string): Promise<string | null> {
    return addStaticHost(s.network.name, ref, mac, null);
  }

  /**
   * `ip` given: that address (the public one the portal allocated); null: the lowest free one of the range. The lock
   * orders this process's reservations on the network; another process, or another host URI of the same daemon,
   * may take the same address between our read and our write, which libvirt refuses ("existing dhcp host entry"):
   * then the network is read again and the next free address tried.
   */
  async function addStaticHost(network: string, ref: string, mac: string, ip: string | null): Promise<string | null> {
    return withLock(`network:${network}`, async () => {
      for (let attempt = 1; ; attempt++) {
        const xml = await virsh.run(['net-dumpxml', '--inactive', network]);
        if (!hasDhcp(xml)) return ip;
        const own = staticHosts(xml).find((h) => h.mac === mac);
        if (own) return own.ip;
        const address = ip ?? (await lowestFreeAddress(network, xml));
        try {
          await updateStaticHost(network, 'add-last', { mac, name: ref, ip: address });
          return address;
        } catch (e) {
          if (ip || attempt >= 5 || !(e instanceof VirshError && /existing dhcp host entry/i.test(e.stderr))) throw e;
        }
      }
    });
  }

  async function lowestFreeAddress(network: string, xml: string): Promise<string> {
    const range = /<range start='([\d.]+)' end='([\d.]+)'/.exec(xml);
    if (!range) throw new Error(`network ${network} on ${s.uri} has no DHCP range`);
    const leases = await virsh.run(['net-dhcp-leases', network]);
    const taken = new Set([
      ...staticHosts(xml).map((h) => h.ip),
      ...[...leases.matchAll(/ipv4\s+(\d+\.\d+\.\d+\.\d+)\//g)].map((m) => m[1]!),
    ]);
    const [from, to] = [ipToNumber(range[1]!), ipToNumber(range[2]!)];
    for (let n = from; n <= to; n++) if (!taken.has(numberToIp(n))) return numberToIp(n);
    throw new Error(`network ${network} on ${s.uri} has no free address left`);
  }

  /** Adds or deletes a static DHCP entry in the network's definition, and in the running network when it is up. */
  async function updateStaticHost(
    network: string,
    op: 'add-last' | 'delete',
    entry: { mac: string; name: string; ip: string },
  ): Promise<void> {
    const active = /^Active:\s+yes/m.test(await virsh.run(['net-info', network]));
    await virsh.run([
      'net-update',
      network,
      op,
      'ip-dhcp-host',
      `<host mac='${entry.mac}' name='${entry.name}' ip='${entry.ip}'/>`,
      '--config',
      ...(active ? ['--live'] : []),
    ]);
  }

  /** Removes the machine's static DHCP entries (found by its name, the ref) after its domain is gone. */
  async function releaseAddresses(ref: string): Promise<void> {
    for (const network of [s.network.name, ...(s.publicNetwork ? [s.publicNetwork.name] : [])]) {
      await withLock(`network:${network}`, async () => {
        const xml = await virsh.maybe(['net-dumpxml', '--inactive', network]);
        const own = xml && staticHosts(xml).find((h) => h.name === ref);
        if (!own) return;
        await updateStaticHost(network, 'delete', { mac: own.mac, name: ref, ip: own.ip });
      });
    }
  }

  async function waitForLease(ref: string): Promise<string> {
    const until = Date.now() + s.bootTimeoutMs;
    for (;;) {
      const ip = await leaseIp(ref);
      if (ip) return ip;
      if (Date.now() >= until)
        throw new TransientProviderError(`${ref} got no DHCP lease on ${s.network.name} within ${s.bootTimeoutMs} ms`);
      await sleep(500);
    }
  }

  async function volBytes(vol: string): Promise<number | null> {
    const out = await virsh.maybe(['vol-info', '--bytes', '--pool', pool, vol]);
    if (out === null) return null;
    return Number(/^Capacity:\s+(\d+)/m.exec(out)?.[1] ?? 0);
  }

  async function readConsole(ref: string, bytes = 64 * 1024): Promise<string> {
    const vol = volumes(ref).log;
    await virsh.run(['pool-refresh', pool]);
    const size = await volBytes(vol);
    if (!size) return '';
    const offset = Math.max(0, size - bytes);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-console-'));
    try {
      const file = path.join(dir, 'log');
      await virsh.run([
        'vol-download',
        '--pool',
        pool,
        vol,
        file,
        '--offset',
        String(offset),
        '--length',
        String(size - offset),
      ]);
      let text = (await readFile(file)).toString('utf8');
      if (offset > 0) text = text.slice(text.indexOf('\n') + 1);
      // Serial output ends lines with CR LF; the portal shows plain text.
      return text.replace(/\r/g, '');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * Asks the guest to power off and waits up to `ms`, then destroys it. With an agent, its `guest-shutdown` first (a
   * guest's own shutdown, whatever its ACPI handling); then the ACPI power button every `stopRepeatMs`: a guest still
   * booting ignores a press (systemd before logind is up), so one press left a stop during boot waiting out the timeout.
   */
  async function stopGracefully(ref: string, ms: number) {
    if (!isRunning(await domState(ref))) return;
    const until = Date.now() + ms;
    const off = (st: string | null) => !isRunning(st);
    const acpi = () => virsh.run(['shutdown', ref, '--mode', 'acpi']).catch((e) => ignoreIf(e, /not running/i));
    const byAgent =
      readyWhen === 'agent' &&
      (await virsh.run(['shutdown', ref, '--mode', 'agent'], { timeoutMs: 15_000 }).then(
        () => true,
        () => false,
      ));
    if (!byAgent) await acpi();
    for (;;) {
      if (await waitForState(ref, off, Math.max(0, Math.min(s.stopRepeatMs, until - Date.now())))) return;
      if (Date.now() >= until) break;
      await acpi();
    }
    await destroy(ref);
  }

  /** One guest agent command: its `return`, or the error libvirt reported (an unreachable host throws). */
  async function agentCommand(
    ref: string,
    command: Record<string, unknown>,
  ): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
    try {
      const out = await virsh.run(['qemu-agent-command', ref, '--timeout', '5', JSON.stringify(command)], {
        timeoutMs: 20_000,
      });
      return { ok: true, value: (JSON.parse(out) as { return?: unknown }).return };
    } catch (e) {
      if (e instanceof VirshError) return { ok: false, error: e.stderr };
      if (e instanceof SyntaxError) return { ok: false, error: 'the guest agent gave no JSON' };
      throw e;
    }
  }

  /**
   * Whether a file exists in the guest, through the agent (open and close: no process in the guest). 'refused': the
   * agent does not allow file access (RHEL/Rocky's default blocklist), 'down': it stopped answering.
   */
  async function guestFileExists(ref: string, file: string): Promise<boolean | 'refused' | 'down'> {
    const open = await agentCommand(ref, { execute: 'guest-file-open', arguments: { path: file, mode: 'r' } });
    if (open.ok) {
      if (typeof open.value === 'number')
        await agentCommand(ref, { execute: 'guest-file-close', arguments: { handle: open.value } });
      return true;
    }
    if (/No such file or directory/i.test(open.error)) return false;
    return AGENT_NOT_UP_RE.test(open.error) ? 'down' : 'refused';
  }

  /**
   * `readyWhen: agent`, one look: the agent answers `guest-ping`, and cloud-init's last stage of this boot is over
   * (its /run/cloud-init/result.json exists; the agent alone answers about a minute before SSH on the Debian image).
   * Checked as files through the agent, never by running `cloud-init status` in the guest: under TCG on a loaded host
   * that Python process took over a minute. An agent that refuses file access, or a guest without cloud-init: ready
   * at the ping.
   */
  async function agentReady(ref: string): Promise<boolean> {
    if (!(await agentCommand(ref, { execute: 'guest-ping' })).ok) return false;
    const done = await guestFileExists(ref, CLOUD_INIT_DONE);
    if (done !== false) return done !== 'down';
    const installed = await guestFileExists(ref, CLOUD_INIT_BINARY);
    return installed === false;
  }

  /**
   * After a power-on: tells the caller the guest is booting (`onBooting`: the VM shows Starting), then waits until it
   * is ready by `readyWhen`. Throws GuestNotReadyError when the boot timeout passes (the machine left running) or the
   * machine powers off meanwhile (its guest shut itself down).
   */
  async function waitUntilReady(ref: string, opts: BootOptions | undefined): Promise<void> {
    await opts?.onBooting?.();
    await waitForGuest({
      ready: async () => (readyWhen === 'agent' ? agentReady(ref) : (await leaseIp(ref)) !== null),
      running: async () => isRunning(await domState(ref)),
      timeoutMs: s.bootTimeoutMs,
      pauseMs: readyWhen === 'agent' ? 2000 : 0,
    });
  }

  // ---- moves between hosts (move.ts): this host at either end; the caller holds the machine's lock --------------

  const snapshotHost: SnapshotHost = { virsh, pool, diskVolume: (ref) => volumes(ref).disk };
  const backupHost: BackupHost = {
    virsh,
    virshBinary: s.virshBinary,
    pool,
    diskVolume: (ref) => volumes(ref).disk,
    backupPool,
    state: domState,
    isRunning,
    stop: (ref) => stopGracefully(ref, s.stopTimeoutMs),
    async start(ref) {
      const state = await domState(ref);
      if (state === 'paused') await virsh.run(['resume', ref]);
      else if (!isRunning(state)) await virsh.run(['start', ref]).catch((e) => ignoreIf(e, /already active/i));
    },
    configuredDiskBytes: async (ref) => guestSize(await mustMeta(ref)).diskBytes,
    timeoutMs: s.backupTimeoutMs,
  };
  const verifyHost: VerifyHost = {
    virsh,
    backup: backupHost,
    pool,
    domainType: s.domainType,
    machine: s.machine,
    network: s.verifyNetwork ?? {
      name: `${s.network.name}-verify`.slice(0, 64),
      bridge: `${s.network.bridge.slice(0, 14)}v`,
      cidr: '10.231.255.0/24',
    },
    ramMib: s.verifyRamMib,
    bootTimeoutMs: s.verifyBootTimeoutMs ?? s.bootTimeoutMs,
    readyWhen,
    agent: agentCommand,
  };
  const moveEndpoint: MoveEndpoint = {
    label: s.uri,
    virsh,
    virshBinary: s.virshBinary,
    pool,
    copyTimeoutMs: s.moveCopyTimeoutMs,
    prepare: async () => void (await host()),
    meta: mustMeta,
    leasedAddress: (ref) => leaseIp(ref),
    state: domState,
    isDefined: async (ref) => (await virsh.maybe(['dumpxml', '--inactive', ref])) !== null,
    stop: (ref) => stopGracefully(ref, s.stopTimeoutMs),
    async start(ref) {
      const state = await domState(ref);
      if (state === 'paused') await virsh.run(['resume', ref]);
      else if (!isRunning(state)) await virsh.run(['start', ref]).catch((e) => ignoreIf(e, /already active/i));
    },
    async define(ref, meta) {
      const h = await host();
      await withXmlFile(definition(ref, meta, h), (f) => virsh.run(['define', f]));
    },
    async reserve(ref, meta) {
      if (meta.privateIp) await addStaticHost(s.network.name, ref, macForKey(meta.key), meta.privateIp);
      if (meta.publicIp && s.publicNetwork)
        await addStaticHost(s.publicNetwork.name, ref, publicMacForKey(meta.key), meta.publicIp);
    },
    release: (ref) => releaseAddresses(ref),
    async undefine(ref) {
      await virsh
        .run(['undefine', ref, '--managed-save', '--snapshots-metadata', '--checkpoints-metadata'])
        .catch((e) => {
          if (!isNotFound(e)) throw e;
        });
    },
    async deleteVolumes(ref) {
      await virsh.run(['pool-refresh', pool]);
      const v = volumes(ref);
      for (const vol of [v.disk, v.seed, v.log]) await virsh.maybe(['vol-delete', '--pool', pool, vol]);
      cpuSamples.delete(ref);
    },
    lock: withLock,
  };

  // ---- lifecycle events: one `virsh event --loop` per host, restarted when it ends -----------------------

  const listeners = new Set<(ref: string) => void>();
  let watcher: { kill(): void } | null = null;
  let restartTimer: NodeJS.Timeout | null = null;

  let connecting = false;
  function startWatcher() {
    if (watcher || restartTimer || connecting || listeners.size === 0) return;
    connecting = true;
    virsh.connectUri().then(
      (uri) => {
        connecting = false;
        if (!watcher && !restartTimer && listeners.size > 0) spawnWatcher(uri);
      },
      () => {
        // A refused host or address: try again later (its monitor records why).
        connecting = false;
        if (listeners.size > 0)
          restartTimer = setTimeout(() => ((restartTimer = null), startWatcher()), 10_000).unref();
      },
    );
  }
  function spawnWatcher(uri: string) {
    const args = ['-q', '-c', uri, 'event', '--loop', '--event', 'lifecycle'];
    let pid: number | null = null;
    let ended = false;
    const me = {
      kill() {
        ended = true;
        try {
          if (pid) process.kill(-pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      },
    };
    watcher = me;
    const onLine = (line: string) => {
      // event 'lifecycle' for domain 'irontech-…': Stopped Shutdown
      const ref = /for domain '?([^':\s]+)'?:/.exec(line)?.[1];
      if (ref && REF_RE.test(ref)) for (const l of listeners) l(ref);
    };
    const restart = () => {
      if (watcher !== me) return;
      watcher = null;
      // The host went away or virsh died: listen again in a moment (the reconciler covers the gap).
      if (listeners.size > 0) restartTimer = setTimeout(() => ((restartTimer = null), startWatcher()), 2000).unref();
    };
    const spawnHere = () => {
      const child = spawn(s.virshBinary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
      me.kill = () => child.kill();
      if (ended) child.kill();
      readline.createInterface({ input: child.stdout }).on('line', onLine);
      child.on('exit', restart);
      child.on('error', restart);
    };
    // Started by the spawn helper as the sessions are (spawner.ts, decision 0029): the host monitor's first check
    // starts one per host, and each spawn here would fork the portal on its event loop. In a process group of its
    // own: ending it ends ssh too.
    sharedSpawner()
      .spawn(s.virshBinary, args)
      .then(
        (child) => {
          pid = child.pid;
          if (ended) me.kill();
          let open = 2;
          const closed = () => {
            if (--open === 0) restart();
          };
          for (const sock of [child.io, child.err]) {
            sock.on('error', () => undefined);
            sock.once('close', closed);
          }
          // What it says on stderr is not read (as before: ignored).
          child.err.resume();
          readline.createInterface({ input: child.io }).on('line', onLine);
          child.io.resume();
        },
        (e: unknown) => {
          if (e instanceof SpawnHelperError && !ended) spawnHere();
          else restart();
        },
      );
  }

  return {
    kind: 'libvirt',

    close() {
      virsh.close();
    },

    watch(listener) {
      listeners.add(listener);
      startWatcher();
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0) return;
        if (restartTimer) clearTimeout(restartTimer);
        restartTimer = null;
        const child = watcher;
        watcher = null;
        child?.kill();
      };
    },

    create: (spec: MachineSpec, opts?: BootOptions) => {
      const ref = refForKey(spec.key);
      return withLock(ref, async (): Promise<CreatedMachine> => {
        const h = await host();
        const v = volumes(ref);
        const meta: MachineMeta = {
          key: spec.key,
          name: spec.name,
          image: spec.image,
          region: spec.region,
          cpu: spec.cpu,
          ramGb: spec.ramGb,
          diskGb: spec.diskGb,
          publicIp: s.publicNetwork || s.publicNat ? (spec.publicIp ?? null) : null,
          // Reserved before the first definition so the NAT mapping in it names the address the guest will get.
          privateIp: await reserveAddress(ref, macForKey(spec.key)),
        };
        // Each step is skipped when a previous attempt already did it, so a retried create ends in one machine.
        if ((await virsh.maybe(['dumpxml', '--inactive', ref])) === null) {
          if (spec.fromBackup) {
            // Restore as a new machine (backups.ts): its disk is a whole copy of the backup, grown to the size. Made
            // again on a retry (a copy an earlier attempt may have left half done), never trusted as it is.
            await diskFromBackup(backupHost, spec.fromBackup, v.disk, guestSize(meta).diskBytes);
          } else if ((await volBytes(v.disk)) === null) {
            const base = await baseVolume(spec.image, h);
            const basePath = (await virsh.run(['vol-path', '--pool', pool, base])).trim();
            const baseBytes = (await volBytes(base)) ?? 0;
            const bytes = Math.max(guestSize(meta).diskBytes, baseBytes);
            // Another API process may have made it a moment ago (same key, same name): that disk is this machine's.
            // A version 3 qcow2 (volumeXml): it can hold the dirty bitmaps of incremental backups (backups.ts).
            await withXmlFile(volumeXml(v.disk, bytes, 'qcow2', { path: basePath, format: 'qcow2' }), (f) =>
              virsh.run(['vol-create', '--pool', pool, f]),
            ).catch((e) => ignoreIf(e, /already exists|exists already/i));
          }
          const iso = await buildSeedIso({
            instanceId: spec.instanceId ?? ref,
            hostname: guestHostname(spec.name),
            user: spec.username || s.guestUser,
            password: spec.password,
            publicKey: spec.publicKey,
            authorizedKeys: spec.authorizedKeys,
            userData: spec.userData,
            macs: [macForKey(spec.key), ...(meta.publicIp && s.publicNetwork ? [publicMacForKey(spec.key)] : [])],
          });
          await uploadVolume(v.seed, iso);
          await withXmlFile(definition(ref, meta, h), (f) => virsh.run(['define', f]));
        }
        if (meta.publicIp && s.publicNetwork)
          await addStaticHost(s.publicNetwork.name, ref, publicMacForKey(spec.key), meta.publicIp);
        const state = await domState(ref);
        if (state === 'paused') await virsh.run(['resume', ref]);
        else if (!isRunning(state)) await virsh.run(['start', ref]).catch((e) => ignoreIf(e, /already active/i));
        try {
          await waitUntilReady(ref, opts);
        } catch (e) {
          // The machine exists and runs (or its guest powered it off): the VM keeps it, with the reason.
          if (e instanceof GuestNotReadyError)
            throw new GuestNotReadyError(e.message, {
              ref,
              publicIp: meta.publicIp ?? null,
              privateIp: meta.privateIp ?? null,
            });
          throw e;
        }
        const privateIp = await waitForLease(ref);
        return { ref, publicIp: meta.publicIp ?? null, privateIp };
      });
    },

    start: (ref, opts) =>
      withLock(ref, async () => {
        await mustMeta(ref);
        const state = await domState(ref);
        if (state === 'paused') await virsh.run(['resume', ref]);
        else if (!isRunning(state)) await virsh.run(['start', ref]).catch((e) => ignoreIf(e, /already active/i));
        await waitUntilReady(ref, opts);
      }),

    stop: (ref) =>
      withLock(ref, async () => {
        await mustMeta(ref);
        await stopGracefully(ref, s.stopTimeoutMs);
      }),

    forceStop: (ref) =>
      withLock(ref, async () => {
        await mustMeta(ref);
        if (isRunning(await domState(ref))) await destroy(ref);
      }),

    reset: (ref, opts) =>
      withLock(ref, async () => {
        await mustMeta(ref);
        // A machine that is off is powered on: the portal only offers reset on running machines anyway.
        if (!isRunning(await domState(ref))) await virsh.run(['start', ref]);
        else await virsh.run(['reset', ref]);
        await waitUntilReady(ref, opts);
      }),

    resize: (ref, size) =>
      withDiskLock(ref, async () => {
        const h = await host();
        const meta: MachineMeta = { ...(await mustMeta(ref)), cpu: size.cpu, ramGb: size.ramGb, diskGb: size.diskGb };
        // The persistent definition changes now; a running guest gets its new vCPUs and memory at its next power-on.
        await withXmlFile(definition(ref, meta, h), (f) => virsh.run(['define', f]));
        const v = volumes(ref);
        const want = guestSize(meta).diskBytes;
        const have = (await volBytes(v.disk)) ?? 0;
        // Disks only grow: shrinking would cut the guest's file systems.
        if (want > have) {
          if (isRunning(await domState(ref))) await virsh.run(['blockresize', ref, 'vda', `${want}B`]);
          else await virsh.run(['vol-resize', '--pool', pool, v.disk, `${want}B`]);
        }
      }),

    delete: (ref) =>
      withLock(ref, async () => {
        checkRef(ref);
        await host();
        if ((await domState(ref)) !== null) {
          // A moment for a clean shutdown lets the guest release its DHCP lease.
          await stopGracefully(ref, s.deleteGraceMs);
          await virsh
            .run(['undefine', ref, '--managed-save', '--snapshots-metadata', '--checkpoints-metadata'])
            .catch((e) => {
              if (!isNotFound(e)) throw e;
            });
        }
        const v = volumes(ref);
        await releaseAddresses(ref);
        await virsh.run(['pool-refresh', pool]);
        for (const vol of [v.disk, v.seed, v.log]) await virsh.maybe(['vol-delete', '--pool', pool, vol]);
        cpuSamples.delete(ref);
      }),

    async status(ref): Promise<MachineState> {
      if (!REF_RE.test(ref)) return 'missing';
      const state = await domState(ref);
      return state === null ? 'missing' : machineStateOf(state);
    },

    // Every domain's state in one virsh process and one libvirt call (virConnectGetAllDomainStats): `list --all`
    // would ask the daemon once per domain, a round trip each over qemu+ssh.
    async statusAll() {
      return parseDomainStates(await virsh.run(['domstats', '--state']));
    },

    // The same one call with each running domain's counters (the engine's metrics sample): still one process.
    async sampleAll() {
      return parseDomainSample(await virsh.run(['domstats', ...SAMPLE_GROUPS]));
    },

    async usage(ref): Promise<Usage> {
      checkRef(ref);
      const out = await virsh.maybe(['domstats', ref, '--cpu-total', '--balloon', '--vcpu']);
      if (out === null || !/cpu\.time=/.test(out)) return { cpuPercent: 0, ramUsedGb: 0 };
      const stat = (k: string) =>
        Number(new RegExp(`^\\s*${k.replace('.', '\\.')}=(\\d+)`, 'm').exec(out)?.[1] ?? Number.NaN);
      const cpuNs = stat('cpu.time');
      const vcpus = stat('vcpu.current') || 1;
      const now = Date.now();
      const prev = cpuSamples.get(ref);
      cpuSamples.set(ref, { cpuNs, at: now });
      // The first look has nothing to compare with: it reports 0 rather than a lifetime average.
      const raw =
        prev && now > prev.at && cpuNs >= prev.cpuNs ? ((cpuNs - prev.cpuNs) / 1e6 / (now - prev.at) / vcpus) * 100 : 0;
      const cpuPercent = Math.round(Math.min(100, Math.max(0, raw)) * 10) / 10;
      // With the guest's balloon driver: what the guest uses; without: what the QEMU process holds.
      const available = stat('balloon.available');
      const unused = stat('balloon.unused');
      const usedKb = Number.isFinite(available) && Number.isFinite(unused) ? available - unused : stat('balloon.rss');
      const ramUsedGb = Number.isFinite(usedKb) ? Math.round((usedKb / 1024 / 1024) * 100) / 100 : 0;
      return { cpuPercent, ramUsedGb };
    },

    async console(ref) {
      await mustMeta(ref);
      return readConsole(ref);
    },

    async consoleChannels(ref) {
      await mustMeta(ref);
      return libvirtConsoleChannels(ref, { virsh, virshBinary: s.virshBinary });
    },

    privateIp: (ref) => leaseIp(ref),

    moveEndpoint: () => moveEndpoint,
    moveTo: (ref, target, opts) => {
      checkRef(ref);
      return moveMachine(moveEndpoint, target, ref, opts);
    },

    // Snapshots (snapshots.ts): internal ones in the machine's qcow2, under its lock.
    snapshotTake(ref, name) {
      checkRef(ref);
      return withDiskLock(ref, () => takeSnapshot(snapshotHost, ref, name));
    },
    snapshotRevert(ref, name) {
      checkRef(ref);
      return withDiskLock(ref, () => revertSnapshot(snapshotHost, ref, name));
    },
    snapshotDelete(ref, name) {
      checkRef(ref);
      return withDiskLock(ref, () => deleteSnapshot(snapshotHost, ref, name));
    },

    // Backups (backups.ts): full or incremental qcow2 copies in the backup pool, outside the machine's disk chain.
    async backupTake(ref, name) {
      checkRef(ref);
      let taking: Promise<BackupInfo> | undefined;
      // The machine's lock is held until QEMU's push job has begun (decision 0025: a take never blocks the VM's other
      // actions longer than that): a stop or destroy after it goes ahead at once, and ends the job, so the take fails
      // with "The machine stopped during the backup"; what changes the disk waits for the copy (withDiskLock). A
      // powered-off take copies the disk itself: it keeps the lock to the end, so a start cannot open it mid-copy.
      await withDiskLock(ref, async () => {
        // The verification's marker (backup-verify.ts): written into a running guest with an agent before the copy
        // begins, recorded beside the backup once it is complete (none recorded: the verification says so).
        const marked =
          readyWhen === 'agent' && isRunning(await domState(ref)) && (await writeMarker(verifyHost, ref, name));
        let jobStarted = () => {};
        const started = new Promise<void>((resolve) => (jobStarted = resolve));
        taking = takeBackup(backupHost, ref, name, { onJobStarted: jobStarted }).then(async (info) => {
          await recordMarker(verifyHost, name, marked ? name : null).catch(() => undefined);
          return info;
        });
        const settled = taking.then(
          () => undefined,
          () => undefined,
        );
        takesInFlight.set(ref, settled);
        void settled.then(() => {
          if (takesInFlight.get(ref) === settled) takesInFlight.delete(ref);
        });
        await Promise.race([started, settled]);
      });
      return taking!;
    },
    async backupRestore(ref, name, opts) {
      checkRef(ref);
      await withDiskLock(ref, () => restoreBackup(backupHost, ref, name));
      // A machine that ran was started again on the restored disk: like a start, done when its guest is ready (issue
      // 23 item 4: Running means reachable; the libvirt-debian test's SSH found no route before this).
      if (isRunning(await domState(ref))) await waitUntilReady(ref, opts);
    },
    async backupDelete(name) {
      const deleted = await deleteBackup(backupHost, name);
      await deleteMarker(verifyHost, name);
      return deleted;
    },
    backupVerify: (name) => verifyBackup(backupHost, name),
    // Verification (backup-verify.ts): the copy's checks, then a throwaway machine booted from it in isolation.
    backupProve: (name) => proveBackup(verifyHost, name),

    // A reinstall (rebuild.ts): stop, undefine, volumes gone, then this driver's create from the new spec.
    rebuild(ref, spec, opts) {
      checkRef(ref);
      return rebuildMachine(moveEndpoint, (next, o) => this.create(next, o), ref, spec, opts);
    },

    async capacity() {
      await host();
      const node = await virsh.run(['nodeinfo']);
      const cpus = Number(/^CPU\(s\):\s+(\d+)/m.exec(node)?.[1] ?? 0);
      const memKib = Number(/^Memory size:\s+(\d+)\s*KiB/m.exec(node)?.[1] ?? 0);
      const poolInfo = await virsh.run(['pool-info', '--bytes', pool]);
      const capBytes = Number(/^Capacity:\s+(\d+)/m.exec(poolInfo)?.[1] ?? 0);
      return { cpus, ramGb: Math.floor((memKib / 1024 / 1024) * 10) / 10, diskGb: Math.floor(capBytes / 1024 ** 3) };
    },

    async images() {
      // Images the settings map to base volumes that exist in the pool, and the catalog's names the built guest serves.
      const h = await host();
      await virsh.run(['pool-refresh', pool]);
      const vols = new Set(
        (await virsh.run(['vol-list', '--pool', pool]))
          .split('\n')
          .map((l) => l.trim().split(/\s+/)[0])
          .filter(Boolean),
      );
      const named = Object.entries(s.images)
        .filter(([, vol]) => vols.has(vol))
        .map(([image]) => image);
      return h.guestVolume && vols.has(h.guestVolume) ? [...new Set([...named, ...s.guestImages])] : named;
    },

    async health() {
      const detail: Record<string, unknown> = { uri: s.uri, pool, network: s.network.name };
      try {
        const version = await virsh.run(['version'], { timeoutMs: 30_000 });
        detail.hypervisor = /Running hypervisor:\s*(.+)/.exec(version)?.[1]?.trim() ?? null;
        const h = await host();
        detail.poolPath = h.poolPath;
        detail.guestVolume = h.guestVolume;
        const domains = (await virsh.run(['list', '--all', '--name'])).split('\n').filter((n) => REF_RE.test(n.trim()));
        const running = (await virsh.run(['list', '--state-running', '--name']))
          .split('\n')
          .filter((n) => REF_RE.test(n.trim()));
        detail.machines = domains.length;
        detail.running = running.length;
        return { healthy: true, detail };
      } catch (e) {
        // Refused before connecting (the host's URI or address): the caller says why, nothing ran.
        if (e instanceof HostRefusedError || (e as { code?: unknown }).code === 'EEGRESS') throw e;
        detail.error = (e as Error).message;
        return { healthy: false, detail };
      }
    },
  };
}
