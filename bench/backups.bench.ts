/**
 * Backups in the libvirt driver (issue 24's benchmark: "back up and restore a guest disk with about 1 GB written,
 * against `qemu-img convert` of the same disk to the same target (the limit) in the same run: goal ≥ 0.8× the limit's
 * throughput for a full backup"; decision 0022) on the busybox test fixture under the tests' private libvirtd.
 * BACKUP_WRITE_MB (1024) of data is written into the machine's 4 GiB disk (qemu-io on the powered-off qcow2), then per
 * round (BACKUP_ROUNDS, 3): the limit (qemu-img convert of the disk into the backup pool's directory), a powered-off
 * take, a running take, a restore in place; and the take's read-back (vol-download into a SHA-256) alone, to show
 * what of a take is the copy and what is the check. Prints medians and saves bench/results/backups-*.json.
 *   npm run bench:backups -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { backupVolumes, downloadVolume } from '../apps/api/src/providers/libvirt/backups.ts';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { REF_RE, refForKey, volumes } from '../apps/api/src/providers/libvirt/names.ts';
import { createVirsh } from '../apps/api/src/providers/libvirt/virsh.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';

const execFileP = promisify(execFile);
const POOL = 'ironbackup';
const BACKUP_POOL = `${POOL}-backups`;
const POOL_DIR = path.join(LIBVIRT_TEST_DIR, 'pool-backup');
const BACKUP_DIR = `${POOL_DIR}-backups`;
const NETWORK = 'ironbackup';
const ROUNDS = Number(process.env.BACKUP_ROUNDS ?? 3);
const WRITE_MB = Number(process.env.BACKUP_WRITE_MB ?? 1024);
const GOAL_RATIO = 0.8;

type Kind = 'limitConvert' | 'takeStopped' | 'takeRunning' | 'readBack' | 'restoreStopped';
const seconds: Record<Kind, number[]> = {
  limitConvert: [],
  takeStopped: [],
  takeRunning: [],
  readBack: [],
  restoreStopped: [],
};
let backupBytes = 0;

const daemon = await startLibvirtDaemon();
try {
  await rm(POOL_DIR, { recursive: true, force: true });
  await rm(BACKUP_DIR, { recursive: true, force: true });
  const driver = createLibvirtDriver({
    uri: daemon.socketUri,
    pool: { name: POOL, path: POOL_DIR },
    network: { name: NETWORK, bridge: 'ironbackup0', cidr: '10.231.90.0/24' },
    publicNat: false,
    guestImage: 'test-fixture',
    bootTimeoutMs: 180_000,
    stopTimeoutMs: 5_000,
  });
  const spec = {
    key: `backup-bench-${process.pid}`,
    name: 'backed-up',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 0.25,
    diskGb: 4,
    region: 'US East',
    username: 'root',
    publicKey: '',
    password: 'pw',
  };
  const ref = refForKey(spec.key);
  await driver.create(spec);
  await driver.forceStop(ref);
  const disk = path.join(POOL_DIR, volumes(ref).disk);
  // ~1 GB written, in 64 MiB pieces of distinct patterns (qcow2 stores them: no zero detection).
  for (let mb = 0; mb < WRITE_MB; mb += 64) {
    const len = Math.min(64, WRITE_MB - mb);
    await execFileP('qemu-io', ['-f', 'qcow2', '-c', `write -P ${(mb / 64) % 250} ${mb + 256}M ${len}M`, disk]);
  }
  const virsh = createVirsh(daemon.socketUri, 'virsh', 60_000);
  const time = async (kind: Kind, fn: () => Promise<unknown>) => {
    const t = Date.now();
    const out = await fn();
    seconds[kind].push((Date.now() - t) / 1000);
    console.log(`${kind.padEnd(14)} ${seconds[kind].at(-1)!.toFixed(2)} s`);
    return out;
  };
  for (let round = 0; round < ROUNDS; round++) {
    // The limit: the same disk flattened into the same directory by qemu-img itself (what vol-create-from runs).
    const limitFile = path.join(BACKUP_DIR, `limit-${round}.qcow2`);
    await driver.backupTake!(ref, `warm-${round}`); // makes the backup pool on the first round
    await driver.backupDelete!(`warm-${round}`);
    await time('limitConvert', () => execFileP('qemu-img', ['convert', '-O', 'qcow2', disk, limitFile]));
    await rm(limitFile, { force: true });
    const off = (await time('takeStopped', () => driver.backupTake!(ref, `off-${round}`))) as {
      sizeBytes: number | null;
    };
    backupBytes = off.sizeBytes ?? 0;
    await time('readBack', () =>
      downloadVolume(
        { virsh, virshBinary: 'virsh', timeoutMs: 600_000 },
        BACKUP_POOL,
        backupVolumes(`off-${round}`).data,
      ),
    );
    await daemon.virsh(daemon.socketUri, ['start', ref]);
    await time('takeRunning', () => driver.backupTake!(ref, `run-${round}`));
    await driver.forceStop(ref);
    await time('restoreStopped', () => driver.backupRestore!(ref, `off-${round}`));
    await driver.backupDelete!(`off-${round}`);
    await driver.backupDelete!(`run-${round}`);
  }
  await driver.delete(ref);
  driver.close?.();
} finally {
  await daemon.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL, BACKUP_POOL] });
  await rm(POOL_DIR, { recursive: true, force: true });
  await rm(BACKUP_DIR, { recursive: true, force: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const medians = Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, median(v)])) as Record<Kind, number>;
const ratio = (kind: Kind) => medians.limitConvert / medians[kind];
const result = {
  at: new Date().toISOString(),
  loadAverage: os.loadavg(),
  cpus: os.cpus().length,
  writtenMb: WRITE_MB,
  backupBytes,
  rounds: ROUNDS,
  goalRatio: GOAL_RATIO,
  seconds,
  medians,
  /** Throughput against the limit's (limit time / take time): 1 is as fast as qemu-img convert alone. */
  ratioToLimit: {
    takeStopped: ratio('takeStopped'),
    takeRunning: ratio('takeRunning'),
    takeStoppedWithoutReadBack: medians.limitConvert / (medians.takeStopped - medians.readBack),
    takeRunningWithoutReadBack: medians.limitConvert / (medians.takeRunning - medians.readBack),
  },
};
for (const [k, v] of Object.entries(medians)) console.log(`${k.padEnd(14)} median ${v.toFixed(2)} s`);
for (const [k, v] of Object.entries(result.ratioToLimit))
  console.log(
    `${k.padEnd(28)} ${v.toFixed(2)}× the limit ${v >= GOAL_RATIO ? '(meets' : '(MISSES'} the ${GOAL_RATIO}× goal)`,
  );
console.log(
  `${(backupBytes / 1024 ** 2).toFixed(0)} MiB per backup, load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
);
const results = new URL('./results/', import.meta.url).pathname;
mkdirSync(results, { recursive: true });
const out = path.join(results, `backups-${result.at.replace(/[:.]/g, '-')}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`saved ${out}`);
