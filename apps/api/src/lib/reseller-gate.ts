/**
 * A per-reseller limit on calls that make the portal reach out on a tenant's behalf (issue 21: "send now", host
 * checks). The gate is handed to the service, which opens it after its own checks (role, input), so that refused
 * calls are not counted and one reseller's bursts never hold back another.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TooManyRequestsError } from './errors.ts';

/** Resolves when the call may go on; throws a 429 (with Retry-After) when the reseller is over its limit. */
export type Admit = () => Promise<void>;
export const noLimit: Admit = () => Promise.resolve();

export function resellerGate(
  app: FastifyInstance,
  opts: { name: string; perMinute: number; message: string },
): (request: FastifyRequest) => Admit {
  const limit = app.createRateLimit({
    max: opts.perMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `${opts.name}:${req.auth?.resellerId ?? req.ip}`,
  });
  return (request) => async () => {
    const result = await limit(request);
    if (!result.isAllowed && result.isExceeded)
      throw new TooManyRequestsError(opts.message).withHeaders({ 'retry-after': String(result.ttlInSeconds) });
  };
}
