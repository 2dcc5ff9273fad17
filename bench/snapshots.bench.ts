/**
 * Snapshot take and revert (issue 24's benchmark: "snapshot take/revert under 2 s", decision 0019) with the libvirt
 * driver on the busybox test fixture under the tests' private libvirtd: internal qcow2 snapshots, running (memory
 * included) and powered off, SNAPSHOT_ROUNDS rounds (5) each, at SNAPSHOT_RAM_GB of guest memory (0.5).
 *
 * libvirt 9.0 reverts a running snapshot of a running machine by stopping its QEMU and starting a new one with
 * `-loadvm` (qemuSnapshotRevertActive), and its stop waits until the old QEMU is gone, i.e. reaped by its parent: the
 * nearest subreaper, normally PID 1. So the bench runs in two phases (SNAPSHOT_PHASES, default both):
 *   sandbox  libvirtd as the tests start it: its QEMUs' parent is this machine's PID 1, which reaps about 1.7 s late;
 *   reaped   libvirtd restarted under bench/lib/subreaper.py, which reaps at once, as systemd does on a host.
 * Each running revert is timed in parts from the old QEMU's /proc entry (polled every 5 ms): until it exited (a
 * zombie), until it was reaped, and the rest (the new QEMU's start with loadvm, libvirt's set-up, the resume). A
 * `virsh destroy` (the driver's forceStop) is timed each round too: it waits the same way. Last, QEMU's loadvm alone
 * (`virsh qemu-monitor-command --hmp` stop, loadvm, cont: in place, no new process) on a fresh running snapshot, and
 * the snapshot's vmstate size (qemu-img info -U): what a revert's memory restore has to read.
 * Prints the medians against the 2 s goal and saves bench/results/snapshots-*.json.
 *   npm run bench:snapshots -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { REF_RE, refForKey } from '../apps/api/src/providers/libvirt/names.ts';
import {
  asDaemon,
  daemonFiles,
  killAndWait,
  LIBVIRT_TEST_DIR,
  startLibvirtDaemon,
} from '../apps/api/test/libvirt-daemon.ts';

const execFileP = promisify(execFile);
const POOL = 'ironsnap';
const NETWORK = 'ironsnap';
const ROUNDS = Number(process.env.SNAPSHOT_ROUNDS ?? 5);
const RAM_GB = Number(process.env.SNAPSHOT_RAM_GB ?? 0.5);
const PHASES = (process.env.SNAPSHOT_PHASES ?? 'sandbox,reaped').split(',').filter(Boolean) as Phase[];
const GOAL_S = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

type Phase = 'sandbox' | 'reaped';
type Kind = 'takeRunning' | 'revertRunning' | 'takeStopped' | 'revertStopped' | 'destroy';
/** One running revert in parts, in seconds from its start: the old QEMU exited (zombie), was reaped, the call returned. */
interface RevertParts {
  exited: number | null;
  reaped: number | null;
  total: number;
  newProcess: boolean;
}
interface PhaseResult {
  seconds: Record<Kind, number[]>;
  revertParts: RevertParts[];
  sizeBytes: { running: (number | null)[]; stopped: (number | null)[] };
}
const results: Partial<Record<Phase, PhaseResult>> = {};
const loadvm = { stop: [] as number[], loadvm: [] as number[], cont: [] as number[], total: [] as number[] };
const vmstate = { bytes: null as number | null };
/** Which accelerator the guest ran on (read from its definition). */
const host = { kvm: false };

const daemon = await startLibvirtDaemon();
const virsh = (args: string[]) => daemon.virsh(daemon.socketUri, args);
const files = daemonFiles(LIBVIRT_TEST_DIR);

