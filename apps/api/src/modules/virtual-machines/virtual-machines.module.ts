/** Virtual machines: catalog, actions as durable operations, provider drivers, live status. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createOperationsRepository } from '../../engine/operations/operations.repository.ts';
import { createHostMonitor } from '../../engine/host-monitor.ts';
import { createReconciler } from '../../engine/reconciler.ts';
import { createOperationRunner } from '../../engine/operations/runner.ts';
import { registerConsoleSockets } from './console-socket.ts';
import { createConsoleTokenStore } from './console-tokens.ts';
import { connectionOf, createPgVmEvents, createVmEvents, type PgVmEvents, type VmEvents } from '../../engine/vm-events.ts';
import { createVmRepository } from './vm.repository.ts';
import { registerVmRoutes } from './vm.routes.ts';
import { createVmService } from './vm.service.ts';
import { createSecretBox } from '../../engine/vm-secrets.ts';

export async function registerVirtualMachinesModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const env = deps.config;
  const { registry } = deps;
  // Several API instances share one PostgreSQL: status events go through LISTEN/NOTIFY there (listening from
  // now on, so a stream opened before the workers start still hears them). PGlite is one process.
  let relay: PgVmEvents | null = null;
  let events: VmEvents;
  const { pool } = deps.database;
  if (pool) {
    // The listener connects where the pool does (DATABASE_URL in production; tests hand in their own database).
    relay = createPgVmEvents({ pool, connection: connectionOf(pool), log: deps.log });
    await relay.start();
    events = relay;
  } else {
    events = createVmEvents();
  }
  // Console links live in the database, so the page may open on another instance than the one that issued it.
  const consoleTokens = createConsoleTokenStore({
    db: deps.db,
    secret: deps.secret,
    clock: deps.clock,
    random: deps.random,
    onPurgeError: (err) => deps.log.warn({ err }, 'console token purge failed'),
  });
  const secrets = createSecretBox(deps.secret);
  const repo = createVmRepository(deps.db);
  const runner = createOperationRunner({
    db: deps.db,
    registry,
    events,
    secrets,
    log: deps.log,
    clock: deps.clock,
    pollMs: env.VM_RUNNER_POLL_MS,
    leaseMs: env.VM_OPERATION_LEASE_MS,
  });
  let started = false;
  /** Tells the runner there is work (it also polls). */
  const kick = () => started && void runner.tick();
  // Its pass also stops suspended companies' VMs that are running (operations/reconciler.ts).
  const reconciler = createReconciler({
    db: deps.db,
    registry,
    events,
    log: deps.log,
    clock: deps.clock,
    intervalMs: env.VM_RECONCILE_INTERVAL_MS,
    audit: deps.audit,
    onQueued: kick,
  });
  // Engine events (a guest powered itself off) make the reconciler look at once rather than at its next round.
  const hostMonitor = createHostMonitor({
    db: deps.db,
    registry,
    events,
    log: deps.log,
    clock: deps.clock,
    intervalMs: env.VM_HOST_CHECK_INTERVAL_MS,
    onMachineEvent: () => reconciler.kick(),
  });
  const vms = createVmService({
    ...deps,
    repo,
    operations: createOperationsRepository(deps.db, deps.clock),
    registry,
    events,
    secrets,
    kick,
  });
  // Other modules' requests of the VM module (the reseller area's suspension stops a company's VMs).
  deps.vmControl.current = { stopRunningVms: (companyId, actor) => vms.stopRunningVmsOfCompany(companyId, actor) };
  registerVmRoutes(api, {
    vms,
    events,
    access: deps.access,
    consoleTokens,
    sessions: deps.sessions,
    sessionRecheckMs: env.VM_STREAM_SESSION_CHECK_MS,
    apiBasePath: deps.config.API_BASE_PATH,
  });
  registerConsoleSockets(api, {
    vms,
    access: deps.access,
    audit: deps.audit,
    clock: deps.clock,
    consoleTokens,
    sessions: deps.sessions,
    sessionRecheckMs: env.VM_STREAM_SESSION_CHECK_MS,
    portalUrl: deps.portalUrl,
    resellerHosts: deps.resellerHosts,
  });
  return [
    {
      start() {
        started = true;
        hostMonitor.start();
        runner.start();
        reconciler.start();
      },
      async stop() {
        started = false;
        await runner.stop();
        await reconciler.stop();
        await hostMonitor.stop();
        await relay?.stop();
      },
    },
  ];
}
