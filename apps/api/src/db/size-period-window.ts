/**
 * Billing's rule for the time of VM size periods (`vm_size_periods`) in a window [from, until): a period counts
 * for the part of it inside the window, an open period running until `until`. Billing's usage and the reseller
 * companies list's VM-hours both read time through it, so they cannot drift apart. It is SQL over one table and
 * knows no module, so it lives beside the schema, where every module may import it (docs/architecture.md).
 */
import { and, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { vmSizePeriods } from './schema.ts';

const at = (d: Date) => sql`${d.toISOString()}::timestamptz`;

export function sizePeriodWindow(from: Date, until: Date): { seconds: SQL<number>; overlaps: SQL } {
  return {
    /** One period's seconds inside the window (a double precision; sum it, round as the caller's rule says). */
    seconds: sql<number>`extract(epoch from (least(coalesce(${vmSizePeriods.endedAt}, ${at(until)}), ${at(until)}) - greatest(${vmSizePeriods.startedAt}, ${at(from)})))`,
    /** Only the periods with time in the window (the others would add negative seconds). */
    overlaps: and(
      lt(vmSizePeriods.startedAt, until),
      or(isNull(vmSizePeriods.endedAt), gt(vmSizePeriods.endedAt, from)),
    )!,
  };
}
