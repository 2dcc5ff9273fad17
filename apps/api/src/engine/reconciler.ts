/**
 * Brings stored VM status in line with what the provider reports, for VMs with no operation under
 * way: a machine powered off outside the portal becomes Shutoff, one started outside becomes Running,
 * one the provider no longer has becomes Error (or is re-adopted by drivers that can, like the simulator).
 * The same pass keeps suspended companies' machines off: a Running VM of a suspended company with no operation
 * under way gets a stop (one that was starting, or being made, when its company was suspended ends here).
 */
import type { FastifyBaseLogger } from 'fastify';
import { VM_OFF_STATUSES, type VmStatus } from '@portal/contract/vm-lifecycle';
import type { Db } from '../db/client.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { HostSample, MachineState, ProviderDriver } from '../providers/provider.ts';
import type { Audit } from '../lib/audit.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { EngineMetrics, VmSample } from './metrics/metrics.ts';
import { publishVm, type VmEvents } from './vm-events.ts';
import { adoptIfMissing } from './operations/adopt.ts';
import { createEnqueue, queueSuspensionStops } from './operations/enqueue.ts';
import { createOperationsRepository, type Walk } from './operations/operations.repository.ts';
import { createPeriodic, limiter, type Slot } from './periodic.ts';

/** Resting statuses the provider's word may change (an Error VM waits for its user). */
const RECONCILED: readonly VmStatus[] = ['Running', ...VM_OFF_STATUSES];
/** What a machine that was powered off outside the portal shows. */
const OFF_OUTSIDE_PORTAL: VmStatus = 'Shutoff';

type Row = Awaited<ReturnType<ReturnType<typeof createOperationsRepository>['idleMachines']>>[number];

