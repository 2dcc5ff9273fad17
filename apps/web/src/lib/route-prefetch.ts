/**
 * A route's read started outside React (a route's loader, while the page's code loads), under the key and with the
 * call its useRouteQuery hook uses, so the screen finds it answered or in flight and nothing is asked twice. A 401
 * here is left to the session check (RequireAuth sends the user to /login with the way back), so it is suppressed;
 * a refusal (a held user, staff on a customer page) is cached as the hook's would be.
 */
import type { RouteDef } from '@portal/contract/common';
import { callApi, type CallOptions, type RouteRequest } from './api.ts';
import { queryClient } from './query-client.ts';
import { routeKey } from './route-keys.ts';

export function prefetchRoute<R extends RouteDef & { method: 'GET' }>(route: R, request?: RouteRequest<R>): void {
  void queryClient.prefetchQuery({
    queryKey: routeKey(route, request),
    queryFn: ({ signal }) => callApi(route, { ...request, signal, suppress401: true } as CallOptions<R>),
  });
}
