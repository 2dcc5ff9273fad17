/** Health checks a load balancer understands: 200 when healthy, 503 when not. */
import type { FastifyInstance } from 'fastify';
import { platformRoutes } from '@portal/contract/platform';
import type { Database } from '../../db/client.ts';
import { registerRoute } from '../../lib/http.ts';

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

export function registerHealthRoutes(app: FastifyInstance, deps: { database: Database }): void {
  registerRoute(app, platformRoutes.healthApi, async () => ({
    data: { status: 'ok' as const, checks: { api: { status: 'ok' as const, detail: null, latencyMs: 0 } } },
  }));
  registerRoute(app, platformRoutes.healthDatabase, async ({ reply, request }) => {
    const check = await timed(() => deps.database.ping());
    if (check.status === 'down') {
      request.log.error('database health check failed');
      reply.status(503);
    }
    return { message: check.status === 'ok' ? 'OK' : 'Database unreachable', data: { status: check.status === 'ok' ? ('ok' as const) : ('down' as const), checks: { database: check } } };
  });
}
