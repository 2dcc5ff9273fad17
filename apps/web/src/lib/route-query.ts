/**
 * The portal's data layer, derived from the contract's route table:
 *   useRouteQuery(vmRoutes.details, { params: { id } })
 *   useRouteMutation(vmRoutes.start, { invalidates: [vmRoutes.details] }).mutate({ params: { id } })
 * Query keys come from the route (method + path) and its params and query, so no feature types a key by hand,
 * and a write refreshes the reads it changes by naming their routes.
 */
import { useMutation, useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import type { RouteDef } from '@portal/contract/common';
import { callApiWithMessage, type ApiData, type ApiError, type CallOptions, type RouteRequest } from './api.ts';
import { invalidateRoutes, routeKey } from './route-keys.ts';

/** A route whose request needs nothing may be called with no argument. */
type RequestArgs<R extends RouteDef, Rest extends unknown[]> =
  object extends RouteRequest<R> ? [request?: RouteRequest<R>, ...Rest] : [request: RouteRequest<R>, ...Rest];

export type RouteQueryOptions<R extends RouteDef> = Omit<
  UseQueryOptions<ApiData<R>, ApiError>,
  'queryKey' | 'queryFn'
> & {
  /** Do not send the user to /login on a 401 (the screen handles it). */
  suppress401?: boolean;
};

export function useRouteQuery<R extends RouteDef & { method: 'GET' }>(
  route: R,
  ...[request, options]: RequestArgs<R, [options?: RouteQueryOptions<R>]>
) {
  const { suppress401, ...queryOptions } = options ?? {};
  return useQuery<ApiData<R>, ApiError>({
    queryKey: routeKey(route, request),
    queryFn: async ({ signal }) =>
      (
        await callApiWithMessage(route, {
          ...request,
          signal,
          ...(suppress401 ? { suppress401 } : {}),
        } as CallOptions<R>)
      ).data,
    ...queryOptions,
  });
}

export interface RouteMutationOptions {
  /** Reads this write changes; they are refreshed once the server accepted it (before onSuccess callers run). */
  invalidates?: RouteDef[];
  /** Do not send the user to /login on a 401 (sign-in screens show the server's message instead). */
  suppress401?: boolean;
}

/** Variables are the route's typed request (`{ params, body }`); the result is the envelope `{ message, data }`. */
export function useRouteMutation<R extends RouteDef>(route: R, options: RouteMutationOptions = {}) {
  const queryClient = useQueryClient();
  type Variables = object extends RouteRequest<R> ? RouteRequest<R> | void : RouteRequest<R>;
  return useMutation<{ message: string; data: ApiData<R> }, ApiError, Variables>({
    mutationFn: (request) =>
      callApiWithMessage(route, {
        ...(request ?? {}),
        ...(options.suppress401 ? { suppress401: true } : {}),
      } as CallOptions<R>),
    onSuccess: () => invalidateRoutes(queryClient, ...(options.invalidates ?? [])),
  });
}
