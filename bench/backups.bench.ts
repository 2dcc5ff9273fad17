/**
 * Backups in the libvirt driver (issue 24's benchmark: "back up and restore a guest disk with about 1 GB written,
 * against `qemu-img convert` of the same disk to the same target (the limit) in the same run: goal ≥ 0.8× the limit's
 * throughput for a full backup, an incremental after 10 MB changed in under 10% of the full time, and snapshot
 * take/revert under 2 s"; decision 0022) on the busybox test fixture under the tests' private libvirtd.
 * BACKUP_WRITE_MB (1024) of data is written into the machine's 4 GiB disk (qemu-io on the powered-off qcow2), then per
 * round (BACKUP_ROUNDS, 3):
 *   limitConvert      qemu-img convert of the powered-off disk into the backup pool's directory (the limit)
 *   takeStopped       a powered-off full take (vol-create-from + manifest)
 *   takeRunning       a running full take (backup-begin with a checkpoint, while the guest boots) + manifest
 *   takeIncremental   BACKUP_CHANGE_MB (10) written (powered off, then started again), a running take: incremental
 *   snapshotTake/Revert  a running snapshot of the same machine and its revert (the revert drops the checkpoint first)
 *   sealFull          the first verify of the full take (read back into a SHA-256 + qemu-img check): the check the
 *                     take no longer makes
 *   restoreIncremental  restore in place of the incremental (powered off: the chain read through and flattened)
 * Prints medians and saves bench/results/backups-*.json.
 *   npm run bench:backups -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { REF_RE, refForKey, volumes } from '../apps/api/src/providers/libvirt/names.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';

const execFileP = promisify(execFile);
const POOL = 'ironbackup';
const BACKUP_POOL = `${POOL}-backups`;
const POOL_DIR = path.join(LIBVIRT_TEST_DIR, 'pool-backup');
const BACKUP_DIR = `${POOL_DIR}-backups`;
const NETWORK = 'ironbackup';
const ROUNDS = Number(process.env.BACKUP_ROUNDS ?? 3);
const WRITE_MB = Number(process.env.BACKUP_WRITE_MB ?? 1024);
const CHANGE_MB = Number(process.env.BACKUP_CHANGE_MB ?? 10);
const GOAL_RATIO = 0.8;
const GOAL_INCREMENTAL_SHARE = 0.1;
const GOAL_SNAPSHOT_S = 2;

type Kind =
  | 'limitConvert'
  | 'takeStopped'
  | 'takeRunning'
  | 'takeIncremental'
  | 'snapshotTake'
  | 'snapshotRevert'
  | 'sealFull'
  | 'restoreIncremental';
const KINDS: Kind[] = [
  'limitConvert',
  'takeStopped',
  'takeRunning',
  'takeIncremental',
  'snapshotTake',
  'snapshotRevert',
  'sealFull',
  'restoreIncremental',
];
const seconds = Object.fromEntries(KINDS.map((k) => [k, [] as number[]])) as Record<Kind, number[]>;
const sizes = { full: [] as number[], incremental: [] as number[] };
const incrementalFlags: boolean[] = [];

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
  const time = async <T>(kind: Kind, fn: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    const out = await fn();
    seconds[kind].push((Date.now() - t) / 1000);
    console.log(`${kind.padEnd(18)} ${seconds[kind].at(-1)!.toFixed(2)} s`);
    return out;
  };
  const start = () => daemon.virsh(daemon.socketUri, ['start', ref]);
  for (let round = 0; round < ROUNDS; round++) {
    // The limit: the same disk flattened into the same directory by qemu-img itself (what vol-create-from runs).
    const limitFile = path.join(BACKUP_DIR, `limit-${round}.qcow2`);
    await driver.backupTake!(ref, `warm-${round}`); // makes the backup pool on the first round
    await driver.backupDelete!(`warm-${round}`);
    await time('limitConvert', () => execFileP('qemu-img', ['convert', '-O', 'qcow2', disk, limitFile]));
    await rm(limitFile, { force: true });
    await time('takeStopped', () => driver.backupTake!(ref, `off-${round}`));

    await start();
    const full = await time('takeRunning', () => driver.backupTake!(ref, `run-${round}`));
    sizes.full.push(full.sizeBytes ?? 0);
    // CHANGE_MB written where the guest's disk had data (powered off: qemu-io; the checkpoint's bitmap records it).
    await driver.forceStop(ref);
    await execFileP('qemu-io', [
      '-f',
      'qcow2',
      '-c',
      `write -P ${200 + round} ${300 + round * 64}M ${CHANGE_MB}M`,
      disk,
    ]);
    await start();
    const inc = await time('takeIncremental', () => driver.backupTake!(ref, `inc-${round}`));
    sizes.incremental.push(inc.sizeBytes ?? 0);
    incrementalFlags.push(inc.incremental);

    await time('snapshotTake', () => driver.snapshotTake!(ref, `snap-${round}`));
    await time('snapshotRevert', () => driver.snapshotRevert!(ref, `snap-${round}`));
    await driver.snapshotDelete!(ref, `snap-${round}`);

    await time('sealFull', () => driver.backupVerify!(`run-${round}`));
    await driver.forceStop(ref);
    await time('restoreIncremental', () => driver.backupRestore!(ref, `inc-${round}`));
    for (const name of [`off-${round}`, `run-${round}`, `inc-${round}`]) await driver.backupDelete!(name);
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
  changedMb: CHANGE_MB,
  rounds: ROUNDS,
  goals: { ratioToLimit: GOAL_RATIO, incrementalShareOfFull: GOAL_INCREMENTAL_SHARE, snapshotSeconds: GOAL_SNAPSHOT_S },
  seconds,
  medians,
  bytes: { full: sizes.full, incremental: sizes.incremental },
  incremental: incrementalFlags,
  /** Throughput against the limit's (limit time / take time): 1 is as fast as qemu-img convert alone. */
  ratioToLimit: {
    takeStopped: ratio('takeStopped'),
    takeRunning: ratio('takeRunning'),
    /** With the first verify's read-back (what a take cost before it moved there). */
    takeStoppedWithSeal: medians.limitConvert / (medians.takeStopped + medians.sealFull),
  },
  /** The incremental take's time as a share of the running full take's. */
  incrementalShareOfFull: medians.takeIncremental / medians.takeRunning,
};
for (const [k, v] of Object.entries(medians)) console.log(`${k.padEnd(18)} median ${v.toFixed(2)} s`);
for (const [k, v] of Object.entries(result.ratioToLimit))
  console.log(
    `${k.padEnd(20)} ${v.toFixed(2)}× the limit ${v >= GOAL_RATIO ? '(meets' : '(MISSES'} the ${GOAL_RATIO}× goal)`,
  );
const share = result.incrementalShareOfFull;
console.log(
  `incremental (${CHANGE_MB} MB changed, ${incrementalFlags.every(Boolean) ? 'incremental every round' : `incremental: ${incrementalFlags.join(',')}`}): ` +
    `${(share * 100).toFixed(1)}% of the full take ${share < GOAL_INCREMENTAL_SHARE ? '(meets' : '(MISSES'} the 10% goal)`,
);
for (const k of ['snapshotTake', 'snapshotRevert'] as const)
  console.log(`${k} ${medians[k].toFixed(2)} s ${medians[k] < GOAL_SNAPSHOT_S ? '(meets' : '(MISSES'} the 2 s goal)`);
console.log(
  `${(median(sizes.full) / 1024 ** 2).toFixed(0)} MiB per full backup, ${(median(sizes.incremental) / 1024 ** 2).toFixed(1)} MiB per incremental; ` +
    `load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
);
const results = new URL('./results/', import.meta.url).pathname;
mkdirSync(results, { recursive: true });
const out = path.join(results, `backups-${result.at.replace(/[:.]/g, '-')}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`saved ${out}`);
