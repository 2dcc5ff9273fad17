/** Virtual machines: the routes and rules over the engine (engine/: operations, runner, reconciler, events). */
import type { FastifyInstance } from 'fastify';
import { assertSteppedUp } from '../../db/step-up.ts';
import type { ModuleDeps, Worker } from '../module.ts';
import { registerConsoleSockets } from './console-socket.ts';
import { createConsoleTokenStore } from './console-tokens.ts';
import { createVmRepository } from './vm.repository.ts';
import { registerVmRoutes } from './vm.routes.ts';
import { createVmService } from './vm.service.ts';
import { createSnapshotRepository } from './snapshots.repository.ts';
import { registerSnapshotRoutes } from './snapshots.routes.ts';
import { createSnapshotService } from './snapshots.service.ts';
import { createBackupRepository } from './backups.repository.ts';
import { registerBackupRoutes } from './backups.routes.ts';
import { createBackupService } from './backups.service.ts';
import { createBackupScheduleRepository } from './backup-schedules.repository.ts';
import { registerBackupScheduleRoutes } from './backup-schedules.routes.ts';
import { createBackupScheduleService, createBackupScheduleWorker } from './backup-schedules.service.ts';
import { createBackupVerifier } from './backup-verification.ts';

export async function registerVirtualMachinesModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const env = deps.config;
  const { events } = deps.engine;
  // Console links live in the database, so the page may open on another instance than the one that issued it.
  const consoleTokens = createConsoleTokenStore({
    db: deps.db,
    secret: deps.secret,
    clock: deps.clock,
    random: deps.random,
    onPurgeError: (err) => deps.log.warn({ err }, 'console token purge failed'),
  });
  const repo = createVmRepository(deps.db);
  const vms = createVmService({ ...deps, repo });
  registerVmRoutes(api, {
    vms,
    events,
    access: deps.access,
    consoleTokens,
    sessions: deps.sessions,
    sessionRecheckMs: env.VM_STREAM_SESSION_CHECK_MS,
    apiBasePath: deps.config.API_BASE_PATH,
    stepUp: (auth) => assertSteppedUp(deps.db, deps.clock, auth),
  });
  registerSnapshotRoutes(api, createSnapshotService({ ...deps, vms: repo, repo: createSnapshotRepository(deps.db) }));
  const backupRepo = createBackupRepository(deps.db);
  const backups = createBackupService({ ...deps, vms: repo, vmService: vms, repo: backupRepo });
  registerBackupRoutes(api, backups);
  // A VM's backup schedule, and the worker that runs the due ones (decision 0023).
  const schedules = createBackupScheduleService({
    ...deps,
    vms: repo,
    backupRepo,
    backups,
    repo: createBackupScheduleRepository(deps.db),
  });
  registerBackupScheduleRoutes(api, schedules);
  const scheduleWorker = createBackupScheduleWorker(schedules, {
    intervalMs: env.BACKUP_SCHEDULE_INTERVAL_MS,
    log: deps.log,
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
  // The engine's workers (runner, reconciler, host monitor) are app.ts's to start and stop. The backup verifier
  // (decision 0024) is this module's: a job on the backup's row, beside the VM's operations.
  return [createBackupVerifier(deps), scheduleWorker];
}
