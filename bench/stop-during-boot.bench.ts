/**
 * A stop asked right after a machine is powered on, while its guest still boots (issue 23 item 4: "a Stop in that
 * window took 62.7 s"): the libvirt driver's stop as it was (one ACPI press, then destroy after stopTimeoutMs, 60 s)
 * against now (the press repeated every stopRepeatMs, 3 s), on the busybox test fixture (no guest agent, so the ACPI
 * path alone) under the tests' private libvirtd, three rounds each. Also prints the create's time and how much of it
 * the VM would show as Starting (from onBooting to the guest's lease). Saves bench/results/stop-during-boot-*.json.
 *   npm run bench:stop -w bench      (root, libvirtd and QEMU installed; starts its own libvirtd like the tests)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLibvirtDriver } from '../apps/api/src/providers/libvirt/libvirt.ts';
import { REF_RE, refForKey } from '../apps/api/src/providers/libvirt/names.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon } from '../apps/api/test/libvirt-daemon.ts';

const POOL = 'irontime';
const NETWORK = 'irontime';
const ROUNDS = Number(process.env.STOP_ROUNDS ?? 3);
const daemon = await startLibvirtDaemon();
const rounds: Record<'before' | 'now', number[]> = { before: [], now: [] };
let create: { seconds: number; startingSeconds: number };
try {
  const base = {
    uri: daemon.socketUri,
    pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, 'pool-time') },
    network: { name: NETWORK, bridge: 'irontime0', cidr: '10.231.79.0/24' },
    publicNat: false,
    guestImage: 'test-fixture' as const,
    bootTimeoutMs: 120_000,
    stopTimeoutMs: 60_000,
  };
  const drivers = { now: createLibvirtDriver(base), before: createLibvirtDriver({ ...base, stopRepeatMs: 600_000 }) };
  const spec = {
    key: `stop-bench-${process.pid}`,
    name: 'stopper',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 0.25,
    diskGb: 1,
    region: 'US East',
    username: 'root',
    publicKey: '',
    password: 'pw',
  };
  const ref = refForKey(spec.key);
  const t0 = Date.now();
  let booting = t0;
  await drivers.now.create(spec, { onBooting: () => void (booting = Date.now()) });
  create = { seconds: (Date.now() - t0) / 1000, startingSeconds: (Date.now() - booting) / 1000 };
  console.log(`create ${create.seconds.toFixed(1)} s, of which Starting ${create.startingSeconds.toFixed(1)} s`);
  for (let round = 0; round < ROUNDS; round++)
    for (const which of ['before', 'now'] as const) {
      const driver = drivers[which];
      await driver.forceStop(ref);
      // Powered on behind the driver's back, as the domain is the moment a start returned before issue 23.
      await daemon.virsh(daemon.socketUri, ['start', ref]);
      const t = Date.now();
      await driver.stop(ref);
      rounds[which].push((Date.now() - t) / 1000);
      console.log(`${which}: stop right after start ${rounds[which].at(-1)!.toFixed(1)} s`);
    }
  await drivers.now.delete(ref);
} finally {
  await daemon.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL] });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const result = {
  at: new Date().toISOString(),
  loadAverage: os.loadavg(),
  create,
  stopRightAfterStart: {
    before: { seconds: rounds.before, median: median(rounds.before) },
    now: { seconds: rounds.now, median: median(rounds.now) },
  },
};
console.log(
  `stop right after start, median: one press ${result.stopRightAfterStart.before.median.toFixed(1)} s, ` +
    `a press every 3 s ${result.stopRightAfterStart.now.median.toFixed(1)} s (load ${os.loadavg()[0]!.toFixed(1)})`,
);
const results = new URL('./results/', import.meta.url).pathname;
mkdirSync(results, { recursive: true });
const out = path.join(results, `stop-during-boot-${result.at.replace(/[:.]/g, '-')}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`saved ${out}`);
