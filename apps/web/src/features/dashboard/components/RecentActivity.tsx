/**
 * The dashboard's recent activity (company administrators): the last entries of the activity log, read with the
 * activity module's own GET /activity/list. Its own chunk: the activity contract (its labels and schemas) stays out of
 * the dashboard's first load.
 */
import Activity from 'lucide-react/icons/activity';
import { Link } from 'react-router';
import { ACTIVITY_TEXT, activityActionLabel } from '@portal/contract/activity';
import { routes } from '@portal/contract/routes';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../lib/api.ts';
import { formatDateTime } from '../../../lib/dates.ts';
import { useRouteQuery } from '../../../lib/route-query.ts';
import { OverviewCard } from './OverviewCard.tsx';
import { OVERVIEW_TEXT, RECENT_ACTIVITY } from './overview-text.ts';

export function RecentActivity() {
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
              <p className="text-xs text-slate-500 dark:text-slate-400">{formatDateTime(e.createdAt)}</p>
            </li>
          ))}
        </ul>
      )}
    </OverviewCard>
  );
}
