/**
 * Private libvirtd daemons in namespaces of their own, for tests that need hosts that really are two (a move between
 * hosts: docs/draining.md). libvirt keeps its QEMU state in the system directories whatever its config says
 * (libvirt-daemon.ts: only one such daemon per machine), so each of these runs in a mount namespace of its own, where /run/libvirt, /var/lib/libvirt,
 * /var/cache/libvirt, /var/log/libvirt and /etc/libvirt are private directories (its /etc/libvirt a copy of the
 * packaged one without any storage, network or domain definitions), and in a network namespace of its own: its NAT
 * network, bridge, dnsmasq and firewall rules are apart from the first daemon's, with the same names and addresses,
 * as on a second machine. `binds` make a path another directory for this daemon (a pool directory: the same path on
 * every host, as a provider's settings name it). It is reached through its unix socket (the rest of the file system
 * is shared); `inNetns` runs a command in its network namespace (SSH to its guests). Nothing is shared with the
 * system daemon of libvirt-daemon.ts or its lock: such daemons run beside it.
 */
import { execFile, spawn } from 'node:child_process';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { daemonFiles, killAndWait, removeTestObjects, type TestObjects } from './libvirt-daemon.ts';
import { ownGuestGroup, removeOwnGuestGroup } from './guest-weight.ts';
import { readPid } from './pid-alive.ts';

const execFileP = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The system directories the daemon gets private copies of (the tree of directories only; /etc/libvirt whole). */
const PRIVATE_DIRS = ['/run/libvirt', '/var/lib/libvirt', '/var/cache/libvirt', '/var/log/libvirt'];

export interface NamespacedLibvirtDaemon {
  socketUri: string;
  /** The daemon's pid (its namespaces are /proc/<pid>/ns/*). */
  pid: number;
  virsh(args: string[]): Promise<string>;
  /** Runs a command in the daemon's network namespace. */
  inNetns(command: string, args: string[], opts?: { timeout?: number }): Promise<string>;
  stop(cleanup: TestObjects): Promise<void>;
}

/** The directory tree (no files) of `from` under `to`, with the same modes and owners. */
async function copyTree(from: string, to: string) {
  const { stdout } = await execFileP('find', [from, '-xdev', '-type', 'd', '-printf', '%P\t%m\t%u\t%g\n']);
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [rel, mode, user, group] = line.split('\t') as [string, string, string, string];
    const dir = path.join(to, rel);
    await mkdir(dir, { recursive: true });
    await execFileP('chmod', [mode, dir]);
    await execFileP('chown', [`${user}:${group}`, dir]);
  }
}

