/**
 * The durable operation runner. Work is recorded in `operations` before anything runs; a runner claims
 * one due row at a time with FOR UPDATE SKIP LOCKED (safe with several API instances), holds it under a
 * lease, calls the provider driver, and records the outcome. Transient failures are retried with
 * exponential backoff; a permanent failure of a create puts the VM in Error with the reason, of any other
 * action leaves it as the provider reports it (reason kept). The lease is extended while the driver works;
 * a row whose lease ran out (its runner died) is claimed again, and drivers are idempotent by key, so
 * nothing is done twice. The outcome and the VM's new state are written in one transaction.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../../db/client.ts';
import { configurations, operations, regions, virtualMachines } from '../../../db/schema.ts';
import { TransientProviderError, type ProviderDriver } from '../../../providers/provider.ts';
import type { ProviderRegistry } from '../../../providers/registry.ts';
import type { VmEvents } from '../vm-events.ts';
import type { SecretBox } from '../vm-secrets.ts';
import { adoptIfMissing } from './adopt.ts';

export interface RunnerOptions {
  db: Db;
  registry: ProviderRegistry;
  events: VmEvents;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  pollMs?: number;
  /** How long a claim holds before another runner may take the operation over. */
  leaseMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubles per attempt. */
  backoffMs?: number;
}

type OperationRow = typeof operations.$inferSelect;

