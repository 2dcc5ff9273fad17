/**
 * The dashboard's overview (issue 25 item 5), above the spec's Teams table and VM Usage card: the caller's machines
 * by status (each a link to the VM list filtered by it), this month's spend so far (billing's rule, the machines the
 * caller sees) and, for company administrators, the last entries of the activity log. With no machine at all, a
 * first-run prompt to create one takes the machines card's place.
 */
import Activity from 'lucide-react/icons/activity';
import Plus from 'lucide-react/icons/plus';
import Server from 'lucide-react/icons/server';
import Wallet from 'lucide-react/icons/wallet';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ACTIVITY_TEXT, activityActionLabel } from '@portal/contract/activity';
import { routes } from '@portal/contract/routes';
import { StatusBadge } from '../../../components/StatusBadge.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { formatDate } from '../../../lib/dates.ts';
import { formatMoney } from '../../../lib/format-units.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';

export const OVERVIEW_TEXT = {
  machines: 'Machines',
  machinesCount: (n: number) => (n === 1 ? '1 machine' : `${n} machines`),
  spend: 'Spend this month',
  spendHours: (hours: string) => `${hours} machine hours so far`,
  spendUnpriced: 'Some machines are at a size without a price and are not counted.',
  activity: 'Recent activity',
  allActivity: 'View all activity',
  noActivity: 'No activity yet',
  firstRunTitle: 'Create your first machine',
  firstRunBody: 'You have no virtual machines yet. Pick an image and a size, and it is ready in a minute.',
  firstRunButton: 'Create your first machine',
  failed: 'Could not load the summary.',
} as const;

/** How many activity entries the dashboard shows. */
export const RECENT_ACTIVITY = 5;

const cardClass = 'rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm';

function OverviewCard({
  title,
  icon,
  action,
  children,
}: {
  title: string;
  icon: ReactNode;
  action?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-label={title} className={`${cardClass} min-w-0`}>
      <div className="flex items-center justify-between gap-2 border-b border-slate-200 dark:border-slate-700 px-4 py-3">
        <h2 className="flex items-center gap-2 font-semibold text-slate-900 dark:text-slate-100">
          {icon}
          {title}
        </h2>
        {action}
      </div>
      <div className="p-4">{children}</div>
    </section>
  );
}

/** "November 2026" from "2026-11" (a UTC month). */
function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

function when(date: Date): string {
  return `${formatDate(date)}, ${date.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })}`;
}

function RecentActivity() {
  const list = useRouteQuery(routes.activity.list, { query: { page: 1, rowsPerPage: RECENT_ACTIVITY } });
  const entries = list.data?.data ?? [];
  return (
    <OverviewCard
      title={OVERVIEW_TEXT.activity}
      icon={<Activity className="h-5 w-5 text-brand-600 dark:text-brand-300" aria-hidden />}
      action={
        <Link to="/activity" className="text-sm font-medium text-brand-700 hover:underline dark:text-brand-300">
          {OVERVIEW_TEXT.allActivity}
        </Link>
      }
    >
      {list.isPending ? (
        <div className="flex justify-center py-2">
          <Spinner />
        </div>
      ) : list.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {errorMessage(list.error)}
        </p>
      ) : entries.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">{OVERVIEW_TEXT.noActivity}</p>
      ) : (
        <ul className="divide-y divide-slate-100 dark:divide-slate-800" aria-label={OVERVIEW_TEXT.activity}>
          {entries.map((e) => (
            <li key={e.id} className="py-2 text-sm" data-activity={e.action}>
              <p className="text-slate-900 dark:text-slate-100">
                <span className="font-medium">
                  {e.actor?.name ?? (e.actorKind === 'operator' ? ACTIVITY_TEXT.operator : ACTIVITY_TEXT.system)}
                </span>
                {' · '}
                {activityActionLabel(e.action)}
                {e.targetName && e.targetName !== e.actor?.name ? (
                  <span className="break-all text-slate-600 dark:text-slate-300">{` · ${e.targetName}`}</span>
                ) : null}
              </p>
              <p className="text-xs text-slate-500 dark:text-slate-400">{when(e.createdAt)}</p>
            </li>
          ))}
        </ul>
      )}
    </OverviewCard>
  );
}

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
            className="inline-flex shrink-0 items-center justify-center gap-2 rounded-md bg-brand-600 px-4 py-2 text-sm font-medium text-white hover:bg-brand-700 focus-visible:outline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
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
              <p className="text-xs text-slate-500 dark:text-slate-400">{`${monthName(data.spend.month)} (UTC)`}</p>
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
            <RecentActivity />
          </div>
        )}
      </div>
    </div>
  );
}
