/** Virtual machines: catalog, actions as durable operations, provider drivers, live status. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../../lib/module.ts';
import { createReconciler } from '../../operations/reconciler.ts';
import { createOperationRunner } from '../../operations/runner.ts';
import { createProviderRegistry, type ProviderRegistry } from '../../providers/registry.ts';
import { createConsoleTokens } from './console-tokens.ts';
import { createVmEvents } from './vm-events.ts';
import { createVmRepository } from './vm.repository.ts';
import { registerVmRoutes } from './vm.routes.ts';
import { createVmService } from './vm.service.ts';
import { createSecretBox } from './vm-secrets.ts';

export async function registerVirtualMachinesModule(api: FastifyInstance, deps: ModuleDeps, registryOverride?: ProviderRegistry): Promise<Worker[]> {
  const env = deps.config;
  const registry = registryOverride ?? createProviderRegistry({}, { simulatorStepMs: env.SIMULATOR_STEP_MS });
  const events = createVmEvents();
  const secrets = createSecretBox(deps.secret);
  const repo = createVmRepository(deps.db);
  const runner = createOperationRunner({ db: deps.db, registry, events, secrets, log: deps.log, pollMs: env.VM_RUNNER_POLL_MS });
  const reconciler = createReconciler({ db: deps.db, registry, events, log: deps.log, intervalMs: env.VM_RECONCILE_INTERVAL_MS });
  let started = false;
  const vms = createVmService({ ...deps, repo, registry, events, secrets, kick: () => started && void runner.tick() });
  registerVmRoutes(api, { vms, repo, registry, events, access: deps.access, consoleTokens: createConsoleTokens(), sessions: deps.sessions, sessionRecheckMs: env.VM_STREAM_SESSION_CHECK_MS, apiBasePath: deps.config.API_BASE_PATH });
  return [
    {
      start() {
        started = true;
        runner.start();
        reconciler.start();
      },
      async stop() {
        started = false;
        await runner.stop();
        await reconciler.stop();
      },
    },
  ];
}