/** libvirtd again, under the subreaper (its QEMUs are reaped at once); the machine must be off. */
async function restartUnderSubreaper() {
  await killAndWait(files.libvirtdPid);
  const reaper = await asDaemon(() =>
    Promise.resolve(
      spawn(
        'python3',
        [
          new URL('./lib/subreaper.py', import.meta.url).pathname,
          '/usr/sbin/libvirtd',
          '-d',
          '--listen',
          '-f',
          files.libvirtdConf,
          '-p',
          files.libvirtdPid,
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
      ),
    ),
  );
  const started = await new Promise<string>((resolve, reject) => {
    reaper.once('error', reject);
    reaper.once('exit', (code) => reject(new Error(`subreaper exited with ${code}`)));
    reaper.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
  });
  reaper.removeAllListeners('exit');
  reaper.stdout.destroy();
  reaper.unref();
  if (started !== 'started 0') throw new Error(`libvirtd under the subreaper: ${started}`);
  for (const until = Date.now() + 60_000; ; await sleep(200)) {
    try {
      await virsh(['version']);
      return;
    } catch (e) {
      if (Date.now() > until) throw e;
    }
  }
}

/** The /proc state letter of a process, or null when it is gone. */
function procState(pid: number): string | null {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}
const qemuPid = (ref: string) => Number(readFileSync(`/run/libvirt/qemu/${ref}.pid`, 'utf8').trim());

try {
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
  const makeDriver = () =>
    createLibvirtDriver({
      uri: daemon.socketUri,
      pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, 'pool-snap') },
      network: { name: NETWORK, bridge: 'ironsnap0', cidr: '10.231.81.0/24' },
      publicNat: false,
      guestImage: 'test-fixture',
      bootTimeoutMs: 180_000,
      stopTimeoutMs: 30_000,
    });
  let driver = makeDriver();
  await driver.create(spec);
  host.kvm = /<domain type='kvm'/.test(await virsh(['dumpxml', ref]));

  for (const phase of PHASES) {
    if (phase === 'reaped') {
      await driver.forceStop(ref);
      driver.close?.();
      await restartUnderSubreaper();
      driver = makeDriver();
    }
    const r: PhaseResult = {
      seconds: { takeRunning: [], revertRunning: [], takeStopped: [], revertStopped: [], destroy: [] },
      revertParts: [],
      sizeBytes: { running: [], stopped: [] },
    };
    results[phase] = r;
    const time = async <T>(kind: Kind, fn: () => Promise<T>): Promise<T> => {
      const t = Date.now();
      const out = await fn();
      r.seconds[kind].push((Date.now() - t) / 1000);
      console.log(`${phase} ${kind} ${r.seconds[kind].at(-1)!.toFixed(2)} s`);
      return out;
    };
    for (let round = 0; round < ROUNDS; round++) {
      if ((await driver.status(ref)) !== 'running') await driver.start(ref);
      await sleep(2000); // the guest settles after its boot or revert
      const name = `bench-run-${round}`;
      const running = await time('takeRunning', () => driver.snapshotTake!(ref, name));
      r.sizeBytes.running.push(running.sizeBytes);
      // The revert in parts: the old QEMU watched through /proc while the driver reverts.
      const old = qemuPid(ref);
      const t0 = Date.now();
      const parts: RevertParts = { exited: null, reaped: null, total: 0, newProcess: false };
      let done = false;
      const watch = (async () => {
        while (!done && parts.reaped === null) {
          const s = procState(old);
          const at = (Date.now() - t0) / 1000;
          if (s === 'Z' && parts.exited === null) parts.exited = at;
          if (s === null) {
            parts.exited ??= at;
            parts.reaped = at;
          }
          await sleep(5);
        }
      })();
      await time('revertRunning', () => driver.snapshotRevert!(ref, name));
      done = true;
      await watch;
      parts.total = (Date.now() - t0) / 1000;
      parts.newProcess = qemuPid(ref) !== old;
      r.revertParts.push(parts);
      console.log(
        `  parts: QEMU exited ${parts.exited?.toFixed(2)} s, reaped ${parts.reaped?.toFixed(2)} s, new process ${parts.newProcess}`,
      );
      await time('destroy', () => driver.forceStop(ref));
      const off = `bench-off-${round}`;
      const stopped = await time('takeStopped', () => driver.snapshotTake!(ref, off));
      r.sizeBytes.stopped.push(stopped.sizeBytes);
      await driver.start(ref);
      await time('revertStopped', () => driver.snapshotRevert!(ref, off));
      await driver.snapshotDelete!(ref, name);
      await driver.snapshotDelete!(ref, off);
    }
  }

  // QEMU's loadvm alone, in place (what libvirt's revert does at the new QEMU's start, without the new process).
  if ((await driver.status(ref)) !== 'running') await driver.start(ref);
  await sleep(2000);
  await driver.snapshotTake!(ref, 'bench-loadvm');
  const disk = /^\s*vda\s+(\S+)/m.exec(await virsh(['domblklist', ref]))?.[1];
  if (disk) {
    const info = JSON.parse((await execFileP('qemu-img', ['info', '-U', '--output=json', disk])).stdout) as {
      snapshots?: { name: string; 'vm-state-size': number }[];
    };
    vmstate.bytes = info.snapshots?.find((s) => s.name === 'bench-loadvm')?.['vm-state-size'] ?? null;
  }
  for (let round = 0; round < ROUNDS; round++) {
    const hmp = async (kind: 'stop' | 'loadvm' | 'cont', cmd: string) => {
      const t = Date.now();
      const out = await virsh(['qemu-monitor-command', ref, '--hmp', cmd]);
      if (out.trim()) throw new Error(`${cmd}: ${out.trim()}`);
      loadvm[kind].push((Date.now() - t) / 1000);
    };
    await hmp('stop', 'stop');
    await hmp('loadvm', 'loadvm bench-loadvm');
    await hmp('cont', 'cont');
    loadvm.total.push(loadvm.stop.at(-1)! + loadvm.loadvm.at(-1)! + loadvm.cont.at(-1)!);
    console.log(`loadvm in place ${loadvm.total.at(-1)!.toFixed(2)} s (loadvm ${loadvm.loadvm.at(-1)!.toFixed(2)} s)`);
    await sleep(1000);
  }
  await driver.delete(ref);
  driver.close?.();
} finally {
  await daemon.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
}

