/** Health checks a load balancer understands: 200 when healthy, 503 when not. */
import type { FastifyInstance } from 'fastify';
import { platformRoutes } from '@portal/contract/platform';
import type { Database } from '../../db/client.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { HostsRepository } from '../../engine/hosts/hosts.repository.ts';
import { registerRoute } from '../../lib/http.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import type { ModuleDeps, Worker } from '../module.ts';
import { checkProviders } from './provider-health.ts';

type Check = { status: 'ok' | 'down'; detail: string | null; latencyMs: number };

async function timed(fn: () => Promise<void>): Promise<Check> {
  const started = performance.now();
  try {
    await fn();
    return { status: 'ok', detail: null, latencyMs: Math.round(performance.now() - started) };
  } catch {
    // The reason stays in the server log; the answer only says "down".
    return { status: 'down', detail: 'unreachable', latencyMs: Math.round(performance.now() - started) };
  }
}

export async function registerHealthModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  registerHealthRoutes(api, {
    database: deps.database,
    mailer: deps.mailer,
    registry: deps.engine.registry,
    hosts: deps.engine.hostsRepository,
  });
  return [];
}

export function registerHealthRoutes(
  app: FastifyInstance,
  deps: {
    database: Database;
    mailer: Mailer;
    registry: ProviderRegistry;
    hosts: Pick<HostsRepository, 'operatorEnabled'>;
  },
): void {
  // The API answers (200) even when mail is down, but says so: nobody can sign in without their code.
  registerRoute(app, platformRoutes.healthApi, async ({ request }) => {
    const started = performance.now();
    const smtp = await deps.mailer.check();
    const latencyMs = Math.round(performance.now() - started);
    if (smtp.status === 'down') request.log.warn(`mail health check failed: ${smtp.error ?? 'unknown'}`);
    const mail: Check =
      smtp.status === 'none'
        ? { status: 'ok', detail: 'no SMTP_URL: local outbox', latencyMs }
        : { status: smtp.status, detail: smtp.status === 'ok' ? null : 'unreachable', latencyMs };
    return {
      message: mail.status === 'ok' ? 'OK' : 'Mail server unreachable: sign-in codes cannot be sent',
      data: {
        status: mail.status === 'ok' ? ('ok' as const) : ('degraded' as const),
        checks: { api: { status: 'ok' as const, detail: null, latencyMs: 0 }, mail },
      },
    };
  });
  registerRoute(app, platformRoutes.healthDatabase, async ({ reply, request }) => {
    const check = await timed(() => deps.database.ping());
    if (check.status === 'down') {
      request.log.error('database health check failed');
      reply.status(503);
    }
    return {
      message: check.status === 'ok' ? 'OK' : 'Database unreachable',
      data: { status: check.status === 'ok' ? ('ok' as const) : ('down' as const), checks: { database: check } },
    };
  });

  // The platform's own providers and hosts, for load balancers: a reseller's (issue 21) have their health in the
  // reseller area and the operator's diagnostics, and never turn this into a 503.
  registerRoute(app, platformRoutes.healthRemoteApi, async ({ reply, request }) => {
    // Public for load balancers; provider names and drivers only for the operator's token.
    const named = request.operatorTokenId !== null;
    const checks: Record<string, Check> = {};
    for (const { provider, healthy, latencyMs } of await checkProviders(deps.database.db, deps.registry, 'platform')) {
      checks[named ? provider.name : `provider-${provider.id}`] = {
        status: healthy ? 'ok' : 'down',
        detail: named ? provider.driver : null,
        latencyMs,
      };
    }
    // Each registered host as the host monitor last saw it (no call to the hosts on a public request).
    for (const { host } of await deps.hosts.operatorEnabled()) {
      const up = host.lastError === null && host.lastSeenAt !== null;
      const detail = named
        ? `${host.uri}${host.draining ? ' (draining)' : ''}: ${host.lastError ?? (host.lastSeenAt ? `seen ${host.lastSeenAt.toISOString()}` : 'not seen yet')}`
        : null;
      checks[named ? `host ${host.name}` : `host-${host.id}`] = { status: up ? 'ok' : 'down', detail, latencyMs: 0 };
    }
    const down = Object.values(checks).some((c) => c.status === 'down');
    if (down) reply.status(503);
    return {
      message: down ? 'A provider or host is unreachable' : 'OK',
      data: { status: down ? ('degraded' as const) : ('ok' as const), checks },
    };
  });
  registerRoute(app, platformRoutes.debug, async () => ({
    data: (await checkProviders(deps.database.db, deps.registry, 'all')).map(({ provider, healthy, detail }) => ({
      provider: provider.name,
      driver: provider.driver,
      healthy,
      detail,
    })),
  }));
}
