/** Asks every enabled provider's driver whether it is healthy: for load balancers and the operator's diagnostics. */
import { asc, eq } from 'drizzle-orm';
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

export async function checkProviders(db: Db, registry: ProviderRegistry): Promise<ProviderCheck[]> {
  const enabled = await db.select().from(providers).where(eq(providers.enabled, true)).orderBy(asc(providers.id));
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