/** Starts one in `dir` (wiped first; a daemon a crashed run left there is ended). */
export async function startNamespacedLibvirtDaemon(
  dir: string,
  opts: {
    binds?: { from: string; over: string }[];
    /**
     * The machine's own network namespace instead of one of its own: its networks' bridges, dnsmasq and NAT rules sit
     * beside the other daemons' (so their names and addresses must differ), and the tests and the portal reach its
     * guests directly. For a test that only needs a daemon apart from libvirt-daemon.ts's lock (libvirt-debian).
     */
    hostNetwork?: boolean;
    /**
     * Its guests in a cpu group of their own, weighed apart from the shared `machine` group (guest-weight.ts
     * `ownGuestGroup`; cgroup v1 as root, else they stay in `machine`): the group is bound over the cpu hierarchy in
     * the daemon's mount namespace, so libvirt makes its `/machine` partition inside it.
     */
    ownCpuGroup?: string;
  } = {},
): Promise<NamespacedLibvirtDaemon> {
  const files = daemonFiles(dir);
  // A daemon left by a crashed run is ended first (its namespaces go with its last process).
  await killAndWait(files.libvirtdPid);
  await killAndWait(files.virtlogdPid);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const sockDir = path.join(dir, 'sock');
  await mkdir(sockDir);
  const mounts: { from: string; over: string }[] = [];
  for (const system of PRIVATE_DIRS) {
    const own = path.join(dir, 'sys', system.replaceAll('/', '_'));
    await mkdir(own, { recursive: true });
    if (system !== '/run/libvirt') await copyTree(system, own);
    mounts.push({ from: own, over: system });
  }
  const etc = path.join(dir, 'sys', 'etc');
  await execFileP('cp', ['-a', '/etc/libvirt', etc]);
  // The packaged configuration only: no pool, network or domain the first daemon defined.
  await execFileP('sh', [
    '-c',
    `rm -rf "${etc}"/storage/*.xml "${etc}"/storage/autostart "${etc}"/qemu/*.xml "${etc}"/qemu/autostart "${etc}"/qemu/networks/*.xml "${etc}"/qemu/networks/autostart`,
  ]);
  if (opts.hostNetwork) {
    // Ports on the machine's loopback are shared with the other daemons: QEMU's VNC and its websocket from ranges of
    // their own (each daemon hands out ports from the bottom of its ranges: 5900 and 5700 by default).
    await appendFile(
      path.join(etc, 'qemu.conf'),
      [
        'remote_display_port_min = 6900',
        'remote_display_port_max = 6999',
        'remote_websocket_port_min = 5800',
        'remote_websocket_port_max = 5899',
        'migration_port_min = 49300',
        'migration_port_max = 49399',
        '',
      ].join('\n'),
    );
  }
  mounts.push({ from: etc, over: '/etc/libvirt' });
  const cpuGroup = opts.ownCpuGroup ? await ownGuestGroup(opts.ownCpuGroup) : null;
  if (cpuGroup) mounts.push({ from: cpuGroup, over: '/sys/fs/cgroup/cpu' });
  for (const b of opts.binds ?? []) {
    await mkdir(b.from, { recursive: true, mode: 0o755 });
    await mkdir(b.over, { recursive: true, mode: 0o755 });
    mounts.push(b);
  }
  await writeFile(
    files.libvirtdConf,
    [
      `unix_sock_dir = "${sockDir}"`,
      'unix_sock_ro_perms = "0777"',
      'unix_sock_rw_perms = "0700"',
      'auth_unix_ro = "none"',
      'auth_unix_rw = "none"',
      'listen_tls = 0',
      'listen_tcp = 0',
      `log_outputs = "3:file:${path.join(dir, 'libvirtd.log')}"`,
      '',
    ].join('\n'),
  );
  await writeFile(files.virtlogdConf, `log_outputs = "3:file:${path.join(dir, 'virtlogd.log')}"\n`);
  const script = [
    'set -e',
    // A daemon's umask, not the test process's (libvirt-daemon.ts asDaemon says why).
    'umask 022',
    ...mounts.map((m) => `mount --bind '${m.from}' '${m.over}'`),
    ...(opts.hostNetwork ? [] : ['ip link set lo up']),
    `/usr/sbin/virtlogd -d -f '${files.virtlogdConf}' -p '${files.virtlogdPid}'`,
    `/usr/sbin/libvirtd -d -f '${files.libvirtdConf}' -p '${files.libvirtdPid}'`,
  ].join('\n');
  await new Promise<void>((resolve, reject) => {
    const namespaces = opts.hostNetwork ? ['--mount'] : ['--mount', '--net'];
    const child = spawn('unshare', [...namespaces, '--propagation', 'private', 'sh', '-c', script], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`the namespaced libvirtd did not start (${code}): ${err.trim()}`)),
    );
  });

  const socketUri = `qemu:///system?socket=${path.join(sockDir, 'libvirt-sock')}`;
  const virsh = async (args: string[]) =>
    (await execFileP('virsh', ['-q', '-c', socketUri, ...args], { timeout: 120_000 })).stdout;
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await virsh(['version']);
      break;
    } catch (e) {
      if (Date.now() > until)
        throw new Error(`the namespaced libvirtd did not answer: ${(e as Error).message}; see ${dir}/libvirtd.log`, {
          cause: e,
        });
      await sleep(200);
    }
  }
  const pid = (await readPid(files.libvirtdPid))!;

  return {
    socketUri,
    pid,
    virsh,
    async inNetns(command, args, o = {}) {
      return (
        await execFileP('nsenter', [`--net=/proc/${pid}/ns/net`, command, ...args], { timeout: o.timeout ?? 30_000 })
      ).stdout;
    },
    async stop(cleanup) {
      try {
        await removeTestObjects(virsh, cleanup);
      } finally {
        await killAndWait(files.libvirtdPid);
        await killAndWait(files.virtlogdPid);
        if (cpuGroup) await removeOwnGuestGroup(cpuGroup);
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    },
  };
}
