/**
 * The durable operation runner. Work is recorded in `operations` before anything runs; a runner claims
 * one due row at a time with FOR UPDATE SKIP LOCKED (safe with several API instances), holds it under a
 * lease, calls the provider driver, and records the outcome. Transient failures are retried with
 * exponential backoff; a permanent failure of a create puts the VM in Error with the reason, of any other
 * action leaves it as the provider reports it (reason kept). A power-on shows Starting from the moment the driver
 * says the guest boots (its onBooting) until the guest answers (docs/virtual-machines.md, "Starting"); a guest that
 * never answers is a permanent failure with the machine kept. The lease is extended while the driver works;
 * a row whose lease ran out (its runner died) is claimed again, and drivers are idempotent by key, so
 * nothing is done twice. The outcome and the VM's new state are written in one transaction.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { BACKUP_TEXT } from '@portal/contract/backups';
import {
  OPERATIONS,
  operationSchema,
  type Operation,
  type OperationKind,
  type OperationPayload,
  type VmStatus,
} from '@portal/contract/vm-lifecycle';
import type { Db } from '../../db/client.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import {
  GuestNotReadyError,
  MOVE_UNFINISHED,
  MoveUnfinishedError,
  TransientProviderError,
  type BootOptions,
  type MachineState,
  type ProviderDriver,
} from '../../providers/provider.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { publishVm, type VmEvents } from '../vm-events.ts';
import type { SecretBox } from '../vm-secrets.ts';
import { createDrainRepository, type DrainRepository } from '../drain/drain.repository.ts';
import { createHostsRepository } from '../hosts/hosts.repository.ts';
import { unavailableReason } from '../placement.ts';
import { adoptIfMissing, specOf } from './adopt.ts';
import { createSnapshotRows, type SnapshotRows } from './snapshots.ts';
import { createBackupRows, type BackupRows } from './backups.ts';
import {
  createOperationsRepository,
  parseOperation,
  type Claim,
  type OperationRow,
  type OperationTarget,
  type OperationsRepository,
  type VmPatch,
} from './operations.repository.ts';

export interface RunnerOptions {
  db: Db;
  registry: ProviderRegistry;
  events: VmEvents;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  /** Leases and retry delays are measured on it (tests move it instead of sleeping). */
  clock?: Clock;
  pollMs?: number;
  /**
   * How long a claim holds before another runner may take the operation over (default DEFAULT_LEASE_MS). A live
   * runner renews it every third of a lease, however long the driver call; so it can be short, and work whose
   * runner died (kill -9) is taken over within seconds instead of minutes.
   */
  leaseMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. */
  backoffMs?: number;
  /** How many backup takes run at once per host without a limit of its own (BACKUP_CONCURRENCY_PER_HOST; 0025, 0027). */
  backupsPerHost?: number;
}

/** The longest wait between tries of an action on a VM whose host does not answer. */
const HOST_DOWN_RETRY_MS = 15_000;
/** 15 s, renewed every 5 s: a dead runner's work is taken over 10-15 s after its last renewal. */
export const DEFAULT_LEASE_MS = 15_000;

/** The VM status matching what the provider reports, after an action failed for good. */
const STATUS_OF_MACHINE: Record<MachineState, VmStatus> = { running: 'Running', stopped: 'Stopped', missing: 'Error' };

interface StepContext<K extends OperationKind> {
  driver: ProviderDriver;
  target: OperationTarget;
  payload: OperationPayload<K>;
  /** The machine's id at the provider; throws when it was never created. */
  ref: () => string;
  /** For the driver's power-on calls: the VM shows Starting while the guest boots. */
  boot: BootOptions;
}
type Steps = { [K in OperationKind]: (c: StepContext<K>) => Promise<VmPatch> };

