/**
 * The create form's cost summary (issue 25 item 3): the chosen size's catalog prices times the copies, per month and
 * per hour, in the reseller's currency. Billing charges each machine its hours at the hourly price, at most the
 * monthly price a month (docs/billing-webhook.md), so the monthly figure is the most a month of them costs.
 */
import type { RegionConfiguration } from '@portal/contract/virtual-machines';
import { formatPrice, timesDecimal } from './prices.ts';

export function CostSummary({ size, copies }: { size: RegionConfiguration | undefined; copies: number | null }) {
  if (!size || size.monthlyPrice === null) return null;
  const n = copies ?? 0;
  const amount = (price: string | null) => {
    const total = price === null || n < 1 ? null : timesDecimal(price, n);
    return total === null ? '—' : formatPrice(total, size.currency);
  };
  return (
    <section
      aria-labelledby="cost-summary-title"
      data-testid="cost-summary"
      className="rounded-lg border border-slate-200 bg-slate-50 p-4 dark:border-slate-700 dark:bg-slate-800/60"
    >
      <h2 id="cost-summary-title" className="text-sm font-semibold text-slate-900 dark:text-slate-100">
        Cost summary
      </h2>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">
        {n >= 1 ? `${n} \u00d7 ${size.name}` : size.name}, billed by the hour up to the monthly price per machine
      </p>
      <dl className="mt-3 grid grid-cols-2 gap-3">
        <div>
          <dt className="text-xs text-slate-600 dark:text-slate-300">Per month</dt>
          <dd
            data-testid="cost-month"
            className="text-lg font-semibold tabular-nums text-slate-900 dark:text-slate-100"
          >
            {amount(size.monthlyPrice)}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-slate-600 dark:text-slate-300">Per hour</dt>
          <dd data-testid="cost-hour" className="text-lg font-semibold tabular-nums text-slate-900 dark:text-slate-100">
            {amount(size.hourlyPrice)}
          </dd>
        </div>
      </dl>
    </section>
  );
}
