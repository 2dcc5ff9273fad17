/** Usage for billing (issue 13): usage per company and month, its CSV, and the signed billing webhook with its worker. */
import type { FastifyInstance } from 'fastify';
import { assertSteppedUp } from '../../db/step-up.ts';
import type { ModuleDeps, Worker } from '../module.ts';
import { syncStoragePeriods } from '../../db/storage-periods.ts';
import { registerBillingRoutes } from './billing.routes.ts';

/** How often storage periods are brought in step with the backups' rows: a deleted backup bills at most this long. */
export const STORAGE_SYNC_MS = 60_000;
import { createUsageRepository } from './usage.repository.ts';
import { createUsageService } from './usage.service.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { createWebhooksRepository } from './webhooks.repository.ts';
import { createWebhooksService } from './webhooks.service.ts';

export async function registerBillingModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const usage = createUsageService({ repo: createUsageRepository(deps.db), clock: deps.clock });
  const repo = createWebhooksRepository(deps.db, deps.clock);
  const worker = createWebhookWorker({
    repo,
    usage,
    clock: deps.clock,
    log: deps.log,
    egress: deps.egress,
    pollMs: deps.config.BILLING_WEBHOOK_POLL_MS,
  });
  let started = false;
  const webhooks = createWebhooksService({
    repo,
    usage,
    random: deps.random,
    audit: deps.audit,
    allowHttp: deps.config.BILLING_WEBHOOK_ALLOW_HTTP,
    egress: deps.egress,
    kick: () => started && void worker.tick(),
  });
  registerBillingRoutes(api, { usage, webhooks, stepUp: (auth) => assertSteppedUp(deps.db, deps.clock, auth) });
  // Storage billing's periods kept in step with the snapshots' and backups' rows (db/storage-periods.ts).
  let storageTimer: NodeJS.Timeout | undefined;
  let storagePass: Promise<unknown> = Promise.resolve();
  const syncStorage = () => {
    storagePass = syncStoragePeriods(deps.db, deps.clock.now()).catch((err: unknown) =>
      deps.log.warn({ err }, 'storage periods: sync failed (next pass retries)'),
    );
  };
  return [
    {
      start() {
        syncStorage();
        storageTimer = setInterval(syncStorage, STORAGE_SYNC_MS);
        storageTimer.unref();
      },
      async stop() {
        clearInterval(storageTimer);
        await storagePass;
      },
    },
    {
      start() {
        started = true;
        worker.start();
      },
      async stop() {
        started = false;
        await worker.stop();
      },
    },
  ];
}