/** One driver call per operation kind; the VM's new state comes from the lifecycle table. */
function createSteps(
  repo: OperationsRepository,
  secrets: SecretBox,
  clock: Clock,
  registry: ProviderRegistry,
  drain: DrainRepository,
  snapshots: SnapshotRows,
  backups: BackupRows,
): Steps {
  /** A snapshot take or delete keeps the power state: Shutoff stays Shutoff (the machine only says 'stopped'). */
  async function keptStatus(driver: ProviderDriver, ref: string, before: VmStatus): Promise<VmStatus> {
    const state = await driver.status(ref);
    return state === 'stopped' && before === 'Shutoff' ? 'Shutoff' : STATUS_OF_MACHINE[state];
  }
  return {
    async create({ driver, target: { vm, config, region }, boot, payload }) {
      const made = await driver.create(
        {
          ...specOf({ vm, config, region }),
          password: vm.sshPassword ? secrets.open(vm.sshPassword) : '',
          userData: vm.userData ? secrets.open(vm.userData) : null,
          // A restore as a new VM (issue 24 item 2): its disk is a copy of the backup.
          ...(payload.fromBackup ? { fromBackup: payload.fromBackup.providerName } : {}),
        },
        boot,
      );
      if (payload.fromBackup) await backups.restored(payload.fromBackup.backupId);
      // The address of the region's public pool (allocated at create) wins over one the driver made up.
      return {
        status: OPERATIONS.create.endsIn,
        providerRef: made.ref,
        publicIp: vm.publicIp ?? made.publicIp,
        privateIp: made.privateIp,
      };
    },
    async start({ driver, ref, boot }) {
      await driver.start(ref(), boot);
      return { status: OPERATIONS.start.endsIn };
    },
    async stop({ driver, ref }) {
      await driver.stop(ref());
      return { status: OPERATIONS.stop.endsIn };
    },
    async forceStop({ driver, ref }) {
      await driver.forceStop(ref());
      return { status: OPERATIONS.forceStop.endsIn };
    },
    async reset({ driver, ref, boot }) {
      await driver.reset(ref(), boot);
      return { status: OPERATIONS.reset.endsIn };
    },
    async resize({ driver, ref, payload: { configurationId }, boot }) {
      const target = await repo.configuration(configurationId);
      if (!target) throw new Error('The target configuration no longer exists');
      const wasRunning = (await driver.status(ref())) === 'running';
      await driver.resize(ref(), { cpu: target.cpu, ramGb: target.ram, diskGb: target.disk });
      // New vCPUs and memory apply at power-on: a running machine is shut down and started again, so the
      // guest sees its new size when the upgrade ends. It keeps its power state (OPERATIONS.resize.endsIn is 'unchanged').
      if (wasRunning) {
        await driver.stop(ref());
        await driver.start(ref(), boot);
      }
      return { status: STATUS_OF_MACHINE[await driver.status(ref())], configurationId };
    },
    async delete({ driver, target: { vm }, payload }) {
      if (vm.providerRef) await driver.delete(vm.providerRef);
      await snapshots.dropAll(vm.id); // they lived in its disk
      // Its backups live outside it: kept when asked (vm_id null), deleted otherwise (issue 24 item 2).
      await backups.onVmDeleted(vm.id, payload.keepBackups ?? false, driver);
      // Its public address goes back to the region's pool.
      await repo.releasePublicAddress(vm.id);
      // A deleted VM rests powered off; deletedAt hides it (OPERATIONS.delete.endsIn is 'deleted').
      return { status: OPERATIONS.stop.endsIn, deletedAt: clock.now(), publicIp: null };
    },
    // A reinstall (issue 23 item 6): the same machine (ref, size, addresses) from the new image, with the keys and
    // user-data the service wrote on the VM when it queued this, and the portal's password and key as they were.
    async rebuild({ driver, target: { vm, config, region }, payload, ref, boot }) {
      if (!driver.rebuild) throw new Error(`The ${driver.kind} driver cannot rebuild machines`);
      await driver.rebuild(
        ref(),
        {
          ...specOf({ vm: { ...vm, image: payload.image }, config, region }),
          password: vm.sshPassword ? secrets.open(vm.sshPassword) : '',
          userData: vm.userData ? secrets.open(vm.userData) : null,
        },
        boot,
      );
      await snapshots.dropAll(vm.id); // a new disk: the old one's snapshots went with it
      return { status: OPERATIONS.rebuild.endsIn, image: payload.image };
    },
    // A draining host's machine to another host of its provider and region (engine/drain, docs/draining.md). The VM
    // keeps its id, name, addresses and power state; its host changes only once the machine is there, in the
    // transaction that records the outcome. A failure leaves it on its host as it was (the driver's promise).
    async move({ driver, target: { vm, provider, host }, payload, ref }) {
      if (vm.hostId !== payload.fromHostId) throw new Error('The VM is no longer on the host it was to move from');
      const to = await drain.hostById(payload.toHostId);
      if (!to || to.host.providerId !== vm.providerId || to.host.regionId !== vm.regionId)
        throw new Error('The target host is gone or no longer serves this VM');
      const why = unavailableReason(to.host);
      if (why) throw new Error(`Host ${to.host.name} is ${why}; the VM stays on ${host?.name ?? 'its host'}`);
      if (!driver.moveTo) throw new Error(`The ${driver.kind} driver cannot move machines between hosts`);
      const toDriver = registry.driverFor(provider, to.host);
      await driver.moveTo(ref(), toDriver, { running: payload.status === 'Running' });
      const state = await toDriver.status(ref());
      // Powered off it keeps its word for it (Stopped, or Shutoff when it was powered off outside the portal).
      const status = state === 'stopped' && payload.status === 'Shutoff' ? 'Shutoff' : STATUS_OF_MACHINE[state];
      return { hostId: to.host.id, status };
    },
    // Snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md): the driver's call by the portal's name for it,
    // then its row. A take or a delete keeps the power state; a revert ends as the machine is (as it was taken).
    async snapshot({ driver, payload, ref }) {
      if (!driver.snapshotTake) throw new Error(`The ${driver.kind} driver cannot take snapshots`);
      await snapshots.taken(payload.snapshotId, await driver.snapshotTake(ref(), payload.providerName));
      return { status: await keptStatus(driver, ref(), payload.status) };
    },
    async snapshotRevert({ driver, payload, ref }) {
      if (!driver.snapshotRevert) throw new Error(`The ${driver.kind} driver cannot revert snapshots`);
      await driver.snapshotRevert(ref(), payload.providerName);
      await snapshots.reverted(payload.snapshotId);
      return { status: await keptStatus(driver, ref(), payload.status) };
    },
    async snapshotDelete({ driver, payload, ref }) {
      if (!driver.snapshotDelete) throw new Error(`The ${driver.kind} driver cannot delete snapshots`);
      await driver.snapshotDelete(ref(), payload.providerName);
      await snapshots.deleted(payload.snapshotId);
      return { status: await keptStatus(driver, ref(), payload.status) };
    },
    // Backups (issue 24 item 2; docs/decisions/0021-backups.md): the driver's call by the portal's name for it, then
    // its row. A take keeps the power state (the VM showed it all along); a restore ends as the machine is (started
    // again if it ran).
    // A take runs beside the VM's lifecycle slot (decision 0025): it writes no VM status (the runner leaves the VM as
    // it is), a stop or start may run during it. A take whose row ended meanwhile (interrupted, or deleted with its VM)
    // leaves no copy behind.
    async backup({ driver, payload, ref }) {
      if (!driver.backupTake) throw new Error(`The ${driver.kind} driver cannot take backups`);
      if (!(await backups.begin(payload.backupId))) throw new Error(BACKUP_TEXT.removedBeforeStart);
      const info = await driver.backupTake(ref(), payload.providerName);
      if (!(await backups.taken(payload.backupId, info))) await driver.backupDelete?.(payload.providerName);
      return {};
    },
    async backupRestore({ driver, target: { vm }, payload, ref, boot }) {
      if (!driver.backupRestore) throw new Error(`The ${driver.kind} driver cannot restore backups`);
      // A running machine is started again on the restored disk: Running once its guest answers, as after a start.
      await driver.backupRestore(ref(), payload.providerName, boot);
      await backups.restored(payload.backupId);
      // The disk was replaced by the backup's copy: the snapshots inside the old one went with it (decision 0022).
      await snapshots.dropAll(vm.id);
      return { status: await keptStatus(driver, ref(), payload.status) };
    },
  };
}

