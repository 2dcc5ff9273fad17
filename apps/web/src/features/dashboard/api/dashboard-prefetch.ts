/**
 * The dashboard's first reads, started by its route's loader (app/router.tsx) while the dashboard's code loads,
 * as the VM page's are (vm-page-prefetch.ts; docs/performance.md). Without it the page's code (the shell's and the
 * dashboard's ~30 chunks through the browser's six connections) loaded first, then the session check ran, and only
 * then the summary, the Teams table's page and the VM Usage counts were asked for; the recent activity's chunk and
 * read came last of all. Here the session check and the three reads start at once, each under the key and with the
 * call its hook uses (the Teams table's page from the address, as useTableState reads it); once the check says the
 * user is a company administrator, the recent activity's chunk and read start too.
 *
 * Static in the portal's entry (a few hundred bytes): a chunk of its own would wait behind the page's chunks.
 */
import { PAGE_SIZE } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { fetchAuthCheck } from '../../../lib/auth-check.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { prefetchRoute } from '../../../lib/route-prefetch.ts';
import { parsePage } from '../../../lib/use-table-state.ts';

/** How many activity entries the dashboard shows (RecentActivity's read). */
export const RECENT_ACTIVITY = 5;

export function prefetchDashboard(url: URL): null {
  void fetchAuthCheck(queryClient)
    .then((check) => {
      if (!check.authed || !check.user.isCompanyAdmin || check.user.staffRole) return;
      void import('../components/RecentActivity.tsx').catch(() => {});
      prefetchRoute(routes.activity.list, { query: { page: 1, rowsPerPage: RECENT_ACTIVITY } });
    })
    .catch(() => {});
  prefetchRoute(routes.vms.dashboardSummary, {});
  prefetchRoute(routes.vms.dashboard);
  // The Teams table's first page (TeamsTable: useTableState without a prefix, so `page` and `q`).
  const search = (url.searchParams.get('q') ?? '').trim();
  prefetchRoute(routes.teams.list, {
    query: { page: parsePage(url.searchParams.get('page')), search, rowsPerPage: PAGE_SIZE.dashboardTeams },
  });
  return null;
}
