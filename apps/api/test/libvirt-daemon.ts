/**
 * Starts a private `virtlogd` and `libvirtd` for tests (as root, no systemd needed): their own config,
 * sockets, pid and log files under one directory, libvirtd listening on a unix socket and on 127.0.0.1 over
 * plain TCP (auth none), so one daemon is reachable as two "hosts": `qemu:///system?socket=…` and
 * `qemu+tcp://127.0.0.1:<port>/system`. libvirt keeps its QEMU driver state in the system directories
 * (/run/libvirt, /var/lib/libvirt, /etc/libvirt) whatever the config says, so only one such daemon can run
 * on a machine: a lock file makes a second test process (e.g. the api-postgres project) wait its turn.
 *
 * `stop()` destroys and undefines every machine, network and pool the tests made (names given to it), then
 * ends both daemons. Domains and networks would otherwise outlive libvirtd (QEMU and dnsmasq keep running).
 *
 * The repository's 1:1 NAT hook (scripts/libvirt-hooks/qemu) is installed as /etc/libvirt/hooks/qemu.d/irontech-nat
 * before libvirtd starts (libvirt looks for hooks there, whatever the config, and only at start) and removed after.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pidAlive, readPid } from './pid-alive.ts';

import { freePort } from './free-port.ts';
import { weighGuestsForNow } from './guest-weight.ts';

const execFileP = promisify(execFile);

/** Spawns with the umask a daemon started by init has (022), then restores this process's own. */
export function asDaemon<T>(spawnIt: () => Promise<T>): Promise<T> {
  const previous = process.umask(0o022);
  try {
    // The child takes the umask at spawn, which happens synchronously inside spawnIt: restored before any await.
    return spawnIt();
  } finally {
    process.umask(previous);
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const LIBVIRT_TEST_DIR = '/tmp/irontech-libvirtd';
/**
 * How long the tests on the busybox fixture (`guestImage: 'test-fixture'`) give a boot: seconds alone, but a whole run
 * on a slow 2-core CI machine starved one past 120 s beside the browser tests (stop 39).
 */
export const FIXTURE_BOOT_TIMEOUT_MS = 300_000;
const LOCK_FILE = '/tmp/irontech-libvirtd.lock';
const NAT_HOOK = fileURLToPath(new URL('../../../scripts/libvirt-hooks/qemu', import.meta.url));
export const NAT_HOOK_INSTALLED = '/etc/libvirt/hooks/qemu.d/irontech-nat';

export interface LibvirtDaemon {
  /** The local unix socket. */
  socketUri: string;
  /** Its path (a `qemu+ssh://…?proxy=netcat&socket=…` URI reaches the daemon through it). */
  socketPath: string;
  /** The same daemon over TCP on loopback (a second "host"). */
  tcpUri: string;
  dir: string;
  virsh(uri: string, args: string[]): Promise<string>;
  stop(cleanup: TestObjects): Promise<void>;
}

/** What a test's daemon held: its domains (by name pattern), networks and pools, removed best-effort before it stops. */
export interface TestObjects {
  domainPattern: RegExp;
  networks: string[];
  pools: string[];
}

/** Destroys and undefines a test's domains, networks and pools; each step's failure is ignored (already gone). */
export async function removeTestObjects(virsh: (args: string[]) => Promise<string>, cleanup: TestObjects) {
  const quiet = (args: string[]) => virsh(args).catch(() => '');
  for (const name of (await quiet(['list', '--all', '--name'])).split('\n').map((n) => n.trim())) {
    if (!cleanup.domainPattern.test(name)) continue;
    await quiet(['destroy', name]);
    await quiet(['undefine', name, '--managed-save', '--snapshots-metadata', '--checkpoints-metadata']);
  }
  for (const n of cleanup.networks) {
    await quiet(['net-destroy', n]);
    await quiet(['net-undefine', n]);
  }
  for (const p of cleanup.pools) {
    await quiet(['pool-destroy', p]);
    await quiet(['pool-undefine', p]);
  }
}

/** A test daemon pair's config and pid files in `dir`. */
export function daemonFiles(dir: string) {
  return {
    libvirtdConf: path.join(dir, 'libvirtd.conf'),
    virtlogdConf: path.join(dir, 'virtlogd.conf'),
    libvirtdPid: path.join(dir, 'libvirtd.pid'),
    virtlogdPid: path.join(dir, 'virtlogd.pid'),
  };
}

/** Stops the daemon whose pid file this is: SIGTERM, then SIGKILL after 10 s (a zombie counts as gone). */
export async function killAndWait(pidFile: string) {
  const pid = await readPid(pidFile);
  if (pid === null) return;
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && pidAlive(pid) && !(await isZombie(pid)); i++) await sleep(100);
  if (pidAlive(pid) && !(await isZombie(pid))) process.kill(pid, 'SIGKILL');
}

async function isZombie(pid: number): Promise<boolean> {
  try {
    const st = await readFile(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

/** One test process at a time: waits for a live holder, takes over from a dead one. */
async function lock(timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fh = await open(LOCK_FILE, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number.parseInt(await readFile(LOCK_FILE, 'utf8').catch(() => ''), 10);
    if (!Number.isInteger(holder) || !pidAlive(holder) || (await isZombie(holder)))
      await rm(LOCK_FILE, { force: true });
    else if (Date.now() > until) throw new Error(`another test process (${holder}) holds ${LOCK_FILE}`);
    else await sleep(500);
  }
}

export async function startLibvirtDaemon(): Promise<LibvirtDaemon> {
  if (process.getuid?.() !== 0) throw new Error('the libvirt tests start libvirtd and must run as root');
  for (const bin of ['/usr/sbin/libvirtd', '/usr/sbin/virtlogd', '/usr/bin/virsh']) {
    if (!existsSync(bin))
      throw new Error(
        `${bin} is missing: run .ci/run (apt-get install --no-install-recommends libvirt-daemon-system libvirt-clients)`,
      );
  }
  await lock(30 * 60_000);
  const dir = LIBVIRT_TEST_DIR;
  const sockDir = path.join(dir, 'sock');
  const files = daemonFiles(dir);
  // A daemon left by a crashed run is ended first.
  await killAndWait(files.libvirtdPid);
  await killAndWait(files.virtlogdPid);
  await mkdir(sockDir, { recursive: true });
  // QEMU runs as libvirt-qemu and must reach the pool below this directory.
  await chmod(dir, 0o755);
  const port = await freePort();
  await writeFile(
    files.libvirtdConf,
    [
      `unix_sock_dir = "${sockDir}"`,
      'unix_sock_ro_perms = "0777"',
      'unix_sock_rw_perms = "0700"',
      'auth_unix_ro = "none"',
      'auth_unix_rw = "none"',
      'listen_tls = 0',
      'listen_tcp = 1',
      'listen_addr = "127.0.0.1"',
      `tcp_port = "${port}"`,
      'auth_tcp = "none"',
      `log_outputs = "3:file:${path.join(dir, 'libvirtd.log')}"`,
      '',
    ].join('\n'),
  );
  await mkdir(path.dirname(NAT_HOOK_INSTALLED), { recursive: true });
  await copyFile(NAT_HOOK, NAT_HOOK_INSTALLED);
  await chmod(NAT_HOOK_INSTALLED, 0o755);
  await writeFile(files.virtlogdConf, `log_outputs = "3:file:${path.join(dir, 'virtlogd.log')}"\n`);
  await weighGuestsForNow();
  // A daemon started by init runs with umask 022. The test process may carry the portal's 077 (secureDataDir: a
  // global setup that opened an on-disk PGlite), and libvirtd would pass it on: dnsmasq (user nobody) could then not
  // read the network's static DHCP hosts file and would hand out dynamic addresses.
  await asDaemon(() => execFileP('/usr/sbin/virtlogd', ['-d', '-f', files.virtlogdConf, '-p', files.virtlogdPid]));
  await asDaemon(() =>
    execFileP('/usr/sbin/libvirtd', ['-d', '--listen', '-f', files.libvirtdConf, '-p', files.libvirtdPid]),
  );

  const socketPath = path.join(sockDir, 'libvirt-sock');
  const socketUri = `qemu:///system?socket=${socketPath}`;
  const tcpUri = `qemu+tcp://127.0.0.1:${port}/system`;
  const virsh = async (uri: string, args: string[]) =>
    (await execFileP('virsh', ['-q', '-c', uri, ...args], { timeout: 120_000 })).stdout;
  // The first call waits for libvirt's capability probe (about 8 s).
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await virsh(socketUri, ['version']);
      break;
    } catch (e) {
      if (Date.now() > until)
        throw new Error(`libvirtd did not answer: ${(e as Error).message}; see ${dir}/libvirtd.log`, { cause: e });
      await sleep(200);
    }
  }
  // A run killed mid-way (or a teardown that timed out) leaves its machines running and its network defined in
  // libvirt's system directories, where the next daemon finds them. A leftover machine has the name a new test's
  // machine of the same key gets (a fresh database numbers VMs alike), so that test's create would adopt it, on a
  // network since made again (its port gone): it never becomes reachable. A later network of the same bridge or
  // subnet cannot start either. Only one test daemon runs at a time (the lock), so whatever of ours it holds at its
  // start is a leftover: the tests' machines (irontech-<hex>, and a backup verification's irontech-verify-<hex>) and
  // networks (irontest…, a bench's iron…/fleetbench).
  const ours = /^(irontech-[0-9a-f]{20}$|irontech-verify-[0-9a-f]{16}$|irontest|ironsnap|irontime|fleetbench)/;
  const leftoverNetworks = (await virsh(socketUri, ['net-list', '--all', '--name']))
    .split('\n')
    .map((n) => n.trim())
    .filter((n) => ours.test(n));
  await removeTestObjects((args) => virsh(socketUri, args), {
    domainPattern: ours,
    networks: leftoverNetworks,
    pools: [],
  });

  return {
    socketUri,
    socketPath,
    tcpUri,
    dir,
    virsh,
    async stop(cleanup) {
      try {
        await removeTestObjects((args) => virsh(socketUri, args), cleanup);
      } finally {
        await killAndWait(files.libvirtdPid);
        await killAndWait(files.virtlogdPid);
        await rm(NAT_HOOK_INSTALLED, { force: true });
        await rm(LOCK_FILE, { force: true });
      }
    },
  };
}
