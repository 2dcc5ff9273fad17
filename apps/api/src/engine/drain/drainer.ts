/**
 * Draining (docs/draining.md): a host set to draining has its machines moved off, ONE AT A TIME, to other hosts of
 * its provider and region that placement would choose (enabled, not draining, answering, with room for the VM's size
 * within capacity × overcommit). Each move is an operation ('move') queued like any other: the operation, the VM's
 * in-progress status and its audit entry in one transaction (enqueue.ts); the runner carries it out (the driver's
 * moveTo) and the VM keeps its id, name, addresses and power state.
 *
 * A pass, per draining host that answers:
 *  - VMs without a machine that will never get one (a create that failed for good) let go of the host;
 *  - nothing more while a move off the host is queued or running;
 *  - else the first movable VM (resting, nothing under way, no failed move within `retryFailedAfterMs`) that some
 *    host can take gets a move. The target is chosen, then checked again with the source's one-at-a-time rule under
 *    the region's host locks (taken in id order, as placement takes them) in the transaction that queues the move;
 *    from then on the VM counts on the target too (db/host-usage.ts), so its room is held while its disk copies.
 * A failed move leaves the VM where it was (the runner records why); the next pass moves on to the host's other VMs.
 * A host whose VMs are all gone is drained (the host lists say so).
 */
import type { FastifyBaseLogger } from 'fastify';
import { VM_STEADY_STATUSES, type VmStatus } from '@portal/contract/vm-lifecycle';
import type { Db } from '../../db/client.ts';
import type { Audit } from '../../lib/audit.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { allocatedFraction, chooseHost, hostLoads, unavailableReason } from '../placement.ts';
import { createEnqueue, type EnqueueOutcome } from '../operations/enqueue.ts';
import type { VmEvents } from '../vm-events.ts';
import { createDrainRepository, type DrainHost } from './drain.repository.ts';
import { createPeriodic } from '../periodic.ts';

/** The audit entry's cause of a move (with the hosts' names; their ids are the operation's payload). */
export const drainCause = (from: string, to: string) => `host ${from} is draining; moved to ${to}`;

type SteadyStatus = (typeof VM_STEADY_STATUSES)[number];
const isSteady = (s: VmStatus): s is SteadyStatus => (VM_STEADY_STATUSES as readonly VmStatus[]).includes(s);

/** The checks under the locks refused: left for a later pass. */
class NotNow extends Error {
  override name = 'NotNow';
}

export type DrainStep = EnqueueOutcome | 'no-room' | 'not-now';

export function createDrainer(opts: {
  db: Db;
  events: VmEvents;
  audit: Audit;
  log: FastifyBaseLogger;
  clock?: Clock;
  intervalMs?: number;
  /** How long a VM whose move failed waits before it is tried again (the host's other VMs go first). */
  retryFailedAfterMs?: number;
  /** Told when a pass queued moves (the runner looks at once rather than at its next poll). */
  onQueued?: () => void;
}) {
  const { db, log } = opts;
  const clock = opts.clock ?? systemClock;
  const retryFailedAfterMs = opts.retryFailedAfterMs ?? 10 * 60_000;
  const repo = createDrainRepository(db);
  const enqueue = createEnqueue({ db, audit: opts.audit, events: opts.events, clock });
  /** Hosts whose VMs no host could take, last pass (logged once until that changes). */
  const stuck = new Set<number>();

  /** Queues the move of one VM off `host` to the host placement chooses; answers what happened. */
  async function queueMove(
    host: DrainHost,
    vm: Awaited<ReturnType<typeof repo.movable>>[number]['vm'],
    size: { cpu: number; ram: number; disk: number },
  ): Promise<DrainStep> {
    if (!isSteady(vm.status)) return 'not-now';
    const target = await db.transaction(async (tx) =>
      chooseHost(
        (await hostLoads(tx, host.providerId, host.regionId)).filter((l) => l.host.id !== host.id),
        size,
      ),
    );
    if (!target) return 'no-room';
    const operation = {
      kind: 'move' as const,
      payload: { fromHostId: host.id, toHostId: target.id, status: vm.status },
    };
    try {
      return await enqueue(vm, operation, { userId: null, cause: drainCause(host.name, target.name) }, async (tx) => {
        // The region's hosts locked as placement locks them (id order), so a create cannot take the room meanwhile.
        const loads = await hostLoads(tx, host.providerId, host.regionId);
        if (!loads.find((l) => l.host.id === host.id)?.host.draining) throw new NotNow('no longer draining');
        if (await repo.moveUnderWay(tx, host.id)) throw new NotNow('a move off this host is under way');
        const load = loads.find((l) => l.host.id === target.id);
        if (!load || unavailableReason(load.host) || allocatedFraction(load, size) > 1)
          throw new NotNow('the target changed');
      });
    } catch (err) {
      if (err instanceof NotNow) return 'not-now';
      throw err;
    }
  }

  /** One draining host: at most one move queued; answers whether one was. */
  async function drainHost(host: DrainHost): Promise<boolean> {
    const released = await repo.releaseMachineless(host.id);
    if (released) log.info({ host: host.name, vms: released }, 'draining: VMs without a machine let go of the host');
    // A host that does not answer cannot give its disks; its monitor says when it does again.
    if (host.lastError) return false;
    if (await repo.moveUnderWay(db, host.id)) return false;
    const retryAfter = new Date(clock.now().getTime() - retryFailedAfterMs);
    const candidates = await repo.movable(db, host.id, retryAfter, 20);
    let noRoom = 0;
    for (const { vm, config } of candidates) {
      const step = await queueMove(host, vm, { cpu: config.cpu, ram: config.ram, disk: config.disk });
      if (step === 'queued') {
        stuck.delete(host.id);
        log.info({ host: host.name, vmId: vm.id }, `draining ${host.name}: moving VM ${vm.id}`);
        return true;
      }
      // Another VM may still fit, or not be busy; 'not-now' from the locks means another instance got there first.
      if (step === 'not-now') return false;
      if (step === 'no-room') noRoom++;
    }
    if (noRoom > 0 && !stuck.has(host.id)) {
      stuck.add(host.id);
      log.warn({ host: host.name, vms: noRoom }, `draining ${host.name}: no other host of its region can take its VMs`);
    }
    return false;
  }

  /** One pass over every draining host; answers how many moves it queued. */
  async function drainOnce(): Promise<number> {
    let queued = 0;
    for (const { host } of await repo.draining()) {
      try {
        if (await drainHost(host)) queued++;
      } catch (err) {
        log.warn({ host: host.name, err }, `draining ${host.name} failed`);
      }
    }
    if (queued) opts.onQueued?.();
    return queued;
  }

  const loop = createPeriodic(drainOnce, { intervalMs: opts.intervalMs ?? 5_000, log, what: 'drainer' });

  return {
    drainOnce,
    /** A pass soon (a host was set to draining, a move ended); a no-op until started. */
    kick() {
      if (loop.started) void loop.pass();
    },
    start: loop.start,
    stop: loop.stop,
  };
}
export type Drainer = ReturnType<typeof createDrainer>;
