/**
 * Billing's rule for what VMs cost in a window (docs/billing-webhook.md): the size periods clamped to the window
 * (size-period-window.ts), summed per company, VM and size, priced with the company's reseller's
 * configuration_prices: hours x hourly price rounded to cents, capped at the monthly price; no price, no amount.
 * Billing's usage (JSON, CSV, webhook), a VM's month so far and the dashboard's spend all read it, so a customer's
 * figures are the reseller's invoice lines. SQL over the schema only, so every module may import it.
 */
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.ts';
import { companies, configurationPrices, configurations, virtualMachines, vmSizePeriods } from './schema.ts';
import { sizePeriodWindow } from './size-period-window.ts';

/**
 * One line per company x VM x size with time in [from, until) among the periods `where` keeps (it may name
 * companies, virtual_machines and vm_size_periods); seconds are whole (floored), hours and amounts decimal strings.
 */
export function pricedUsageLines(db: Db, from: Date, until: Date, where: SQL | undefined) {
  const period = sizePeriodWindow(from, until);
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
    .where(and(where, period.overlaps))
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
}

/** Decimal strings with 2 places summed exactly (as hundredths), never through floats; nulls (unpriced) skipped. */
export function sumDecimals(values: (string | null)[]): string {
  let cents = 0n;
  for (const v of values) {
    if (v === null) continue;
    const [whole = '0', frac = ''] = v.replace('-', '').split('.');
    const c = BigInt(whole) * 100n + BigInt((frac + '00').slice(0, 2));
    cents += v.startsWith('-') ? -c : c;
  }
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** The first instant of `now`'s UTC month. */
export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
