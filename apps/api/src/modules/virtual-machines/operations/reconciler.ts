/**
 * Brings stored VM status in line with what the provider reports, for VMs with no operation under
 * way: a machine powered off outside the portal becomes Shutoff, one started outside becomes Running,
 * one the provider no longer has becomes Error (or is re-adopted by drivers that can, like the simulator).
 * The same pass keeps suspended companies' machines off: a Running VM of a suspended company with no operation
 * under way gets a stop (one that was starting, or being made, when its company was suspended ends here).
 */
import type { FastifyBaseLogger } from 'fastify';
import { VM_OFF_STATUSES, type VmStatus } from '@portal/contract/vm-lifecycle';
import type { Db } from '../../../db/client.ts';
import type { ProviderRegistry } from '../../../providers/registry.ts';
import type { MachineState, ProviderDriver } from '../../../providers/provider.ts';
import type { Audit } from '../../../lib/audit.ts';
import { systemClock, type Clock } from '../../../lib/clock.ts';
import { publishVm, type VmEvents } from '../vm-events.ts';
import { adoptIfMissing } from './adopt.ts';
import { createEnqueue, queueSuspensionStops } from './enqueue.ts';
import { createOperationsRepository } from './operations.repository.ts';

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
  intervalMs?: number;
  /** Where the sweep's stops are recorded: the app's audit log. */
  audit: Audit;
  /** Told when the pass queued operations (the runner looks at once rather than at its next poll). */
  onQueued?: () => void;
  /** VMs read per query in a pass (tests make it small to cross pages). */
  pageSize?: number;
  /** Hosts asked for their machines' states at once. */
  hostConcurrency?: number;
}) {
  const { db, registry, events, log } = opts;
  const clock = opts.clock ?? systemClock;
  const pageSize = opts.pageSize ?? 500;
  const hostConcurrency = opts.hostConcurrency ?? 8;
  const repo = createOperationsRepository(db, clock);
  const enqueue = createEnqueue({ db, audit: opts.audit, events, clock });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

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

  async function followProviders(): Promise<number> {
    let changed = 0;
    for (let afterId = 0; ;) {
      const rows = await repo.idleMachines(RECONCILED, afterId, pageSize);
      changed += await followPage(rows);
      if (rows.length < pageSize) return changed;
      afterId = rows[rows.length - 1]!.vm.id;
    }
  }

  /**
   * The page's VMs by driver instance (one per provider, and per host of a libvirt provider), with the states of
   * each group's machines: one statusAll() per group where the driver has it, asked after the page was read (a
   * state older than the row could undo what the portal did meanwhile), a few hosts at a time.
   */
  async function statesOf(rows: Row[]) {
    const groups = new Map<ProviderDriver, Row[]>();
    for (const row of rows) {
      try {
        const driver = registry.driverFor(row.provider, row.host);
        const group = groups.get(driver);
        if (group) group.push(row);
        else groups.set(driver, [row]);
      } catch (err) {
        log.warn({ vmId: row.vm.id, err }, 'reconcile failed');
      }
    }
    /** A group's states, or null when its host did not answer (its VMs stay as they are this pass). */
    const states = new Map<ProviderDriver, Map<string, MachineState> | null>();
    const queue = [...groups.keys()].filter((driver) => driver.statusAll);
    const ask = async () => {
      for (;;) {
        const driver = queue.shift();
        if (!driver) return;
        const group = groups.get(driver)!;
        const answer = await driver.statusAll!().catch((err: unknown) => {
          log.warn({ hostId: group[0]!.host?.id ?? null, vms: group.length, err }, 'reconcile failed for a host');
          return null;
        });
        states.set(driver, answer);
      }
    };
    await Promise.all(Array.from({ length: Math.min(hostConcurrency, queue.length) }, ask));
    return { groups, states };
  }

  async function followPage(rows: Row[]): Promise<number> {
    let changed = 0;
    const { groups, states } = await statesOf(rows);
    for (const [driver, group] of groups) {
      const batch = states.get(driver);
      if (batch === null) continue;
      for (const row of group) {
        try {
          const ref = row.vm.providerRef!;
          // Drivers without statusAll are asked per VM, as before.
          const state = batch ? (batch.get(ref) ?? 'missing') : await driver.status(ref);
          if (await follow(driver, row, state)) changed++;
        } catch (err) {
          log.warn({ vmId: row.vm.id, err }, 'reconcile failed');
        }
      }
    }
    return changed;
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
    // Only if nothing changed it meanwhile.
    const updated = await repo.setStatusIfUnchanged(vm.id, vm.status, { status: next, errorReason: reason });
    if (updated) publishVm(events, updated);
    return !!updated;
  }

  let kickTimer: NodeJS.Timeout | null = null;
  let again = false;
  /** A pass soon (an engine event arrived), coalescing a burst of events into one or two passes. */
  function kick() {
    if (!timer) return;
    if (running) {
      again = true;
      return;
    }
    kickTimer ??= setTimeout(() => {
      kickTimer = null;
      running ??= reconcileOnce()
        .then(() => undefined)
        .catch((err: unknown) => log.error({ err }, 'reconciler failed'))
        .finally(() => {
          running = null;
          if (again) {
            again = false;
            kick();
          }
        });
    }, 50);
  }

  return {
    reconcileOnce,
    kick,
    start() {
      if (timer) return;
      const pass = () => {
        running ??= reconcileOnce()
          .then(() => undefined)
          .catch((err: unknown) => log.error({ err }, 'reconciler failed'))
          .finally(() => {
            running = null;
          });
      };
      // Once at start (machines a driver forgot come back before anyone asks for them), then on a timer.
      pass();
      timer = setInterval(pass, opts.intervalMs ?? 15_000);
      timer.unref();
    },
    async stop() {
      if (kickTimer) clearTimeout(kickTimer);
      kickTimer = null;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
