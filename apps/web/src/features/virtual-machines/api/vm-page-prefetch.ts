/**
 * The VM page's first reads, started by its route's loader (app/router.tsx) while the page's code loads, instead of
 * one after the other once it has run (bench/web-load: the page opened to its graph drawn; docs/virtual-machines.md
 * "Loading"). Without it the page's code loaded, then the session check ran, then the VM's details, and only once
 * the details showed the graphs' read and this month's cost. Here the session check, the graphs' chunk, the details,
 * this month's cost and the graphs' first range (1h) all start at once, each under the key and with the call its
 * hook uses, so the page finds them answered or in flight and asks nothing twice.
 *
 * Static in the portal's entry (~0.5 KB gzip): as a chunk of its own it waited behind the page's twenty-odd chunks
 * on the browser's six connections. A 401 here is left to the session check (RequireAuth sends the user to /login
 * with the way back); a user who may not see the page (held, staff) gets the refusal cached and the redirect.
 */
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';
import { fetchAuthCheck } from '../../../lib/auth-check.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { routeKey } from '../../../lib/route-keys.ts';
import { fetchVmMetrics, vmMetricsKey } from './vm-metrics.ts';

export function prefetchVmPage(id: number): null {
  void fetchAuthCheck(queryClient).catch(() => {});
  void import('../components/graphs/VmGraphs.tsx').catch(() => {});
  if (!Number.isInteger(id) || id <= 0) return null;
  const params = { id };
  void queryClient.prefetchQuery({
    queryKey: routeKey(routes.vms.details, { params }),
    queryFn: ({ signal }) => callApi(routes.vms.details, { params, signal, suppress401: true }),
  });
  void queryClient.prefetchQuery({
    queryKey: vmMetricsKey(id, '1h'),
    queryFn: ({ signal }) => fetchVmMetrics(id, '1h', signal, { suppress401: true }),
  });
  void queryClient.prefetchQuery({
    queryKey: routeKey(routes.vms.monthToDate, { params }),
    queryFn: ({ signal }) => callApi(routes.vms.monthToDate, { params, signal, suppress401: true }),
  });
  return null;
}
