/**
 * The simulator: a cloud that behaves like one. Every action takes time, machines remember their
 * state, usage moves, and names can make it fail on purpose (for tests and demos):
 *  - a name containing `fail-create` fails permanently when created;
 *  - a name containing `flaky` fails transiently on its first two attempts of each action;
 *  - a name containing `fail-move` fails to move to another host (its copy fails; it is left as it was);
 *  - a name containing `fail-snapshot` fails to take snapshots (permanently);
 *  - a name containing `fail-backup` fails to take backups (permanently);
 *  - a name containing `slow-backup` takes ten steps to copy a backup (a take to stop, or kill, mid-way);
 *  - a name containing `agent` has a guest agent: its backups taken while it runs are application-consistent (the
 *    guest "frozen" for the copy's start, decision 0028); every other take is crash-consistent;
 *  - a name containing `fail-verify` fails its backups' verification (the copy "does not boot");
 *  - a name containing `slow-verify` takes 150 steps to verify a backup (a verification seen under way).
 */
import { z } from 'zod';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { simulatedSerial } from './sim-console.ts';
import {
  TransientProviderError,
  type BackupInfo,
  type BootOptions,
  type CreatedMachine,
  type HostSample,
  type MachineStats,
  type MachineSpec,
  type MachineState,
  type ProviderDriver,
  type Usage,
} from '../provider.ts';

export const simulatorSettingsSchema = z.object({
  /** Duration of one action in ms. */
  stepMs: z.number().int().min(0).max(600_000).optional(),
  /** Region label used in the fake IPs and boot log. */
  site: z.string().max(50).optional(),
});

interface SimMachine {
  ref: string;
  spec: MachineSpec;
  state: 'running' | 'stopped';
  bootedAt: number;
  publicIp: string;
  privateIp: string;
  log: string[];
  /** Counters since the machine last booted (they restart at 0, as a domain's do), advanced to `countedAt`. */
  counters: Omit<MachineStats, 'vcpus' | 'memoryUsedBytes'>;
  countedAt: number;
  /** Snapshots by the portal's name: the power state and "disk" (what it logged and knew) when taken. */
  snapshots: Map<string, { state: 'running' | 'stopped'; log: string[]; spec: MachineSpec; sizeBytes: number }>;
}

/** A machine's own pace (0–1) at a moment: a slow wave per machine, so graphs move and differ between machines. */
function pace(m: SimMachine, at: number, period: number, offset: number): number {
  let seed = 0;
  for (const ch of m.ref) seed = (seed * 31 + ch.charCodeAt(0)) % 997;
  return 0.5 + 0.4 * Math.sin(at / period + seed + offset);
}

/**
 * Advances a running machine's counters to `now` at plausible rates (CPU 10–90 % of its vCPUs, disk and network
 * some KB/s to MB/s): monotonic between boots, computed from the injected clock so tests can drive them.
 */
function advance(m: SimMachine, now: number) {
  const seconds = Math.max(0, now - m.countedAt) / 1000;
  m.countedAt = Math.max(m.countedAt, now);
  if (m.state !== 'running' || seconds === 0) return;
  const c = m.counters;
  c.cpuTimeNs += Math.round(seconds * 1e9 * m.spec.cpu * pace(m, now, 600_000, 0));
  c.diskReadBytes += Math.round(seconds * 200_000 * pace(m, now, 900_000, 1));
  c.diskWriteBytes += Math.round(seconds * 400_000 * pace(m, now, 700_000, 2));
  c.netRxBytes += Math.round(seconds * 1_000_000 * pace(m, now, 1_200_000, 3));
  c.netTxBytes += Math.round(seconds * 300_000 * pace(m, now, 1_100_000, 4));
}

const zeroCounters = () => ({ cpuTimeNs: 0, diskReadBytes: 0, diskWriteBytes: 0, netRxBytes: 0, netTxBytes: 0 });

/**
 * What cloud-init would do with the spec at first boot, as the simulated boot log says it (issue 23 item 5): how many
 * keys the default user gets (the portal's and the customer's chosen ones), each chosen key's type and comment, and
 * the user-data's size and first line. The spec itself is kept with the machine.
 */
