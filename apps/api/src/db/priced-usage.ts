/**
 * Billing's rule for what VMs cost in a window (docs/billing-webhook.md): the size periods clamped to the window
 * (size-period-window.ts), summed per company, VM and size, priced with the company's reseller's
 * configuration_prices: hours x hourly price rounded to cents, capped at the monthly price; no price, no amount.
 * Storage (snapshots, backups) is priced per GB-month by pricedStorageLines below, read by the same callers.
 * Billing's usage (JSON, CSV, webhook), a VM's month so far and the dashboard's spend all read it, so a customer's
 * figures are the reseller's invoice lines. SQL over the schema only, so every module may import it.
 */
import { and, asc, eq, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from './client.ts';
import {
  companies,
  configurationPrices,
  configurations,
  storagePeriods,
  storagePrices,
  virtualMachines,
  vmSizePeriods,
} from './schema.ts';
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

/** Bytes in the GB storage is billed by (1024³, as cloud storage bills count a GB). */
export const STORAGE_GB_BYTES = 1024 ** 3;

const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * Storage's rule (issue 24 item 4; docs/billing-webhook.md "Storage"): one line per company x VM x kind (snapshot,
 * backup) with time kept in [from, until) among the storage periods `where` keeps (it may name companies,
 * virtual_machines and storage_periods). Each period counts its whole seconds inside the window times its bytes;
 * GB-months are those GB-seconds over the seconds of the whole calendar month `from` is in (a snapshot of 2 GB kept
 * all month: 2.0000), so a month-to-date line is the part used so far. Amount: exact GB-months x the reseller's
 * price per GB-month (storage_prices), rounded half up to cents; no price, no amount. No cap: it is linear.
 */
export function pricedStorageLines(db: Db, from: Date, until: Date, where: SQL | undefined) {
  const monthStart = utcMonthStart(from);
  const monthEnd = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));
  const monthSeconds = (monthEnd.getTime() - monthStart.getTime()) / 1000;
  const periodSeconds = sql`floor(extract(epoch from (least(coalesce(${storagePeriods.endedAt}, ${at(until)}), ${at(until)}) - greatest(${storagePeriods.startedAt}, ${at(from)}))))::numeric`;
  const gbSeconds = sql`(sum(${storagePeriods.sizeBytes}::numeric * ${periodSeconds}) / ${STORAGE_GB_BYTES})`;
  const gbMonths = sql`(${gbSeconds} / ${monthSeconds})`;
  return db
    .select({
      companyId: storagePeriods.companyId,
      kind: storagePeriods.kind,
      vmId: storagePeriods.vmId,
      vmName: virtualMachines.name,
      gbHours: sql<string>`round(${gbSeconds} / 3600, 2)::text`,
      gbMonths: sql<string>`round(${gbMonths}, 4)::text`,
      gbMonthPrice: sql<string | null>`${storagePrices.gbMonthPrice}::text`,
      amount: sql<string | null>`round(${gbMonths} * ${storagePrices.gbMonthPrice}, 2)::text`,
    })
    .from(storagePeriods)
    .innerJoin(companies, eq(companies.id, storagePeriods.companyId))
    .leftJoin(virtualMachines, eq(virtualMachines.id, storagePeriods.vmId))
    .leftJoin(
      storagePrices,
      and(eq(storagePrices.resellerId, companies.resellerId), eq(storagePrices.kind, storagePeriods.kind)),
    )
    .where(
      and(
        where,
        lt(storagePeriods.startedAt, until),
        or(isNull(storagePeriods.endedAt), gt(storagePeriods.endedAt, from)),
      ),
    )
    .groupBy(
      storagePeriods.companyId,
      storagePeriods.kind,
      storagePeriods.vmId,
      virtualMachines.name,
      storagePrices.gbMonthPrice,
    )
    .having(sql`sum(${periodSeconds}) > 0`)
    .orderBy(
      asc(storagePeriods.companyId),
      asc(virtualMachines.name),
      asc(storagePeriods.vmId),
      asc(storagePeriods.kind),
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
