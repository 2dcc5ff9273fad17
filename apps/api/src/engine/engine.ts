/**
 * The engine: the machinery that drives machines, built once in app.ts and handed to every module as one typed
 * interface (ModuleDeps `engine`). It owns the drivers (registry), the live status events, the operations (queued by
 * `enqueue`, carried out by the runner), the reconciler, the host monitor, the hosts and VM secrets. Modules ask it;
 * nothing is filled in at start-up and nothing depends on the order of the modules. Its workers are started and
 * stopped by app.ts (startWorkers/close), as the modules' are. engine/ imports nothing from modules/.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Database, Tx } from '../db/client.ts';
import type { virtualMachines } from '../db/schema.ts';
import type { Audit } from '../lib/audit.ts';
import type { Clock } from '../lib/clock.ts';
import type { HostAccess } from '../providers/libvirt/host-connection.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { createHostMonitor } from './host-monitor.ts';
import { createHostsRepository, type HostsRepository } from './hosts/hosts.repository.ts';
import { createHostsService, type HostsService } from './hosts/hosts.service.ts';
import type { ResellerKeys } from './hosts/reseller-keys.ts';
import { createEnqueue, queueSuspensionStops, type EnqueueOutcome, type Requester } from './operations/enqueue.ts';
import { createOperationsRepository, type OperationsRepository } from './operations/operations.repository.ts';
import { createOperationRunner } from './operations/runner.ts';
import { createDrainer, type Drainer } from './drain/drainer.ts';
import { createEngineMetrics, type EngineMetrics } from './metrics/metrics.ts';
import { createReconciler } from './reconciler.ts';
import { connectionOf, createPgVmEvents, createVmEvents, type PgVmEvents, type VmEvents } from './vm-events.ts';
import { createSecretBox, type SecretBox } from './vm-secrets.ts';
import type { Operation } from '@portal/contract/vm-lifecycle';

type VmRow = typeof virtualMachines.$inferSelect;

/** Who acts for a company-wide request (the reseller area's suspension: a staff member). */
export interface CompanyActor {
  userId: number;
  resellerId: number;
  requestId: string;
}

/** The engine's figures (CPU, memory, disk and network per machine; the metrics history of issue 22 item 3). */
export type { EngineMetrics } from './metrics/metrics.ts';

export interface Engine {
  /** The VM drivers, one per provider row (and per host URI). */
  registry: ProviderRegistry;
  /** Live VM status: in process, or LISTEN/NOTIFY across instances on PostgreSQL. */
  events: VmEvents;
  /** The operations' SQL (claim, renew, finish, the VM's operation for reads). */
  operations: OperationsRepository;
  /**
   * Queues an operation on a VM (operation, in-progress status and audit in one transaction, then the live event)
   * and tells the runner there is work. `guard` runs first in the transaction (the upgrade's quota check).
   */
  enqueue(vm: VmRow, operation: Operation, by: Requester, guard?: (tx: Tx) => Promise<void>): Promise<EnqueueOutcome>;
  /** Queues a stop of each running VM of the company (the suspension's stops); answers how many were queued. */
  stopCompanyMachines(companyId: number, actor: CompanyActor): Promise<number>;
  /** Tells the runner there is work (it also polls); a no-op until the workers start. */
  kick(): void;
  /**
   * Moves the machines of draining hosts off, one at a time per host (engine/drain, docs/draining.md); its worker
   * looks every VM_DRAIN_INTERVAL_MS, kick() asks for a pass now (a host was just set to draining).
   */
  drainer: Pick<Drainer, 'kick' | 'drainOnce'>;
  /** Seals and opens VM credentials. */
  secrets: SecretBox;
  /** Every host query (engine, reseller area's catalog, CLI). */
  hostsRepository: HostsRepository;
  /** Hosts and public address pools with a reseller's hosts reached through the egress rule (the reseller area). */
  hosts: HostsService;
  /** The same for the operator's imports and CLI: hosts of resellers' providers are refused there. */
  operatorHosts: HostsService;
  /** Each reseller's portal SSH key pair (its public half is shown in the reseller area). */
  resellerKeys: ResellerKeys;
  /** Each VM's latest sample and history, filled by the reconciler's per-host samples (engine/metrics/). */
  metrics: EngineMetrics;
  /** The runner, reconciler and host monitor (started by app.ts's startWorkers, stopped by close). */
  start(): void;
  stop(): Promise<void>;
}

