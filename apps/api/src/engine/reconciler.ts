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
import type { EngineMetrics } from './metrics/metrics.ts';
import { publishVm, type VmEvents } from './vm-events.ts';
import { adoptIfMissing } from './operations/adopt.ts';
import { createEnqueue, queueSuspensionStops } from './operations/enqueue.ts';
import { createOperationsRepository, type Walk } from './operations/operations.repository.ts';
import { createPeriodic } from './periodic.ts';

/** Resting statuses the provider's word may change (an Error VM waits for its user). */
const RECONCILED: readonly VmStatus[] = ['Running', ...VM_OFF_STATUSES];
/** What a machine that was powered off outside the portal shows. */
const OFF_OUTSIDE_PORTAL: VmStatus = 'Shutoff';

type Row = Awaited<ReturnType<ReturnType<typeof createOperationsRepository>['idleMachines']>>[number];

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
  /**
   * The most rows of one driver held before its states are asked: memory stays bounded for a provider with a huge
   * number of machines on one driver (a simulator's); a libvirt host stays far below it and is asked once per pass.
   */
  hostBatchLimit?: number;
}) {
  const { db, registry, events, log } = opts;
  const clock = opts.clock ?? systemClock;
  const pageSize = opts.pageSize ?? 500;
  const hostConcurrency = opts.hostConcurrency ?? 8;
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
   * (statusAll), a few hosts at a time. The states are asked after the rows are read: a state older than its row
   * could undo what an operation did in between. One newer than its row is harmless: the update is conditional on
   * the row as read (status and updatedAt), so an operation that finished meanwhile is never overwritten.
   */
  async function followProviders(onlyHosts?: ReadonlySet<number>): Promise<number> {
    const walks = (await repo.reconcileWalks()).filter(
      (w) => !onlyHosts || (w.hostId !== null && onlyHosts.has(w.hostId)),
    );
    const targets = await repo.walkTargets(walks);
    const byDriver = new Map<ProviderDriver, Walk[]>();
    for (const walk of walks) {
      const provider = targets.providers.get(walk.providerId);
      const host = walk.hostId ? targets.hosts.get(walk.hostId) : null;
      if (!provider || host === undefined) continue; // removed since the walks were listed
      try {
        // A simulator provider's hosts share its one driver: their walks are read together and asked once.
        const driver = registry.driverFor(provider, host);
        byDriver.set(driver, [...(byDriver.get(driver) ?? []), walk]);
      } catch (err) {
        log.warn({ providerId: walk.providerId, hostId: walk.hostId, err }, 'reconcile failed for a host');
      }
    }
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

  /** One driver's walks: its idle VMs read page by page, then its states asked once (per `hostBatchLimit` rows). */
  async function followDriver(driver: ProviderDriver, walks: Walk[]): Promise<number> {
    let changed = 0;
    let rows: Row[] = [];
    for (const walk of walks) {
      for (let afterId = 0; ;) {
        const page = await repo.idleMachines(RECONCILED, walk, afterId, pageSize);
        rows.push(...page);
        if (rows.length >= hostBatchLimit) {
          changed += await followRows(driver, rows);
          rows = [];
        }
        if (page.length < pageSize) break;
        afterId = page[page.length - 1]!.vm.id;
      }
    }
    if (rows.length) changed += await followRows(driver, rows);
    return changed;
  }

  /** Rows already read, compared with their driver's states asked now; a host that does not answer is left as is. */
  async function followRows(driver: ProviderDriver, rows: Row[]): Promise<number> {
    let states: Map<string, MachineState> | null = null;
    let sample: HostSample | null = null;
    let sampledAt = clock.now();
    const sampling = opts.metrics && driver.sampleAll;
    if (sampling || driver.statusAll) {
      try {
        if (sampling) {
          sample = await driver.sampleAll!();
          sampledAt = clock.now();
          states = sample.states;
        } else states = await driver.statusAll!();
      } catch (err) {
        log.warn({ hostId: rows[0]!.host?.id ?? null, vms: rows.length, err }, 'reconcile failed for a host');
        return 0;
      }
    }
    let changed = 0;
    for (const row of rows) {
      try {
        const ref = row.vm.providerRef!;
        // Drivers without statusAll are asked per VM, as before.
        const state = states ? (states.get(ref) ?? 'missing') : await driver.status(ref);
        if (await follow(driver, row, state)) changed++;
      } catch (err) {
        log.warn({ vmId: row.vm.id, err }, 'reconcile failed');
      }
    }
    if (sample && opts.metrics) await recordSample(opts.metrics, rows, sample, sampledAt);
    return changed;
  }

  /** The statistics of the rows' machines in the host's sample, stored at once (one write per host). */
  async function recordSample(metrics: Pick<EngineMetrics, 'record'>, rows: Row[], sample: HostSample, at: Date) {
    const samples = [];
    for (const { vm } of rows) {
      const stats = sample.stats.get(vm.providerRef!);
      if (stats) samples.push({ vmId: vm.id, companyId: vm.companyId, stats });
    }
    if (samples.length === 0) return;
    try {
      await metrics.record(samples, at);
    } catch (err) {
      // The pass's work is done; the next pass samples again (its interval then spans both).
      log.warn({ hostId: rows[0]!.host?.id ?? null, vms: samples.length, err }, 'storing a host sample failed');
    }
  }

  /** Brings one VM in line with the provider's word; true when its status changed. */
  async function follow(driver: ProviderDriver, { vm, config, region }: Row, state: MachineState): Promise<boolean> {
    let next: VmStatus | null = null;
    let reason: string | null = null;
    if (state === 'missing') {
      if (await adoptIfMissing(driver, { vm, config, region })) return false;
      next = 'Error';
      reason = 'The machine no longer exists at the provider';
    } else if (state === 'running' && vm.status !== 'Running') next = 'Running';
    else if (state === 'stopped' && vm.status === 'Running') next = OFF_OUTSIDE_PORTAL;
    if (!next) return false;
    // Only if nothing changed it since it was read (its status, and its updatedAt: a stop and a start count).
    const updated = await repo.setStatusIfUnchanged(
      vm.id,
      vm.status,
      { status: next, errorReason: reason },
      vm.updatedAt,
    );
    if (updated) publishVm(events, updated);
    return !!updated;
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

  return {
    reconcileOnce,
    kick,
    kickHost,
    // Once at start (machines a driver forgot come back before anyone asks for them), then on a timer.
    start: loop.start,
    async stop() {
      if (kickTimer) clearTimeout(kickTimer);
      kickTimer = null;
      if (hostTimer) clearTimeout(hostTimer);
      hostTimer = null;
      await hostRunning;
      await loop.stop();
    },
  };
}
