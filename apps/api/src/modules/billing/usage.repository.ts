/**
 * Usage SQL: the size periods of a reseller's customer companies clamped to a month, summed per company, VM and
 * size, priced with the reseller's configuration_prices. Rounding and the monthly cap are done in numeric by
 * db/priced-usage.ts (shared with the customers' own month so far), so the JSON, the CSV and the webhook carry the
 * very same figures (rules in docs/billing-webhook.md).
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { companies, resellers, storagePeriods, vmSizePeriods } from '../../db/schema.ts';
import { pricedStorageLines, pricedUsageLines } from '../../db/priced-usage.ts';

export interface UsageWindow {
  resellerId: number;
  /** Only this company (already checked to be the reseller's). */
  companyId?: number;
  from: Date;
  /** End of the month, or now for the running month. */
  until: Date;
}

export function createUsageRepository(db: Db) {
  return {
    async reseller(resellerId: number) {
      const [row] = await db
        .select({ id: resellers.id, externalId: resellers.externalId, currency: resellers.currency })
        .from(resellers)
        .where(eq(resellers.id, resellerId));
      return row;
    },

    /** The reseller's customer companies (never its staff company), or the one asked for. */
    companies(resellerId: number, companyId?: number) {
      return db
        .select({ id: companies.id, name: companies.name, externalId: companies.externalId })
        .from(companies)
        .where(
          and(
            eq(companies.resellerId, resellerId),
            eq(companies.kind, 'customer'),
            companyId === undefined ? undefined : eq(companies.id, companyId),
          ),
        )
        .orderBy(asc(companies.name), asc(companies.id));
    },

    /** One line per company × VM × size with time in the window (billing's rule: db/priced-usage.ts). */
    lines(w: UsageWindow) {
      return pricedUsageLines(
        db,
        w.from,
        w.until,
        and(
          eq(companies.resellerId, w.resellerId),
          eq(companies.kind, 'customer'),
          w.companyId === undefined ? undefined : eq(vmSizePeriods.companyId, w.companyId),
        ),
      );
    },

    /** One line per company × VM × storage kind kept in the window (storage's rule: db/priced-usage.ts). */
    storageLines(w: UsageWindow) {
      return pricedStorageLines(
        db,
        w.from,
        w.until,
        and(
          eq(companies.resellerId, w.resellerId),
          eq(companies.kind, 'customer'),
          w.companyId === undefined ? undefined : eq(storagePeriods.companyId, w.companyId),
        ),
      );
    },
  };
}
export type UsageRepository = ReturnType<typeof createUsageRepository>;