export interface EngineDeps {
  config: Config;
  database: Database;
  clock: Clock;
  audit: Audit;
  secret: string;
  registry: ProviderRegistry;
  /** How reseller hosts are reached (egress, TCP allowed). */
  hostAccess: Pick<HostAccess, 'egress' | 'allowTcp'>;
  /** Each reseller's portal SSH key pair (the same one the registry connects with). */
  resellerKeys: ResellerKeys;
  log: FastifyBaseLogger;
}

export async function createEngine(deps: EngineDeps): Promise<Engine> {
  const { config, registry, clock, log } = deps;
  const db = deps.database.db;
  // Several API instances share one PostgreSQL: status events go through LISTEN/NOTIFY there (listening from
  // now on, so a stream opened before the workers start still hears them). PGlite is one process.
  let relay: PgVmEvents | null = null;
  let events: VmEvents;
  const { pool } = deps.database;
  if (pool) {
    // The listener connects where the pool does (DATABASE_URL in production; tests hand in their own database).
    relay = createPgVmEvents({ pool, connection: connectionOf(pool), log });
    await relay.start();
    events = relay;
  } else {
    events = createVmEvents();
  }
  const secrets = createSecretBox(deps.secret);
  const runner = createOperationRunner({
    db,
    registry,
    events,
    secrets,
    log,
    clock,
    pollMs: config.VM_RUNNER_POLL_MS,
    leaseMs: config.VM_OPERATION_LEASE_MS,
    backupsPerHost: config.BACKUP_CONCURRENCY_PER_HOST,
  });
  let started = false;
  const kick = () => {
    if (started) void runner.tick();
  };
  const metrics = createEngineMetrics({ db, clock, log });
  // Its pass also stops suspended companies' VMs that are running (reconciler.ts), and stores each host's sample.
  const reconciler = createReconciler({
    metrics,
    db,
    registry,
    events,
    log,
    clock,
    intervalMs: config.VM_RECONCILE_INTERVAL_MS,
    audit: deps.audit,
    onQueued: kick,
  });
  // Engine events (a guest powered itself off) make the reconciler look at once rather than at its next round.
  const hostMonitor = createHostMonitor({
    db,
    registry,
    events,
    log,
    clock,
    intervalMs: config.VM_HOST_CHECK_INTERVAL_MS,
    // Only the machine the event names is looked at (a whole pass over a large fleet takes seconds).
    onMachineEvent: (ref, hostId) => reconciler.kickMachine(hostId, ref),
  });
  const operations = createOperationsRepository(db, clock);
  const queue = createEnqueue({ db, audit: deps.audit, events, clock });
  const hostsRepository = createHostsRepository(db);
  const drainer = createDrainer({
    db,
    events,
    audit: deps.audit,
    log,
    clock,
    intervalMs: config.VM_DRAIN_INTERVAL_MS,
    onQueued: kick,
  });

  return {
    registry,
    events,
    operations,
    secrets,
    hostsRepository,
    hosts: createHostsService({ db, registry, access: deps.hostAccess, log }),
    operatorHosts: createHostsService({ db, registry }),
    resellerKeys: deps.resellerKeys,
    metrics,
    kick,
    drainer,
    async enqueue(vm, operation, by, guard) {
      const outcome = await queue(vm, operation, by, guard);
      if (outcome === 'queued') kick();
      return outcome;
    },
    async stopCompanyMachines(companyId, actor) {
      const stopped = await queueSuspensionStops(
        queue,
        await operations.ofCompanyRunning(companyId),
        { userId: actor.userId, requestId: actor.requestId },
        (vm, err) => log.warn({ vmId: vm.id, err }, 'could not stop a VM of a suspended company'),
      );
      if (stopped) kick();
      return stopped;
    },
    start() {
      started = true;
      hostMonitor.start();
      runner.start();
      reconciler.start();
      metrics.start();
      drainer.start();
    },
    async stop() {
      started = false;
      await runner.stop();
      await drainer.stop();
      await reconciler.stop();
      await metrics.stop();
      await hostMonitor.stop();
      await relay?.stop();
    },
  };
}