/** Rows compared between two looks at the event loop (a comparison is cheap; a host's rows are a few hundred). */
const YIELD_EVERY = 500;
/** Lets what waits on the event loop (requests, their database replies) run before the pass goes on. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createReconciler(opts: {
  db: Db;
  registry: ProviderRegistry;
  events: VmEvents;
  log: FastifyBaseLogger;
  clock?: Clock;
  /**
   * Where each host's sample goes (engine/metrics): with it, drivers that can answer states and statistics in their
   * one call per pass (sampleAll) are asked that way, and the statistics of the VMs read are stored per host.
   */
  metrics?: Pick<EngineMetrics, 'record'>;
  intervalMs?: number;
  /** Where the sweep's stops are recorded: the app's audit log. */
  audit: Audit;
  /** Told when the pass queued operations (the runner looks at once rather than at its next poll). */
  onQueued?: () => void;
  /** VMs read per query in a pass (tests make it small to cross pages). */
  pageSize?: number;
  /** Hosts walked and asked for their machines' states at once. */
  hostConcurrency?: number;
  /** The pass's statements at once, whatever the hosts in flight (the pool's other connections serve requests). */
  dbConcurrency?: number;
  /**
   * The most rows of one driver held before its states are asked: memory stays bounded for a provider with a huge
   * number of machines on one driver (a simulator's); a libvirt host stays far below it and is asked once per pass.
   */
  hostBatchLimit?: number;
}) {
  const { db, registry, events, log } = opts;
  const clock = opts.clock ?? systemClock;
  const pageSize = opts.pageSize ?? 500;
  const hostConcurrency = opts.hostConcurrency ?? 32;
  const dbSlot = limiter(opts.dbConcurrency ?? 2);
  const hostBatchLimit = opts.hostBatchLimit ?? 5_000;
  const repo = createOperationsRepository(db, clock);
  const enqueue = createEnqueue({ db, audit: opts.audit, events, clock });

  /** Queues a stop of each Running VM of a suspended company that has no operation under way; answers how many. */
  async function stopSuspended(): Promise<number> {
    const queued = await queueSuspensionStops(
      enqueue,
      await repo.runningOfSuspendedCompanies(),
      { userId: null },
      (vm, err) => log.warn({ vmId: vm.id, err }, 'could not stop a VM of a suspended company'),
    );
    if (queued) {
      log.info({ vms: queued }, 'stopping running VMs of suspended companies');
      opts.onQueued?.();
    }
    return queued;
  }

  /**
   * One pass: the provider's word first (a machine started outside the portal shows Running), then suspensions.
   * Answers how many VMs changed status or got a stop.
   */
  async function reconcileOnce(): Promise<number> {
    return (await followProviders()) + (await stopSuspended());
  }

  /**
   * The provider's word for every idle VM, host by host: each driver instance (one per provider, and per host of a
   * libvirt provider) reads all its machines' rows for the pass first, then is asked once for all their states
   * (statusAll), many hosts at a time. The states are asked after the rows are read: a state older than its row
   * could undo what an operation did in between. One newer than its row is harmless: the update is conditional on
   * the row as read (status and updatedAt), so an operation that finished meanwhile is never overwritten.
   * Waiting on hosts costs nothing, so `hostConcurrency` hosts are asked at once (a first pass opens each host's
   * session: a process and a connect each); the pass's statements go through `dbConcurrency` (the pool stays free
   * for requests), and its loops give the event loop back between hosts and chunks of rows.
   */
  async function followProviders(onlyHosts?: ReadonlySet<number>): Promise<number> {
    const walks = (await repo.reconcileWalks()).filter(
      (w) => !onlyHosts || (w.hostId !== null && onlyHosts.has(w.hostId)),
    );
    const byDriver = await driversOf(walks);
    const queue = [...byDriver];
    let changed = 0;
    const work = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        // Not `changed += await …`: that reads `changed` before the await and would drop other hosts' counts.
        const n = await followDriver(...next);
        changed += n;
      }
    };
    const workers = await Promise.allSettled(Array.from({ length: Math.min(hostConcurrency, queue.length) }, work));
    // A failed query fails the pass as before, but only once every host's work has ended.
    for (const w of workers) if (w.status === 'rejected') throw w.reason;
    return changed;
  }

  /** The walks by the driver that answers for them (a simulator provider's hosts share its one driver). */
  async function driversOf(walks: Walk[]): Promise<Map<ProviderDriver, Walk[]>> {
    const targets = await repo.walkTargets(walks);
    const byDriver = new Map<ProviderDriver, Walk[]>();
    for (const walk of walks) {
      const provider = targets.providers.get(walk.providerId);
      const host = walk.hostId ? targets.hosts.get(walk.hostId) : null;
      if (!provider || host === undefined) continue; // removed since the walks were listed
      try {
        const driver = registry.driverFor(provider, host);
        byDriver.set(driver, [...(byDriver.get(driver) ?? []), walk]);
      } catch (err) {
        log.warn({ providerId: walk.providerId, hostId: walk.hostId, err }, 'reconcile failed for a host');
      }
    }
    return byDriver;
  }

  /** One driver's walks: its idle VMs read page by page, then its states asked once (per `hostBatchLimit` rows). */
  async function followDriver(driver: ProviderDriver, walks: Walk[]): Promise<number> {
    let changed = 0;
    let rows: Row[] = [];
    const hostId = walks[0]?.hostId ?? null;
    for (const walk of walks) {
      for (let afterId = 0; ;) {
        const page = await dbSlot(() => repo.idleMachines(RECONCILED, walk, afterId, pageSize));
        rows.push(...page);
        if (rows.length >= hostBatchLimit) {
          changed += await followRows(driver, rows, hostId);
          rows = [];
        }
        if (page.length < pageSize) break;
        afterId = page[page.length - 1]!.id;
      }
    }
    if (rows.length) changed += await followRows(driver, rows, hostId);
    return changed;
  }

  /** Rows already read, compared with their driver's states asked now; a host that does not answer is left as is. */
  async function followRows(
    driver: ProviderDriver,
    rows: Row[],
    hostId: number | null,
    opts2: { sample?: boolean } = {},
  ): Promise<number> {
    let states: Map<string, MachineState> | null = null;
    let sample: HostSample | null = null;
    let sampledAt = clock.now();
    const sampling = opts2.sample !== false && opts.metrics && driver.sampleAll;
    if (sampling || driver.statusAll) {
      try {
        if (sampling) {
          sample = await driver.sampleAll!();
          sampledAt = clock.now();
          states = sample.states;
        } else states = await driver.statusAll!();
      } catch (err) {
        log.warn({ hostId, vms: rows.length, err }, 'reconcile failed for a host');
        return 0;
      }
      // The host's answer was parsed in one stretch: let requests waiting meanwhile go first.
      await yieldToRequests();
    }
    let changed = 0;
    for (const [i, row] of rows.entries()) {
      if (i > 0 && i % YIELD_EVERY === 0) await yieldToRequests();
      try {
        const ref = row.providerRef!;
        // Drivers without statusAll are asked per VM, as before.
        const state = states ? (states.get(ref) ?? 'missing') : await driver.status(ref);
        if (await follow(driver, row, state)) changed++;
      } catch (err) {
        log.warn({ vmId: row.id, err }, 'reconcile failed');
      }
    }
    if (sample && opts.metrics) await recordSample(opts.metrics, rows, sample, sampledAt, hostId);
    return changed;
  }

  /** The statistics of the rows' machines in the host's sample, stored at once (one write per host). */
  async function recordSample(
    metrics: Pick<EngineMetrics, 'record'>,
    rows: Row[],
    sample: HostSample,
    at: Date,
    hostId: number | null,
  ) {
    const samples: VmSample[] = [];
    for (const vm of rows) {
      const stats = sample.stats.get(vm.providerRef!);
      if (stats) samples.push({ vmId: vm.id, companyId: vm.companyId, stats });
    }
    if (samples.length === 0) return;
    try {
      await dbSlot(() => metrics.record(samples, at));
    } catch (err) {
      // The pass's work is done; the next pass samples again (its interval then spans both).
      log.warn({ hostId, vms: samples.length, err }, 'storing a host sample failed');
    }
  }

  /** Brings one VM in line with the provider's word; true when its status changed. */
  async function follow(driver: ProviderDriver, vm: Row, state: MachineState, db: Slot = dbSlot): Promise<boolean> {
    let next: VmStatus | null = null;
    let reason: string | null = null;
    if (state === 'missing') {
      // Drivers that forget machines (the simulator) take them back: that needs the whole row, read now.
      const stored = driver.adopt ? await db(() => repo.target(vm.id)) : undefined;
      if (stored && (await adoptIfMissing(driver, stored))) return false;
      next = 'Error';
      reason = 'The machine no longer exists at the provider';
    } else if (state === 'running' && vm.status !== 'Running') next = 'Running';
    else if (state === 'stopped' && vm.status === 'Running') next = OFF_OUTSIDE_PORTAL;
    if (!next) return false;
    // Only if nothing changed it since it was read (its status, and its updatedAt: a stop and a start count).
    const updated = await db(() =>
      repo.setStatusIfUnchanged(vm.id, vm.status, { status: next, errorReason: reason }, vm.updatedAt),
    );
    if (updated) publishVm(events, updated);
    return !!updated;
  }

  /**
   * The machines a host's lifecycle events named, followed alone: their rows read by name, each machine's state
   * asked (one call each through the host's session), no sample stored. What the event changed reaches the live
   * stream in a few round trips, whatever the size of the host or a pass under way (issue 22: within 2 s).
   */
  async function followMachines(hostId: number, refs: ReadonlySet<string>): Promise<number> {
    const host = (await repo.walkTargets([{ providerId: 0, hostId }])).hosts.get(hostId);
    if (!host) return 0;
    const walk: Walk = { providerId: host.providerId, hostId };
    const rows = await repo.idleMachinesByRef(RECONCILED, walk, [...refs]);
    if (rows.length === 0) return 0;
    const [entry] = await driversOf([walk]);
    if (!entry) return 0;
    const [driver] = entry;
    let changed = 0;
    for (const row of rows) {
      try {
        // Not behind the pass's statements (its slots): an event's change goes first.
        if (await follow(driver, row, await driver.status(row.providerRef!), (task) => task())) changed++;
      } catch (err) {
        log.warn({ vmId: row.id, hostId, err }, 'reconcile failed');
      }
    }
    return changed;
  }

  const loop = createPeriodic(reconcileOnce, { intervalMs: opts.intervalMs ?? 15_000, log, what: 'reconciler' });
  let kickTimer: NodeJS.Timeout | null = null;
  let again = false;
  /** A pass soon (an engine event arrived), coalescing a burst of events into one or two passes. */
  function kick() {
    if (!loop.started) return;
    if (loop.busy) {
      again = true;
      return;
    }
    kickTimer ??= setTimeout(() => {
      kickTimer = null;
      void loop.pass().then(() => {
        if (again) {
          again = false;
          kick();
        }
      });
    }, 50);
  }

  const kickedHosts = new Set<number>();
  let hostTimer: NodeJS.Timeout | null = null;
  let hostRunning: Promise<void> | null = null;
  /**
   * A pass over one host's machines soon (its engine reported a change): the status reaches the live stream in the
   * time one host takes, not a whole pass over every host (issue 22: within 2 s). It may overlap a whole pass: the
   * conditional update keeps them from undoing each other.
   */
  function kickHost(hostId: number) {
    if (!loop.started) return;
    kickedHosts.add(hostId);
    if (!hostRunning) hostTimer ??= setTimeout(runKickedHosts, 50);
  }
  function runKickedHosts() {
    hostTimer = null;
    const only = new Set(kickedHosts);
    kickedHosts.clear();
    hostRunning = followProviders(only)
      .then(() => undefined)
      .catch((err: unknown) => log.error({ err }, 'reconciler failed'))
      .finally(() => {
        hostRunning = null;
        if (kickedHosts.size > 0 && loop.started) hostTimer ??= setTimeout(runKickedHosts, 50);
      });
  }

  const kickedMachines = new Map<number, Set<string>>();
  let machinesRunning: Promise<void> | null = null;
  /**
   * A host's engine said this machine changed (the host monitor's watch): it alone is looked at now, not its host's
   * whole walk nor at the next pass. Events that arrive while one round runs are taken by the next round.
   */
  function kickMachine(hostId: number, ref: string) {
    if (!loop.started) return;
    const refs = kickedMachines.get(hostId) ?? new Set<string>();
    refs.add(ref);
    kickedMachines.set(hostId, refs);
    machinesRunning ??= runKickedMachines();
  }
  async function runKickedMachines(): Promise<void> {
    // A burst of events (a host's start-up, a guest's reboot) comes in one round.
    await yieldToRequests();
    while (kickedMachines.size > 0 && loop.started) {
      const round = [...kickedMachines];
      kickedMachines.clear();
      await Promise.all(
        round.map(([hostId, refs]) =>
          followMachines(hostId, refs).catch((err: unknown) => log.error({ err, hostId }, 'reconciler failed')),
        ),
      );
    }
    machinesRunning = null;
  }

  return {
    reconcileOnce,
    kick,
    kickHost,
    kickMachine,
    // Once at start (machines a driver forgot come back before anyone asks for them), then on a timer.
    start: loop.start,
    async stop() {
      if (kickTimer) clearTimeout(kickTimer);
      kickTimer = null;
      if (hostTimer) clearTimeout(hostTimer);
      hostTimer = null;
      await hostRunning;
      await machinesRunning;
      await loop.stop();
    },
  };
}