export function createOperationRunner(opts: RunnerOptions) {
  const { db, registry, events, log } = opts;
  const workerId = `runner-${randomUUID().slice(0, 8)}`;
  const pollMs = opts.pollMs ?? 250;
  const leaseMs = opts.leaseMs ?? 5 * 60_000;
  const maxAttempts = opts.maxAttempts ?? 5;
  const backoffMs = opts.backoffMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Set by stop(): no more claims. (tick() works before start(), for tests.) */
  let halted = false;
  let started = false;
  const inFlight = new Set<Promise<unknown>>();
  const leaseTimers = new Set<NodeJS.Timeout>();

  async function claim(): Promise<OperationRow | null> {
    const res = await db.execute<{ id: number }>(sql`
      update operations set status = 'running', locked_by = ${workerId},
        locked_until = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1
      where id = (
        select id from operations
        where (status = 'pending' and run_after <= now()) or (status = 'running' and locked_until < now())
        order by id limit 1 for update skip locked)
      returning id`);
    const id = res.rows[0]?.id;
    if (id === undefined) return null;
    const [row] = await db.select().from(operations).where(eq(operations.id, id));
    return row ?? null;
  }

  /**
   * Writes the outcome only if this very claim still holds the operation (same runner, same attempt: a
   * claim taken over after its lease ran out has a higher attempt), together with the VM's new state in
   * one transaction, so an operation never reads finished while its VM misses the result.
   */
  async function finish(op: OperationRow, patch: Partial<typeof operations.$inferInsert>, vmPatch?: Partial<typeof virtualMachines.$inferInsert>): Promise<boolean> {
    return db.transaction(async (tx) => {
      const done = await tx
        .update(operations)
        .set(patch)
        .where(and(eq(operations.id, op.id), eq(operations.lockedBy, workerId), eq(operations.attempts, op.attempts), eq(operations.status, 'running')))
        .returning({ id: operations.id });
      if (done.length !== 1) return false;
      if (vmPatch) await tx.update(virtualMachines).set({ ...vmPatch, updatedAt: new Date() }).where(eq(virtualMachines.id, op.vmId));
      return true;
    });
  }

  /** Extends the lease while the driver works, so a slow action is not taken over by another runner. */
  function holdLease(op: OperationRow): () => void {
    const timer = setInterval(() => {
      void db
        .update(operations)
        .set({ lockedUntil: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
        .where(and(eq(operations.id, op.id), eq(operations.lockedBy, workerId), eq(operations.attempts, op.attempts), eq(operations.status, 'running')))
        .catch((err: unknown) => log.warn({ err, operationId: op.id }, 'could not extend the lease'));
    }, Math.max(10, Math.floor(leaseMs / 3)));
    timer.unref();
    leaseTimers.add(timer);
    return () => {
      clearInterval(timer);
      leaseTimers.delete(timer);
    };
  }

  /** The VM status that matches what the provider reports, after an action failed for good. */
  async function observedStatus(driver: ProviderDriver, ref: string | null): Promise<string> {
    if (!ref) return 'Error';
    try {
      const state = await driver.status(ref);
      return state === 'running' ? 'Running' : state === 'stopped' ? 'Stopped' : 'Error';
    } catch {
      return 'Error';
    }
  }

  async function publish(vmId: number) {
    const [vm] = await db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId));
    if (vm) events.publish({ vmId, companyId: vm.companyId, teamId: vm.teamId, createdByUserId: vm.createdByUserId, status: vm.status, deleted: vm.deletedAt !== null });
  }

  async function execute(op: OperationRow, driver: ProviderDriver) {
    const [row] = await db
      .select({ vm: virtualMachines, config: configurations, region: regions.name })
      .from(virtualMachines)
      .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
      .innerJoin(regions, eq(regions.id, virtualMachines.regionId))
      .where(eq(virtualMachines.id, op.vmId));
    if (!row) throw new Error(`VM ${op.vmId} is gone`);
    const { vm, config } = row;
    if (vm.providerRef && op.kind !== 'create') await adoptIfMissing(driver, { vm, config, region: row.region });
    const ref = () => {
      if (!vm.providerRef) throw new Error('The machine was never created at the provider');
      return vm.providerRef;
    };
    switch (op.kind) {
      case 'create': {
        const made = await driver.create({
          key: `vm-${vm.id}`,
          name: vm.name,
          image: vm.image,
          cpu: config.cpu,
          ramGb: config.ram,
          diskGb: config.disk,
          region: row.region,
          publicKey: vm.publicKey ?? '',
          password: vm.sshPassword ? opts.secrets.open(vm.sshPassword) : '',
        });
        return { status: 'Running', providerRef: made.ref, publicIp: made.publicIp, privateIp: made.privateIp };
      }
      case 'start':
        await driver.start(ref());
        return { status: 'Running' };
      case 'stop':
        await driver.stop(ref());
        return { status: 'Stopped' };
      case 'reset':
        await driver.reset(ref());
        return { status: 'Running' };
      case 'resize': {
        const configurationId = (op.payload as { configurationId: number }).configurationId;
        const [target] = await db.select().from(configurations).where(eq(configurations.id, configurationId));
        if (!target) throw new Error('The target configuration no longer exists');
        await driver.resize(ref(), { cpu: target.cpu, ramGb: target.ram, diskGb: target.disk });
        // A machine keeps its power state through a resize.
        return { status: (await driver.status(ref())) === 'running' ? 'Running' : 'Stopped', configurationId };
      }
      case 'delete':
        if (vm.providerRef) await driver.delete(vm.providerRef);
        return { status: 'Stopped', deletedAt: new Date() };
      default:
        throw new Error(`Unknown operation ${op.kind}`);
    }
  }

  async function runOne(): Promise<boolean> {
    const op = await claim();
    if (!op) return false;
    const work = (async () => {
      const release = holdLease(op);
      let driver: ProviderDriver | null = null;
      try {
        const [vm] = await db.select({ providerId: virtualMachines.providerId }).from(virtualMachines).where(eq(virtualMachines.id, op.vmId));
        const provider = vm ? await db.query.providers.findFirst({ where: (p, { eq: e }) => e(p.id, vm.providerId) }) : undefined;
        if (!provider) throw new Error('The VM\'s provider no longer exists');
        driver = registry.driverFor(provider);
        // Claimed again and again (its runners keep dying, or retries ran out): give up.
        if (op.attempts > maxAttempts) throw new Error(`Gave up after ${op.attempts - 1} attempts`);
        const patch = await execute(op, driver);
        if (await finish(op, { status: 'succeeded', finishedAt: new Date(), lastError: null, lockedBy: null, lockedUntil: null }, { ...patch, errorReason: null })) {
          await publish(op.vmId);
        }
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        if (err instanceof TransientProviderError && op.attempts < maxAttempts) {
          const delay = backoffMs * 2 ** (op.attempts - 1);
          log.warn({ operationId: op.id, vmId: op.vmId, attempt: op.attempts, delay }, `operation ${op.kind} failed, will retry: ${reason}`);
          await finish(op, { status: 'pending', lastError: reason, runAfter: new Date(Date.now() + delay), lockedBy: null, lockedUntil: null });
          return;
        }
        log.error({ operationId: op.id, vmId: op.vmId }, `operation ${op.kind} failed: ${reason}`);
        // A failed create leaves no machine: Error. A failed action on an existing machine leaves it as
        // the provider sees it (with the reason kept), so the VM can still be operated.
        const [vm] = await db.select({ providerRef: virtualMachines.providerRef }).from(virtualMachines).where(eq(virtualMachines.id, op.vmId));
        const status = op.kind === 'create' || !driver ? 'Error' : await observedStatus(driver, vm?.providerRef ?? null);
        if (await finish(op, { status: 'failed', lastError: reason, finishedAt: new Date(), lockedBy: null, lockedUntil: null }, { status, errorReason: reason })) {
          await publish(op.vmId);
        }
      } finally {
        release();
      }
    })();
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return true;
  }

  async function tick() {
    if (running) return;
    running = (async () => {
      try {
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
        for (const timer of leaseTimers) clearInterval(timer);
        leaseTimers.clear();
      } else await Promise.allSettled([...inFlight]);
    },
    /** Runs due work now (tests). */
    tick,
    /** Resolves when nothing is in flight. */
    async idle() {
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
export type OperationRunner = ReturnType<typeof createOperationRunner>;
