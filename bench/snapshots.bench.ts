/**
 * Snapshot take and revert (issue 24's benchmark: "snapshot take/revert under 2 s", decision 0019) with the libvirt
 * driver on the busybox test fixture under the tests' private libvirtd: internal qcow2 snapshots, running (memory
 * included) and powered off, SNAPSHOT_ROUNDS rounds (3) each, at SNAPSHOT_RAM_GB of guest memory (0.5). Prints the
 * medians against the 2 s goal and saves bench/results/snapshots-*.json.
 *   npm run bench:snapshots -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { REF_RE, refForKey } from '../apps/api/src/providers/libvirt/names.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';

const POOL = 'ironsnap';
const NETWORK = 'ironsnap';
const ROUNDS = Number(process.env.SNAPSHOT_ROUNDS ?? 3);
const RAM_GB = Number(process.env.SNAPSHOT_RAM_GB ?? 0.5);
const GOAL_S = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Kind = 'takeRunning' | 'revertRunning' | 'takeStopped' | 'revertStopped';
const seconds: Record<Kind, number[]> = { takeRunning: [], revertRunning: [], takeStopped: [], revertStopped: [] };
const sizes: Record<'running' | 'stopped', (number | null)[]> = { running: [], stopped: [] };
/** Which accelerator the guest ran on (read from its definition). */
const host = { kvm: false };

const daemon = await startLibvirtDaemon();
try {
  const driver = createLibvirtDriver({
    uri: daemon.socketUri,
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, 'pool-snap') },
    network: { name: NETWORK, bridge: 'ironsnap0', cidr: '10.231.81.0/24' },
    publicNat: false,
    guestImage: 'test-fixture',
    bootTimeoutMs: 180_000,
    stopTimeoutMs: 30_000,
  });
  const spec = {
    key: `snapshot-bench-${process.pid}`,
    name: 'snapper',
    image: 'Debian 12',
    cpu: 1,
    ramGb: RAM_GB,
    diskGb: 1,
    region: 'US East',
    username: 'root',
    publicKey: '',
    password: 'pw',
  };
  const ref = refForKey(spec.key);
  await driver.create(spec);
  host.kvm = /<domain type='kvm'/.test(await daemon.virsh(daemon.socketUri, ['dumpxml', ref]));
  const time = async (kind: Kind, fn: () => Promise<unknown>) => {
    const t = Date.now();
    const out = await fn();
    seconds[kind].push((Date.now() - t) / 1000);
    console.log(`${kind} ${seconds[kind].at(-1)!.toFixed(2)} s`);
    return out;
  };
  for (let round = 0; round < ROUNDS; round++) {
    if ((await driver.status(ref)) !== 'running') await driver.start(ref);
    await sleep(2000); // the guest settles after its boot or revert
    const r = `bench-run-${round}`;
    const running = (await time('takeRunning', () => driver.snapshotTake!(ref, r))) as { sizeBytes: number | null };
    sizes.running.push(running.sizeBytes);
    await time('revertRunning', () => driver.snapshotRevert!(ref, r));
    await driver.forceStop(ref);
    const s = `bench-off-${round}`;
    const stopped = (await time('takeStopped', () => driver.snapshotTake!(ref, s))) as { sizeBytes: number | null };
    sizes.stopped.push(stopped.sizeBytes);
    await driver.start(ref);
    await time('revertStopped', () => driver.snapshotRevert!(ref, s));
    await driver.snapshotDelete!(ref, r);
    await driver.snapshotDelete!(ref, s);
  }
  await driver.delete(ref);
} finally {
  await daemon.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const result = {
  at: new Date().toISOString(),
  loadAverage: os.loadavg(),
  cpus: os.cpus().length,
  accelerator: host.kvm ? 'kvm' : 'tcg',
  guestRamGb: RAM_GB,
  rounds: ROUNDS,
  goalSeconds: GOAL_S,
  seconds,
  medians: Object.fromEntries(Object.entries(seconds).map(([k, v]) => [k, median(v)])) as Record<Kind, number>,
  sizeBytes: sizes,
};
for (const [k, v] of Object.entries(result.medians))
  console.log(`${k.padEnd(14)} median ${v.toFixed(2)} s ${v < GOAL_S ? '(under' : '(OVER'} the ${GOAL_S} s goal)`);
console.log(
  `${result.accelerator}, ${RAM_GB} GB guest, load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
);
const results = new URL('./results/', import.meta.url).pathname;
mkdirSync(results, { recursive: true });
const out = path.join(results, `snapshots-${result.at.replace(/[:.]/g, '-')}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`saved ${out}`);
