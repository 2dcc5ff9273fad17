/**
 * "This month so far" on the VM page (issue 25 item 4): the VM's cost this UTC month by billing's rule (hours at each
 * size x its hourly price, capped at its monthly price: the reseller's own invoice line) and its network traffic.
 */
import { routes } from '@portal/contract/routes';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatMonth } from '../../../lib/dates.ts';
import { formatBytes, formatMoney } from '../../../lib/format-units.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';

export const MONTH_CARD_TEXT = {
  title: 'This month so far',
  cost: 'Cost',
  hours: (hours: string) => `${hours} hours this month`,
  unpriced: 'Part of this month is at a size without a price, not counted here.',
  trafficIn: 'Traffic in',
  trafficOut: 'Traffic out',
  failed: 'Could not load this month’s figures.',
} as const;

/** "November 2026 (UTC)" from "2026-11". */
function monthName(month: string): string {
  return `${formatMonth(month)} (UTC)`;
}

export function VmMonthCard({ vmId }: { vmId: number }) {
  // Hours and traffic grow slowly: asked again every five minutes while the page is open.
  const month = useRouteQuery(routes.vms.monthToDate, { params: { id: vmId } }, { refetchInterval: 300_000 });
  const data = month.data;
  return (
    <section
      aria-label={MONTH_CARD_TEXT.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        {MONTH_CARD_TEXT.title}
      </h2>
      <div className="p-4">
        {month.error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {MONTH_CARD_TEXT.failed} {errorMessage(month.error)}
          </p>
        ) : !data ? (
          <div className="flex justify-center py-2">
            <Spinner />
          </div>
        ) : (
          <>
            <p className="text-xs text-slate-500 dark:text-slate-400">{monthName(data.month)}</p>
            <dl className="mt-2 grid grid-cols-2 gap-4">
              <div className="col-span-2">
                <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">
                  {MONTH_CARD_TEXT.cost}
                </dt>
                <dd
                  className="mt-1 text-2xl font-semibold text-slate-900 dark:text-slate-100"
                  data-testid="vm-month-cost"
                >
                  {formatMoney(data.amount, data.currency)}
                </dd>
                <dd className="text-xs text-slate-500 dark:text-slate-400" data-testid="vm-month-hours">
                  {MONTH_CARD_TEXT.hours(data.hours)}
                </dd>
                {data.unpriced > 0 && (
                  <dd className="mt-1 text-xs text-amber-700 dark:text-amber-300">{MONTH_CARD_TEXT.unpriced}</dd>
                )}
              </div>
              <div>
                <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">
                  {MONTH_CARD_TEXT.trafficIn}
                </dt>
                <dd className="mt-1 text-sm text-slate-900 dark:text-slate-100" data-testid="vm-month-rx">
                  {formatBytes(data.traffic.rxBytes)}
                </dd>
              </div>
              <div>
                <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 dark:text-slate-400">
                  {MONTH_CARD_TEXT.trafficOut}
                </dt>
                <dd className="mt-1 text-sm text-slate-900 dark:text-slate-100" data-testid="vm-month-tx">
                  {formatBytes(data.traffic.txBytes)}
                </dd>
              </div>
            </dl>
          </>
        )}
      </div>
    </section>
  );
}
