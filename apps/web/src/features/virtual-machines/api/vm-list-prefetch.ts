/**
 * The VM list's first reads, started by its route's loader (app/router.tsx) while the list's code loads, as the VM
 * page's are (vm-page-prefetch.ts; docs/performance.md). Without it the list's code (the shell's and the list's
 * ~40 chunks through the browser's six connections) loaded first, then the session check ran, and only then the
 * page of VMs and the filters' regions and teams were asked for. Here all three start at once, each under the key
 * and with the call its hook uses: the page from the address (page, search, sort, filters) through the same
 * functions the list reads it with (vm-list-query.ts).
 *
 * Static in the portal's entry (a few hundred bytes): a chunk of its own would wait behind the page's chunks.
 */
import { routes } from '@portal/contract/routes';
import { fetchAuthCheck } from '../../../lib/auth-check.ts';
import { queryClient } from '../../../lib/query-client.ts';
import { prefetchRoute } from '../../../lib/route-prefetch.ts';
import { vmListQueryOf, vmListRequest } from './vm-list-query.ts';

export function prefetchVmList(url: URL): null {
  void fetchAuthCheck(queryClient).catch(() => {});
  prefetchRoute(routes.vms.list, vmListRequest(vmListQueryOf(url.searchParams)));
  prefetchRoute(routes.vms.listFacets, {});
  return null;
}
