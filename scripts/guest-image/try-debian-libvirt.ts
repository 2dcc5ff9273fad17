/**
 * The Debian 12 guest through the real libvirt driver (domain type qemu: TCG) on the tests' private libvirtd:
 * create (its own disk at the size asked, the NoCloud seed with a key, the agent channel) → SSH with the key;
 * /etc/os-release, apt-get, `df /` grown to the disk, `virsh qemu-agent-command … guest-ping`; ACPI stop; delete.
 * Prints the times. As root, with libvirtd, QEMU and build-debian.sh's packages:
 *   node --import tsx scripts/guest-image/try-debian-libvirt.ts
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLibvirtDriver } from '../../apps/api/src/providers/libvirt/libvirt.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../../apps/api/test/libvirt-daemon.ts';

const run = promisify(execFile);
const POOL = 'irontest-debian';
const NETWORK = 'irontest-debian';
const DISK_GB = 3;

const daemon = await startLibvirtDaemon();
const dir = await mkdtemp(path.join(os.tmpdir(), 'try-debian-libvirt-'));
let failed = false;
const check = (name: string, ok: boolean, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  if (!ok) failed = true;
};
try {
  const key = path.join(dir, 'id');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const driver = createLibvirtDriver({
    uri: daemon.socketUri,
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
    network: { name: NETWORK, bridge: 'irontestd0', cidr: '10.231.85.0/24' },
    guestImage: 'debian-12',
    bootTimeoutMs: 900_000,
    stopTimeoutMs: 180_000,
  });
  let t = Date.now();
  await driver.health();
  console.log(`image built or found and uploaded: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  const created = await driver.create({
    key: `try-debian-${process.pid}`,
    name: 'Debian Try',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 1,
    diskGb: DISK_GB,
    region: 'local',
    username: 'root',
    publicKey: (await readFile(`${key}.pub`, 'utf8')).trim(),
    password: 'Try-Debian-1',
  });
  const ip = created.privateIp!;
  console.log(`create → DHCP lease ${ip}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const sshOpts = ['-i', key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null'];
  const sshOnce = async (cmd: string, connectS: number) =>
    (
      await run('ssh', [...sshOpts, '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectS}`, `root@${ip}`, cmd], {
        timeout: 120_000,
      })
    ).stdout.trim();
  // A slow TCG guest may miss a banner deadline (and cloud-init reloads sshd at its end): a check tries three times.
  const ssh = async (cmd: string, tries = 3): Promise<string> => {
    try {
      return await sshOnce(cmd, 30);
    } catch (e) {
      if (tries <= 1) throw e;
      await new Promise((r) => setTimeout(r, 2000));
      return ssh(cmd, tries - 1);
    }
  };
  for (;;) {
    try {
      await sshOnce('true', 5);
      break;
    } catch {
      if (Date.now() - t > 900_000) throw new Error('no SSH within 900 s');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  console.log(`create → SSH with the key: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await ssh('cloud-init status --wait >/dev/null 2>&1; true').catch(() => undefined);
  console.log(`create → cloud-init done: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  check('os-release says Debian 12', /VERSION_ID="12"/.test(await ssh('cat /etc/os-release')));
  check('apt-get --version runs', /^apt \d/.test(await ssh('apt-get --version | head -1')));
  check('hostname from the seed', (await ssh('hostname')) === 'debian-try');
  const rootKb = Number(await ssh('df -k --output=size / | tail -1'));
  check(`df / grown to the ${DISK_GB} GiB disk`, rootKb > DISK_GB * 1024 * 1024 * 0.9, `${rootKb} kB`);
  const ping = await daemon.virsh(daemon.socketUri, ['qemu-agent-command', created.ref, '{"execute":"guest-ping"}']);
  check('virsh qemu-agent-command guest-ping answers', /"return":\{\}/.test(ping.replace(/\s/g, '')), ping.trim());
  t = Date.now();
  await driver.stop(created.ref);
  const stopS = (Date.now() - t) / 1000;
  check(`ACPI stop (${stopS.toFixed(1)} s)`, (await driver.status(created.ref)) === 'stopped' && stopS < 175);
  await driver.delete(created.ref);
} finally {
  await daemon.stop({ domainPattern: /^irontech-/, networks: [NETWORK], pools: [POOL] });
  await rm(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