/** Runs an operation's step with its own payload type (a correlated union, no cast). */
function runStep<K extends OperationKind>(
  steps: Steps,
  op: { kind: K; payload: OperationPayload<K> },
  c: Omit<StepContext<K>, 'payload'>,
): Promise<VmPatch> {
  const step: Steps[K] = steps[op.kind];
  return step({ ...c, payload: op.payload });
}

export function createOperationRunner(opts: RunnerOptions) {
  const { db, registry, events, log } = opts;
  const clock = opts.clock ?? systemClock;
  const repo = createOperationsRepository(db, clock);
  const backups = createBackupRows(db, clock);
  const snapshots = createSnapshotRows(db, clock);
  const steps = createSteps(repo, opts.secrets, clock, registry, createDrainRepository(db), snapshots, backups);
  const workerId = `runner-${randomUUID().slice(0, 8)}`;
  const pollMs = opts.pollMs ?? 250;
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const maxAttempts = opts.maxAttempts ?? 5;
  const backoffMs = opts.backoffMs ?? 1000;
  const backupsPerHost = opts.backupsPerHost ?? 2;
  const hostRows = createHostsRepository(db);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Set by stop(): no more claims. (tick() works before start(), for tests.) */
  let halted = false;
  let started = false;
  const inFlight = new Set<Promise<unknown>>();
  /** Claims whose lease this runner renews; a crashed runner (stop with abandon) renews none. */
  const held = new Set<Claim>();
  let renewTimer: NodeJS.Timeout | null = null;

  /** Extends the lease of every claim in flight, so a slow action is not taken over by another runner. */
  async function renewLeases(): Promise<void> {
    await Promise.all(
      [...held].map((claim) =>
        repo
          .renewLease(claim, leaseMs)
          .catch((err: unknown) => log.warn({ err, operationId: claim.op.id }, 'could not extend the lease')),
      ),
    );
  }

  function holdLease(claim: Claim): () => void {
    held.add(claim);
    if (!renewTimer) {
      renewTimer = setInterval(() => void renewLeases(), Math.max(10, Math.floor(leaseMs / 3)));
      renewTimer.unref();
    }
    return () => {
      held.delete(claim);
      if (held.size === 0 && renewTimer) {
        clearInterval(renewTimer);
        renewTimer = null;
      }
    };
  }

  /** The VM status that matches what the provider reports, after an action failed for good. */
  async function observedStatus(driver: ProviderDriver, ref: string | null): Promise<VmStatus> {
    if (!ref) return STATUS_OF_MACHINE.missing;
    try {
      return STATUS_OF_MACHINE[await driver.status(ref)];
    } catch {
      return STATUS_OF_MACHINE.missing;
    }
  }

  async function finishAndPublish(
    claim: Claim,
    patch: Parameters<OperationsRepository['finish']>[1],
    vmPatch?: VmPatch,
  ) {
    const { vm } = await repo.finish(claim, patch, vmPatch);
    if (vm) publishVm(events, vm);
  }

  /**
   * The driver's onBooting for this claim: the VM shows Starting since now (published at once), while the claim holds.
   * A failed write is logged, never thrown into the driver: the machine boots either way.
   */
  function bootOptions(claim: Claim): BootOptions {
    return {
      onBooting: async () => {
        try {
          const vm = await repo.markBooting(claim, clock.now());
          if (vm) publishVm(events, vm);
        } catch (err) {
          log.warn({ err, operationId: claim.op.id }, 'could not show the VM as Starting');
        }
      },
    };
  }

  /** The VM as it is, published: an operation beside its lifecycle slot ended (its Backups card refreshes). */
  async function publishUnchanged(vmId: number) {
    const vm = await repo.vm(vmId).catch(() => null);
    if (vm) publishVm(events, vm);
  }

  /**
   * Takes whose runner died mid-way (kill -9 of the API; their lease ran out) end failed, "interrupted": a half-made
   * copy is never shown complete (decision 0025). Run before each claim round, so at start and while running.
   */
  async function endInterrupted() {
    const ended = await repo.endInterrupted(
      BACKUP_TEXT.interrupted,
      [...held].map((c) => c.op.id),
    );
    for (const op of ended) {
      log.warn({ operationId: op.id, vmId: op.vmId }, `operation ${op.kind} interrupted (its runner stopped)`);
      await backups.failed(op, BACKUP_TEXT.interrupted).catch(() => undefined);
      await publishUnchanged(op.vmId);
    }
  }

  async function runOne(): Promise<boolean> {
    const working = [...held].map((c) => c.op.id);
    const op: OperationRow | null =
      (await repo.claim(workerId, leaseMs, working)) ??
      (await repo.claimBeside(workerId, leaseMs, backupsPerHost, working));
    if (!op) return false;
    const claim: Claim = { op, workerId };
    // Beside the VM's lifecycle slot (a backup take, decision 0025): the VM's row is never written, a host down ends it.
    const beside = op.lane !== 'vm';
    const work = (async () => {
      const release = holdLease(claim);
      let driver: ProviderDriver | null = null;
      let target: OperationTarget | undefined;
      try {
        target = await repo.target(op.vmId);
        if (!target) throw new Error('The VM or its provider no longer exists');
        driver = registry.driverFor(target.provider, target.host);
        if (beside && target.host?.lastError) throw new HostDownError(target.host.name, target.host.lastError);
        // Claimed again and again (its runners keep dying, or retries ran out): give up. Not while the VM's
        // host is known to be down: the action waits for it to answer again.
        // Nor a move whose machine already runs on its new host: only its removal from the old one is left.
        if (op.attempts > maxAttempts && !target.host?.lastError && !op.lastError?.startsWith(MOVE_UNFINISHED))
          throw new Error(`Gave up after ${op.attempts - 1} attempts`);
        const operation: Operation = parseOperation(op);
        const { vm } = target;
        if (vm.providerRef && operation.kind !== 'create') await adoptIfMissing(driver, target);
        const ref = () => {
          if (!vm.providerRef) throw new Error('The machine was never created at the provider');
          return vm.providerRef;
        };
        const patch = await runStep(steps, operation, { driver, target, ref, boot: bootOptions(claim) });
        if (beside) {
          await repo.finish(claim, {
            status: 'succeeded',
            finishedAt: clock.now(),
            lastError: null,
            lockedBy: null,
            lockedUntil: null,
          });
          await publishUnchanged(op.vmId);
          return;
        }
        await finishAndPublish(
          claim,
          { status: 'succeeded', finishedAt: clock.now(), lastError: null, lockedBy: null, lockedUntil: null },
          { ...patch, errorReason: null, bootingSince: null },
        );
      } catch (err) {
        if (beside) {
          await failBeside(claim, err, target);
          return;
        }
        const reason = err instanceof Error ? err.message : String(err);
        const hostDown = target?.host?.lastError ? target.host : null;
        const unfinished = err instanceof MoveUnfinishedError;
        if (err instanceof TransientProviderError && (op.attempts < maxAttempts || hostDown || unfinished)) {
          const delay = Math.min(
            backoffMs * 2 ** (op.attempts - 1),
            hostDown || unfinished ? HOST_DOWN_RETRY_MS : Number.MAX_SAFE_INTEGER,
          );
          if (hostDown && target) {
            // The VM keeps its status; its reason says why the action waits.
            const vm = await repo.setReason(
              op.vmId,
              `Host ${hostDown.name} is unreachable; the ${op.kind} will be retried when it answers`,
            );
            if (vm) publishVm(events, vm);
          }
          await retryLater(claim, reason, delay);
          return;
        }
        log.error({ operationId: op.id, vmId: op.vmId }, `operation ${op.kind} failed: ${reason}`);
        // A failed create leaves no machine: Error. A failed action on an existing machine leaves it as
        // the provider sees it (with the reason kept), so the VM can still be operated. A guest that did not answer
        // after a power-on (GuestNotReadyError) leaves a machine too, even from a create: the VM keeps it, as it is.
        const made = err instanceof GuestNotReadyError ? err.created : null;
        const status =
          (op.kind === 'create' && !made) || !driver
            ? STATUS_OF_MACHINE.missing
            : await observedStatus(driver, made?.ref ?? target?.vm.providerRef ?? null);
        const kept: VmPatch = {};
        if (op.kind === 'create' && made)
          Object.assign(kept, {
            providerRef: made.ref,
            publicIp: target?.vm.publicIp ?? made.publicIp,
            privateIp: made.privateIp,
          });
        // A rebuild or an upgrade whose guest did not answer afterwards was done all the same: the machine runs the new
        // image, or has the new size (and is billed for it).
        const done =
          err instanceof GuestNotReadyError ? operationSchema.safeParse({ kind: op.kind, payload: op.payload }) : null;
        if (done?.success && done.data.kind === 'rebuild') kept.image = done.data.payload.image;
        if (done?.success && done.data.kind === 'resize') kept.configurationId = done.data.payload.configurationId;
        await finishAndPublish(
          claim,
          { status: 'failed', lastError: reason, finishedAt: clock.now(), lockedBy: null, lockedUntil: null },
          { ...kept, status, errorReason: reason, bootingSince: null },
        );
        // A snapshot's row says so too (a take's is 'failed'; a revert's or delete's is ready again).
        await snapshots.failed(op, reason).catch(() => undefined);
        await backups.failed(op, reason).catch(() => undefined);
      } finally {
        release();
      }
    })();
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return true;
  }

  /** A transient failure: the operation goes back to pending, to run again after `delay` ms. */
  async function retryLater(claim: Claim, reason: string, delay: number) {
    const { op } = claim;
    log.warn(
      { operationId: op.id, vmId: op.vmId, attempt: op.attempts, delay },
      `operation ${op.kind} failed, will retry: ${reason}`,
    );
    await repo.finish(claim, {
      status: 'pending',
      lastError: reason,
      runAfter: new Date(clock.now().getTime() + delay),
      lockedBy: null,
      lockedUntil: null,
    });
  }

  /**
   * An operation beside the lifecycle slot failed: its VM is left as it is (what it shows is the lifecycle slot's).
   * A transient failure is retried with backoff, unless its host is down (known to the host monitor now, or before):
   * then it ends failed with the host's name and why, and the next take starts afresh (decision 0025).
   */
  async function failBeside(claim: Claim, err: unknown, target: OperationTarget | undefined) {
    const { op } = claim;
    let reason = err instanceof Error ? err.message : String(err);
    const host = target?.host ? await hostRows.byId(target.host.id).catch(() => null) : null;
    if (!(err instanceof HostDownError) && host?.lastError) reason = BACKUP_TEXT.hostDown(host.name, reason);
    const retry = err instanceof TransientProviderError && op.attempts < maxAttempts && !host?.lastError;
    if (retry) {
      await retryLater(claim, reason, backoffMs * 2 ** (op.attempts - 1));
      return;
    }
    log.error({ operationId: op.id, vmId: op.vmId }, `operation ${op.kind} failed: ${reason}`);
    // The operation first, so a client that reads the row failed may take another at once; a process dying in
    // between leaves the row unfinished without an operation, which the next runner's start ends (endOrphans).
    const { done } = await repo.finish(claim, {
      status: 'failed',
      lastError: reason,
      finishedAt: clock.now(),
      lockedBy: null,
      lockedUntil: null,
    });
    if (done) await backups.failed(op, reason).catch(() => undefined);
    await publishUnchanged(op.vmId);
  }

  async function tick() {
    if (running) return;
    running = (async () => {
      try {
        await endInterrupted();
        // Claim everything due; each operation runs concurrently (one per VM by construction).
        while (!halted && (await runOne()));
      } catch (err) {
        log.error({ err }, 'operation runner tick failed');
      } finally {
        running = null;
      }
    })();
    await running;
  }

  return {
    workerId,
    start() {
      if (started) return;
      started = true;
      halted = false;
      timer = setInterval(() => void tick(), pollMs);
      timer.unref();
      // Takes a dead process left unfinished without an operation (decision 0025); the rest are ended by tick().
      void backups
        .endOrphans(BACKUP_TEXT.interrupted)
        .catch((err: unknown) => log.warn({ err }, 'could not end the backups left unfinished'));
      void tick();
    },
    /** Stops claiming; waits for in-flight operations unless `abandon` (a crash, in tests). */
    async stop(options: { abandon?: boolean } = {}) {
      halted = true;
      started = false;
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      if (options.abandon) {
        // A dead process renews nothing: its leases run out and other runners take the work over.
        held.clear();
        if (renewTimer) clearInterval(renewTimer);
        renewTimer = null;
      } else await Promise.allSettled([...inFlight]);
    },
    /** Runs due work now (tests). */
    tick,
    /** Renews the leases in flight now (the timer does it every third of a lease; tests call it after moving the clock). */
    renewLeases,
    /** Resolves when nothing is in flight. */
    async idle() {
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
export type OperationRunner = ReturnType<typeof createOperationRunner>;

/** The VM's host was known down when an operation beside its lifecycle slot came to run (decision 0025). */
class HostDownError extends Error {
  constructor(host: string, why: string) {
    super(BACKUP_TEXT.hostDown(host, why));
  }
}
