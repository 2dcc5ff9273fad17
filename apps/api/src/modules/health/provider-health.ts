/**
 * Asks enabled providers' drivers whether they are healthy: the platform's own for load balancers, every one for the
 * operator's diagnostics. A reseller's providers never count for the anonymous health check (issue 21: one tenant's
 * dead host must not take the portal out of a load balancer), and an anonymous request never calls a tenant's host.
 */
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { providers } from '../../db/schema.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';

export interface ProviderCheck {
  provider: typeof providers.$inferSelect;
  healthy: boolean;
  /** What the driver reports, or the error's message when it threw. */
  detail: unknown;
  latencyMs: number;
}

export async function checkProviders(
  db: Db,
  registry: ProviderRegistry,
  which: 'platform' | 'all',
): Promise<ProviderCheck[]> {
  const enabled = await db
    .select()
    .from(providers)
    .where(and(eq(providers.enabled, true), which === 'platform' ? isNull(providers.resellerId) : undefined))
    .orderBy(asc(providers.id));
  const checks: ProviderCheck[] = [];
  for (const provider of enabled) {
    const started = performance.now();
    let healthy = false;
    let detail: unknown;
    try {
      ({ healthy, detail } = await registry.driverFor(provider).health());
    } catch (err) {
      detail = err instanceof Error ? err.message : String(err);
    }
    checks.push({ provider, healthy, detail, latencyMs: Math.round(performance.now() - started) });
  }
  return checks;
}