function firstBootLines(spec: MachineSpec): string[] {
  const chosen = spec.authorizedKeys ?? [];
  const keys = (spec.publicKey ? 1 : 0) + chosen.length;
  const lines = [`cloud-init: ${keys} authorized key${keys === 1 ? '' : 's'} installed for ${spec.username}`];
  for (const key of chosen) {
    const [type, , ...comment] = key.split(' ');
    lines.push(`cloud-init: authorized key ${type} ${comment.join(' ')}`.trimEnd());
  }
  if (spec.userData) {
    const first = spec.userData.split('\n', 1)[0];
    lines.push(`cloud-init: user-data (${Buffer.byteLength(spec.userData)} bytes, ${first}) applied`);
  }
  return lines;
}

export function createSimulatorDriver(opts: {
  stepMs: number;
  site?: string | undefined;
  /** The machines' statistics follow it (sampleAll); the portal's clock. */
  clock?: Clock;
}): ProviderDriver {
  const clock = opts.clock ?? systemClock;
  const machines = new Map<string, SimMachine>();
  const byKey = new Map<string, string>();
  const attempts = new Map<string, number>();
  const creating = new Map<string, Promise<CreatedMachine>>();
  /**
   * Backups (issue 24 item 2) by the portal's name: the machine's "disk" (what it logged and knew) and spec when
   * taken. Kept by the driver, not the machine: a backup outlives its machine. Forgotten at a restart, as machines are.
   */
  const backups = new Map<
    string,
    { log: string[]; spec: MachineSpec; sizeBytes: number; consistency: BackupInfo['consistency'] }
  >();
  /**
   * Incremental takes (decision 0027, as libvirt's: decision 0022): a machine's last backup (its "checkpoint"), and
   * the backup each incremental one is made over. A take is incremental while the machine's last backup is kept; a
   * delete of a base merges it into its children, which grow by its size and become whole.
   */
  const lastBackup = new Map<string, string>();
  const baseOf = new Map<string, string>();
  let counter = 0;
  const wait = () => new Promise((r) => setTimeout(r, opts.stepMs));
  const half = () => new Promise((r) => setTimeout(r, opts.stepMs / 2));
  /**
   * A power-on's second half: the machine runs, its guest boots (the VM shows Starting: the runner's onBooting), and
   * the call returns once the guest "answers". The two halves take one step, as an action took before.
   */
  async function guestBoot(o: BootOptions | undefined) {
    await o?.onBooting?.();
    await half();
  }

  function flaky(action: string, ref: string, name: string) {
    if (!name.includes('flaky')) return;
    const k = `${action}:${ref}`;
    const n = (attempts.get(k) ?? 0) + 1;
    attempts.set(k, n);
    if (n <= 2) throw new TransientProviderError(`simulated transient failure of ${action} (attempt ${n})`);
  }

  function machine(ref: string): SimMachine {
    const m = machines.get(ref);
    if (!m) throw new Error(`machine ${ref} does not exist`);
    return m;
  }

  function boot(m: SimMachine) {
    m.state = 'running';
    m.counters = zeroCounters();
    m.countedAt = clock.now().getTime();
    m.bootedAt = Date.now();
    const t = () => `[${((Date.now() - m.bootedAt) / 1000 + Math.random()).toFixed(6).padStart(12)}]`;
    m.log.push(
      `${t()} Linux version 6.1.0-sim (${m.spec.image})`,
      `${t()} Memory: ${m.spec.ramGb * 1024}MB available, ${m.spec.cpu} CPUs`,
      `${t()} EXT4-fs (vda1): mounted filesystem (${m.spec.diskGb}G)`,
      `${t()} eth0: ${m.privateIp} up; public ${m.publicIp}`,
      `${t()} Started OpenSSH server.`,
      '',
      `${m.spec.name} login: `,
    );
  }

  return {
    kind: 'simulator',
    async create(spec: MachineSpec, o?: BootOptions): Promise<CreatedMachine> {
      // Idempotent by key, even while a first call is still running (a resumed operation).
      const pending = creating.get(spec.key);
      if (pending) return pending;
      const existing = byKey.get(spec.key);
      if (existing) {
        const m = machine(existing);
        return { ref: m.ref, publicIp: m.publicIp, privateIp: m.privateIp };
      }
      const run = (async () => {
        await half();
        if (spec.name.includes('fail-create'))
          throw new Error('The simulator refused to create this machine (simulated permanent failure)');
        flaky('create', spec.key, spec.name);
        const n = ++counter;
        const ref = `sim-${Date.now().toString(36)}-${n}`;
        // A restore as a new machine: its disk is the backup's (a backup this simulator forgot cannot be read).
        const source = spec.fromBackup ? backups.get(spec.fromBackup) : undefined;
        if (spec.fromBackup && !source)
          throw new Error(
            `The backup ${spec.fromBackup} is not on this simulator's backup target (forgotten at a restart)`,
          );
        const m: SimMachine = {
          ref,
          spec,
          state: 'stopped',
          bootedAt: Date.now(),
          publicIp: `203.0.113.${(n % 250) + 2}`,
          privateIp: `10.20.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`,
          log: source
            ? [
                ...source.log,
                `[host] ${spec.name} provisioned in ${opts.site ?? spec.region} from backup ${spec.fromBackup}`,
              ]
            : [`Provisioned ${spec.name} in ${opts.site ?? spec.region}`, ...firstBootLines(spec)],
          counters: zeroCounters(),
          countedAt: clock.now().getTime(),
          snapshots: new Map(),
        };
        machines.set(ref, m);
        byKey.set(spec.key, ref);
        boot(m);
        await guestBoot(o);
        return { ref, publicIp: m.publicIp, privateIp: m.privateIp };
      })();
      creating.set(spec.key, run);
      try {
        return await run;
      } finally {
        creating.delete(spec.key);
      }
    },
    async start(ref, o) {
      const m = machine(ref);
      await half();
      flaky('start', ref, m.spec.name);
      if (m.state !== 'running') boot(m);
      await guestBoot(o);
    },
    async stop(ref) {
      const m = machine(ref);
      await wait();
      flaky('stop', ref, m.spec.name);
      advance(m, clock.now().getTime());
      m.state = 'stopped';
      m.log.push('', 'reboot: Power down');
    },
    async forceStop(ref) {
      // Immediate: no guest to wait for.
      const m = machine(ref);
      flaky('forceStop', ref, m.spec.name);
      advance(m, clock.now().getTime());
      m.state = 'stopped';
      m.log.push('', '[host] powered off');
    },
    async reset(ref, o) {
      const m = machine(ref);
      await half();
      flaky('reset', ref, m.spec.name);
      m.log.push('', 'reboot: Restarting system');
      boot(m);
      await guestBoot(o);
    },
    async resize(ref, size) {
      const m = machine(ref);
      await wait();
      flaky('resize', ref, m.spec.name);
      m.spec = { ...m.spec, cpu: size.cpu, ramGb: size.ramGb, diskGb: size.diskGb };
      // A running machine reboots into its new size; a stopped one stays off.
      if (m.state === 'running') {
        m.log.push('', 'reboot: Restarting system (resized)');
        boot(m);
      } else m.log.push(`Resized to ${size.cpu} CPUs, ${size.ramGb}GB RAM, ${size.diskGb}GB disk`);
    },
    // A reinstall: the machine keeps its ref and addresses; its disk (here: what it logged and knew) starts anew from
    // the image, it boots with the new keys and user-data, whatever its power state was.
    async rebuild(ref, spec, o) {
      const m = machine(ref);
      await half();
      flaky('rebuild', ref, m.spec.name);
      advance(m, clock.now().getTime());
      m.state = 'stopped';
      m.spec = { ...spec, key: m.spec.key };
      m.log = [`Rebuilt ${spec.name} from ${spec.image}: previous disk erased`, ...firstBootLines(spec)];
      m.snapshots.clear(); // they were of the erased disk
      boot(m);
      await guestBoot(o);
    },
    // Snapshots (issue 24 item 1): kept with the machine in memory (a portal restart forgets them, as it forgets the
    // machines; a revert to one forgotten so only says so in the log). A running machine's include its memory.
    async snapshotTake(ref, name) {
      const m = machine(ref);
      const kept = m.snapshots.get(name);
      if (kept) return { sizeBytes: kept.sizeBytes, includesMemory: kept.state === 'running' };
      await half();
      flaky('snapshot', ref, m.spec.name);
      if (m.spec.name.includes('fail-snapshot'))
        throw new Error('The simulator could not take the snapshot (simulated permanent failure)');
      const memory = m.state === 'running' ? m.spec.ramGb * 1024 ** 3 * 0.25 : 0;
      const sizeBytes = Math.round(64 * 1024 ** 2 + m.log.length * 4096 + memory);
      m.snapshots.set(name, { state: m.state, log: [...m.log], spec: m.spec, sizeBytes });
      m.log.push(`[host] snapshot ${name} taken`);
      return { sizeBytes, includesMemory: m.state === 'running' };
    },
    async snapshotRevert(ref, name) {
      const m = machine(ref);
      await half();
      flaky('snapshotRevert', ref, m.spec.name);
      const kept = m.snapshots.get(name);
      if (!kept) {
        m.log.push(`[host] snapshot ${name} is not known to this simulator (forgotten at a restart): nothing reverted`);
        return;
      }
      advance(m, clock.now().getTime());
      m.log = [...kept.log, `[host] reverted to snapshot ${name}`];
      lastBackup.delete(ref); // libvirt drops the checkpoints for a revert: the next take is whole
      m.spec = { ...kept.spec, key: m.spec.key };
      m.state = kept.state;
      if (kept.state === 'running') {
        m.counters = zeroCounters();
        m.countedAt = clock.now().getTime();
      }
    },
    async snapshotDelete(ref, name) {
      const m = machine(ref);
      await half();
      flaky('snapshotDelete', ref, m.spec.name);
      m.snapshots.delete(name);
    },
    // Backups (issue 24 item 2): whole copies of the machine's "disk", kept by the driver (they outlive the machine);
    // a running machine keeps running while it is copied. A restart forgets them (docs/decisions/0021-backups.md).
    // The copy is of the disk as it was when the take began (point in time, as libvirt's push job): a stop, a start or
    // a delete of the machine during the copy does not change it, and the take completes (decision 0025).
    async backupTake(ref, name) {
      const m = machine(ref);
      const kept = backups.get(name);
      if (kept) return { sizeBytes: kept.sizeBytes, incremental: baseOf.has(name), consistency: kept.consistency };
      flaky('backup', ref, m.spec.name);
      if (m.spec.name.includes('fail-backup'))
        throw new Error('The simulator could not take the backup (simulated permanent failure)');
      const consistency: BackupInfo['consistency'] =
        m.state === 'running' && m.spec.name.includes('agent') ? 'application-consistent' : 'crash-consistent';
      const source = { log: [...m.log], spec: m.spec, consistency };
      m.log.push(`[host] backup ${name} begun`);
      if (m.spec.name.includes('slow-backup')) await new Promise((r) => setTimeout(r, opts.stepMs * 10));
      else await half();
      // Over the machine's last backup while it is kept: what was logged since (and a fixed 16 MiB of metadata).
      const base = lastBackup.get(ref);
      const over = base === undefined ? undefined : backups.get(base);
      const sizeBytes = over
        ? Math.round(16 * 1024 ** 2 + Math.max(0, source.log.length - over.log.length) * 4096)
        : Math.round(256 * 1024 ** 2 + source.log.length * 4096);
      backups.set(name, { ...source, sizeBytes });
      if (over) baseOf.set(name, base!);
      lastBackup.set(ref, name);
      m.log.push(`[host] backup ${name} taken`);
      return { sizeBytes, incremental: over !== undefined, consistency };
    },
    async backupRestore(ref, name) {
      const m = machine(ref);
      await half();
      flaky('backupRestore', ref, m.spec.name);
      const kept = backups.get(name);
      if (!kept)
        throw new Error(`The backup ${name} is not on this simulator's backup target (forgotten at a restart)`);
      // Powered off for the copy, started again if it ran.
      const wasRunning = m.state === 'running';
      advance(m, clock.now().getTime());
      m.state = 'stopped';
      m.log = [...kept.log, '', '[host] powered off', `[host] disk restored from backup ${name}`];
      m.snapshots.clear(); // they were of the replaced disk, as on libvirt
      lastBackup.delete(ref); // and its checkpoint: the next take is whole
      m.spec = { ...m.spec, image: kept.spec.image };
      if (wasRunning) boot(m);
    },
    // A base another backup is made over is merged into it first (decision 0027): the child grows by the base's size
    // and becomes whole (its base's base is no longer its); the delete answers the children's new sizes.
    async backupDelete(name) {
      const gone = backups.get(name);
      const merged = [];
      for (const [child, base] of [...baseOf]) {
        const kept = backups.get(child);
        if (base !== name || !gone || !kept) continue;
        kept.sizeBytes += gone.sizeBytes;
        baseOf.delete(child);
        merged.push({ name: child, sizeBytes: kept.sizeBytes, incremental: false });
      }
      backups.delete(name);
      baseOf.delete(name);
      return { merged };
    },
    async backupVerify(name) {
      return backups.has(name) ? null : 'The backup is not on the backup target';
    },
    // Verification (issue 24 item 3; decision 0024): the copy "boots" and shows the marker of its take, unless the
    // machine's name asks for a failure.
    async backupProve(name) {
      await half();
      const kept = backups.get(name);
      if (!kept) return { error: 'The backup is not on the backup target', note: null };
      if (kept.spec.name.includes('slow-verify')) await new Promise((r) => setTimeout(r, opts.stepMs * 150));
      if (kept.spec.name.includes('fail-verify'))
        return {
          error: 'The copy did not boot: its guest agent did not answer within 300 s (simulated failure)',
          note: null,
        };
      return { error: null, note: null };
    },
    async delete(ref) {
      await wait();
      machines.delete(ref);
    },
    async status(ref): Promise<MachineState> {
      return machines.get(ref)?.state ?? 'missing';
    },
    async statusAll() {
      return new Map([...machines.values()].map((m): [string, MachineState] => [m.ref, m.state]));
    },
    async sampleAll(): Promise<HostSample> {
      const now = clock.now().getTime();
      const states = new Map<string, MachineState>();
      const stats = new Map<string, MachineStats>();
      for (const m of machines.values()) {
        states.set(m.ref, m.state);
        if (m.state !== 'running') continue;
        advance(m, now);
        const memory = m.spec.ramGb * 1024 ** 3 * (0.3 + 0.4 * pace(m, now, 1_800_000, 5));
        stats.set(m.ref, { ...m.counters, vcpus: m.spec.cpu, memoryUsedBytes: Math.round(memory) });
      }
      return { states, stats };
    },
    async usage(ref): Promise<Usage> {
      const m = machines.get(ref);
      if (!m || m.state !== 'running') return { cpuPercent: 0, ramUsedGb: 0 };
      // A gentle wave per machine so usage visibly moves between refreshes.
      const phase = Date.now() / 15_000 + m.ref.length;
      const cpuPercent = Math.round((25 + 20 * Math.sin(phase) + Math.random() * 10) * 10) / 10;
      const ramUsedGb = Math.round(m.spec.ramGb * (0.35 + 0.15 * Math.sin(phase / 2) + Math.random() * 0.05) * 10) / 10;
      return { cpuPercent, ramUsedGb };
    },
    async console(ref) {
      return machine(ref).log.slice(-200).join('\n');
    },
    async consoleChannels(ref) {
      const m = machine(ref);
      return { serial: async () => simulatedSerial(m.spec.name.toLowerCase().replace(/[^a-z0-9-]+/g, '-')) };
    },
    // The hosts of a simulator provider share its one driver: a move keeps the machine (ref, addresses) and its
    // power state, through a stop and a start as a cold move on a real host does.
    async moveTo(ref, target, { running }) {
      if (target !== this) throw new Error('The simulator moves machines between the hosts of one provider only');
      const m = machine(ref);
      const wasRunning = m.state === 'running' || running;
      await wait();
      flaky('move', ref, m.spec.name);
      m.state = 'stopped';
      m.log.push('', 'reboot: Power down (moving to another host)');
      if (m.spec.name.includes('fail-move')) {
        // Left on its host as it was: started again if it ran.
        if (wasRunning) boot(m);
        throw new Error('The simulator could not copy the disk to the target host (simulated move failure)');
      }
      await wait();
      m.log.push('Moved to another host');
      if (wasRunning) boot(m);
    },
    async adopt(ref, spec, state, ips) {
      if (machines.has(ref)) return;
      const m: SimMachine = {
        ref,
        spec,
        state: 'stopped',
        bootedAt: Date.now(),
        publicIp: ips.publicIp ?? '203.0.113.1',
        privateIp: ips.privateIp ?? '10.20.0.1',
        log: [`Re-adopted ${spec.name}`],
        counters: zeroCounters(),
        countedAt: clock.now().getTime(),
        snapshots: new Map(),
      };
      machines.set(ref, m);
      byKey.set(spec.key, ref);
      if (state === 'running') boot(m);
    },
    async health() {
      return { healthy: true, detail: { machines: machines.size, stepMs: opts.stepMs } };
    },
  };
}