const medians = (xs: Record<string, number[]>) =>
  Object.fromEntries(Object.entries(xs).map(([k, v]) => [k, median(v)])) as Record<string, number>;
const result = {
  at: new Date().toISOString(),
  loadAverage: os.loadavg(),
  cpus: os.cpus().length,
  accelerator: host.kvm ? 'kvm' : 'tcg',
  guestRamGb: RAM_GB,
  rounds: ROUNDS,
  goalSeconds: GOAL_S,
  phases: Object.fromEntries(
    Object.entries(results).map(([phase, r]) => [
      phase,
      {
        ...r,
        medians: medians(r.seconds),
        revertPartsMedian: {
          exited: median(r.revertParts.map((p) => p.exited ?? Number.NaN)),
          reaped: median(r.revertParts.map((p) => p.reaped ?? Number.NaN)),
          total: median(r.revertParts.map((p) => p.total)),
        },
      },
    ]),
  ),
  loadvmInPlace: { seconds: loadvm, medians: medians(loadvm) },
  vmstateBytes: vmstate.bytes,
};
for (const [phase, r] of Object.entries(result.phases)) {
  for (const [k, v] of Object.entries(r.medians))
    console.log(
      `${phase.padEnd(8)} ${k.padEnd(14)} median ${v.toFixed(2)} s ${v < GOAL_S ? '(under' : '(OVER'} the ${GOAL_S} s goal)`,
    );
  const p = r.revertPartsMedian;
  console.log(
    `${phase.padEnd(8)} running revert: old QEMU exited ${p.exited.toFixed(2)} s, reaped ${p.reaped.toFixed(2)} s, done ${p.total.toFixed(2)} s`,
  );
}
console.log(
  `loadvm in place (stop, loadvm, cont): median ${result.loadvmInPlace.medians.total!.toFixed(2)} s (loadvm ${result.loadvmInPlace.medians.loadvm!.toFixed(2)} s); vmstate ${vmstate.bytes ?? '?'} bytes`,
);
console.log(
  `${result.accelerator}, ${RAM_GB} GB guest, load ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`,
);
const dir = new URL('./results/', import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
const out = path.join(dir, `snapshots-${result.at.replace(/[:.]/g, '-')}${process.env.BENCH_TAG ?? ''}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`saved ${out}`);
