/**
 * Usage SQL: the size periods of a reseller's customer companies clamped to a month, summed per company, VM and
 * size, priced with the reseller's configuration_prices. Rounding and the monthly cap are done here, in numeric,
 * so the JSON, the CSV and the webhook carry the very same figures (rules in docs/billing-webhook.md).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  companies,
  configurationPrices,
  configurations,
  resellers,
  virtualMachines,
  vmSizePeriods,
} from '../../db/schema.ts';
import { sizePeriodWindow } from '../../db/size-period-window.ts';

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

    /** One line per company × VM × size with time in the window; seconds are whole (floored). */
    lines(w: UsageWindow) {
      const period = sizePeriodWindow(w.from, w.until);
      const seconds = sql<string>`floor(sum(${period.seconds}))`;
      return db
        .select({
          companyId: vmSizePeriods.companyId,
          vmId: vmSizePeriods.vmId,
          vmName: virtualMachines.name,
          configurationId: vmSizePeriods.configurationId,
          configurationKey: configurations.key,
          configurationName: configurations.name,
          seconds: sql<number>`(${seconds})::int`,
          hours: sql<string>`round(${seconds} / 3600.0, 2)::text`,
          hourlyPrice: sql<string | null>`${configurationPrices.hourlyPrice}::text`,
          monthlyPrice: sql<string | null>`${configurationPrices.monthlyPrice}::text`,
          amount: sql<
            string | null
          >`least(round(${seconds} / 3600.0 * ${configurationPrices.hourlyPrice}, 2), ${configurationPrices.monthlyPrice})::text`,
        })
        .from(vmSizePeriods)
        .innerJoin(companies, eq(companies.id, vmSizePeriods.companyId))
        .innerJoin(virtualMachines, eq(virtualMachines.id, vmSizePeriods.vmId))
        .innerJoin(configurations, eq(configurations.id, vmSizePeriods.configurationId))
        .leftJoin(
          configurationPrices,
          and(
            eq(configurationPrices.resellerId, companies.resellerId),
            eq(configurationPrices.configurationId, vmSizePeriods.configurationId),
          ),
        )
        .where(
          and(
            eq(companies.resellerId, w.resellerId),
            eq(companies.kind, 'customer'),
            w.companyId === undefined ? undefined : eq(vmSizePeriods.companyId, w.companyId),
            period.overlaps,
          ),
        )
        .groupBy(
          vmSizePeriods.companyId,
          vmSizePeriods.vmId,
          virtualMachines.name,
          vmSizePeriods.configurationId,
          configurations.key,
          configurations.name,
          configurationPrices.hourlyPrice,
          configurationPrices.monthlyPrice,
        )
        .having(sql`${seconds} > 0`)
        .orderBy(
          asc(vmSizePeriods.companyId),
          asc(virtualMachines.name),
          asc(vmSizePeriods.vmId),
          sql`min(${vmSizePeriods.startedAt})`,
        );
    },
  };
}
export type UsageRepository = ReturnType<typeof createUsageRepository>;
