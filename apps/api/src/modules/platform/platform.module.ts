/** Support, branding, client logs, imports, profiling and metrics. */
import { Worker as Thread } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { platformRoutes } from '@portal/contract/platform';
import { clientLogs, supportMessages } from '../../db/schema.ts';
import { UnauthorizedError, NotFoundError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import type { ModuleDeps, Worker } from '../module.ts';
import { senderOf } from '../../mail/sender.ts';
import { createImportsService } from './imports.service.ts';
import { createHostImports } from './host-imports.ts';
import { eq } from 'drizzle-orm';

/** Burns one core for `ms` in a worker thread (the API keeps answering), for profiling. */
function loadCpu(ms: number): Promise<number> {
  const code = `const { parentPort, workerData } = require('node:worker_threads');
    const end = Date.now() + workerData; let n = 0; while (Date.now() < end) { n += Math.sqrt(n + 1); }
    parentPort.postMessage(n);`;
  return new Promise((resolve, reject) => {
    const thread = new Thread(code, { eval: true, workerData: ms });
    thread.once('message', (n: number) => resolve(Math.round(n)));
    thread.once('error', reject);
  });
}

export async function registerPlatformModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const { metrics } = deps;
  const imports = createImportsService({
    db: deps.db,
    audit: deps.audit,
    log: deps.log,
    brands: deps.brands,
    inviteCompanyAdmin: deps.inviteCompanyAdmin,
  });

  registerRoute(api, platformRoutes.getLogoUrl, async ({ auth }) => {
    const user = await deps.identity.byId(auth.userId);
    if (!user) throw new NotFoundError('User not found');
    return { data: { resellerName: user.resellerName, logoUrl: user.logoUrl, tabLogoUrl: user.tabLogoUrl } };
  });

  registerRoute(
    api,
    platformRoutes.sendSupportEmail,
    async ({ auth, body }) => {
      const user = await deps.identity.byId(auth.userId);
      if (!user) throw new NotFoundError('User not found');
      const name = `${user.firstName} ${user.lastName}`.trim() || user.email;
      // Kept first, so nothing is lost when mail is down; the outbox retries delivery.
      const [saved] = await deps.db
        .insert(supportMessages)
        .values({ companyId: user.companyId, userId: user.id, message: body.message })
        .returning();
      const outboxId = await deps.mailer.enqueue({
        to: user.supportEmail ?? deps.defaultFrom,
        from: senderOf(user, deps.defaultFrom),
        replyTo: `"${name.replace(/"/g, '')}" <${user.email}>`,
        subject: `Support request from ${name} (${user.companyName})`,
        text: `From: ${name} <${user.email}>\nCompany: ${user.companyName}\n\n${body.message}`,
      });
      await deps.db.update(supportMessages).set({ outboxId }).where(eq(supportMessages.id, saved!.id));
      return { message: 'Message sent', data: { id: saved!.id } };
    },
    { rateLimit: { max: 5, keyGenerator: (req) => `support:${req.auth?.userId ?? req.ip}` } },
  );

  registerRoute(
    api,
    platformRoutes.logging,
    async ({ body, request }) => {
      await deps.db.insert(clientLogs).values({
        userId: request.auth?.userId ?? null,
        level: body.level,
        message: body.message,
        details: { stack: body.stack ?? null, url: body.url ?? null, userAgent: body.userAgent ?? null },
      });
      request.log.warn(
        { clientLog: { level: body.level, url: body.url } },
        `client ${body.level}: ${body.message.slice(0, 300)}`,
      );
      return { message: 'Logged', data: null };
    },
    { rateLimit: { max: 30 } },
  );

  registerRoute(api, platformRoutes.importDistributors, async ({ body }) => ({
    data: await imports.distributors(body.rows),
  }));
  registerRoute(api, platformRoutes.importResellers, async ({ body }) => ({
    data: await imports.resellers(body.rows),
  }));
  registerRoute(api, platformRoutes.importCompanies, async ({ body }) => ({
    data: await imports.companies(body.rows),
  }));
  const hostImports = createHostImports({ hosts: deps.engine.operatorHosts, log: deps.log });
  registerRoute(api, platformRoutes.importHosts, async ({ body }) => ({ data: await hostImports.hosts(body.rows) }));
  registerRoute(api, platformRoutes.importPublicAddresses, async ({ body }) => ({
    data: await hostImports.publicAddresses(body.rows),
  }));

  registerRoute(api, platformRoutes.loadCpu, async ({ body }) => ({
    data: { durationMs: body.durationMs, iterations: await loadCpu(body.durationMs) },
  }));

  // Prometheus scrapes with the operator token, or openly when METRICS_PUBLIC=true.
  api.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!deps.config.METRICS_PUBLIC && request.operatorTokenId === null)
      throw new UnauthorizedError('A valid operator API token is required');
    return reply.type('text/plain; version=0.0.4').send(await metrics.render(deps.db));
  });
  return [];
}
