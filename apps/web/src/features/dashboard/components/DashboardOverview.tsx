/**
 * The dashboard's overview (issue 25 item 5), above the spec's Teams table and VM Usage card: the caller's machines
 * by status (each a link to the VM list filtered by it), this month's spend so far (billing's rule, the machines the
 * caller sees) and, for company administrators, the last entries of the activity log. With no machine at all, a
 * first-run prompt to create one takes the machines card's place.
 */
import Plus from 'lucide-react/icons/plus';
import Server from 'lucide-react/icons/server';
import Wallet from 'lucide-react/icons/wallet';
import { lazy, Suspense, type ReactNode } from 'react';
import { Link } from 'react-router';
import { routes } from '@portal/contract/routes';
import { StatusBadge } from '../../../components/StatusBadge.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatMonth } from '../../../lib/dates.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatMoney } from '../../../lib/format-units.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';
import { OverviewCard, cardClass } from './OverviewCard.tsx';
import { OVERVIEW_TEXT } from './overview-text.ts';

const RecentActivity = lazy(() => import('./RecentActivity.tsx').then((m) => ({ default: m.RecentActivity })));

export function DashboardOverview() {
  const { user } = useAuth();
  const summary = useRouteQuery(routes.vms.dashboardSummary, {}, { refetchInterval: 60_000 });
  const data = summary.data;

  let machines: ReactNode;
  if (summary.isPending) {
    machines = (
      <div className="flex justify-center py-2">
        <Spinner />
      </div>
    );
  } else if (summary.error || !data) {
    machines = (
      <p role="alert" className="text-sm text-red-700 dark:text-red-300">
        {OVERVIEW_TEXT.failed} {errorMessage(summary.error)}
      </p>
    );
  } else {
    machines = (
      <>
        <p className="text-2xl font-semibold text-slate-900 dark:text-slate-100" data-testid="machines-total">
          {OVERVIEW_TEXT.machinesCount(data.total)}
        </p>
        <ul className="mt-3 flex flex-wrap gap-2" aria-label="Machines by status">
          {data.statuses.map((s) => (
            <li key={s.status}>
              <Link
                to={`/virtualMachines?status=${encodeURIComponent(s.status)}`}
                className="inline-flex items-center gap-1.5 rounded-full focus-visible:outline focus-visible:outline-2 focus-visible:outline-brand-600"
                data-status-count={s.status}
              >
                <StatusBadge status={s.status} />{' '}
                <span className="text-sm font-semibold text-slate-900 dark:text-slate-100">{s.count}</span>
              </Link>
            </li>
          ))}
        </ul>
      </>
    );
  }

  const firstRun = data && data.total === 0;
  return (
    <div className="space-y-6">
      {firstRun && (
        <section
          aria-label={OVERVIEW_TEXT.firstRunTitle}
          className={`${cardClass} flex flex-col gap-4 p-6 sm:flex-row sm:items-center sm:justify-between`}
        >
          <div className="min-w-0">
            <h2 className="text-lg font-semibold text-slate-900 dark:text-slate-100">{OVERVIEW_TEXT.firstRunTitle}</h2>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{OVERVIEW_TEXT.firstRunBody}</p>
          </div>
          <Link
            to="/createVirtualMachine"
            className="inline-flex shrink-0 items-center justify-center gap-2 rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-on-brand-600 hover:bg-brand-700 hover:text-on-brand-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          >
            <Plus className="h-4 w-4" aria-hidden />
            {OVERVIEW_TEXT.firstRunButton}
          </Link>
        </section>
      )}
      <div className={`grid gap-6 md:grid-cols-2 ${user?.isCompanyAdmin ? 'xl:grid-cols-3' : ''}`}>
        <OverviewCard
          title={OVERVIEW_TEXT.machines}
          icon={<Server className="h-5 w-5 text-brand-600 dark:text-brand-300" aria-hidden />}
        >
          {machines}
        </OverviewCard>
        <OverviewCard
          title={OVERVIEW_TEXT.spend}
          icon={<Wallet className="h-5 w-5 text-brand-600 dark:text-brand-300" aria-hidden />}
        >
          {data ? (
            <>
              <p className="text-xs text-slate-500 dark:text-slate-400">{`${formatMonth(data.spend.month)} (UTC)`}</p>
              <p className="text-2xl font-semibold text-slate-900 dark:text-slate-100" data-testid="spend-amount">
                {formatMoney(data.spend.amount, data.spend.currency)}
              </p>
              <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="spend-hours">
                {OVERVIEW_TEXT.spendHours(data.spend.hours)}
              </p>
              {data.spend.unpriced > 0 && (
                <p className="mt-1 text-xs text-amber-700 dark:text-amber-300">{OVERVIEW_TEXT.spendUnpriced}</p>
              )}
            </>
          ) : summary.error ? (
            <p className="text-sm text-slate-500 dark:text-slate-400">—</p>
          ) : (
            <div className="flex justify-center py-2">
              <Spinner />
            </div>
          )}
        </OverviewCard>
        {user?.isCompanyAdmin && (
          <div className="min-w-0 md:col-span-2 xl:col-span-1">
            <Suspense fallback={null}>
              <RecentActivity />
            </Suspense>
          </div>
        )}
      </div>
    </div>
  );
}
