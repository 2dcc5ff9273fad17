/** Query keys derived from the contract's routes, and invalidation by route (no browser APIs: unit-testable). */
import type { QueryClient } from '@tanstack/react-query';
import type { RouteDef } from '@portal/contract/common';
import type { RouteRequest } from './api.ts';

/** `[method, path]`: the prefix of every key of one route, which is what invalidation matches. */
export function routeKeyPrefix(route: RouteDef): readonly [string, string] {
  return [route.method, route.path];
}

/** The full key of one read: route, then its path parameters and query (absent parts are null). */
export function routeKey<R extends RouteDef>(route: R, request?: RouteRequest<R>): readonly unknown[] {
  return [...routeKeyPrefix(route), request?.params ?? null, request?.query ?? null];
}

/** Marks every cached read of these routes stale (active ones refetch), whatever their params. */
export function invalidateRoutes(queryClient: QueryClient, ...reads: RouteDef[]): Promise<void> {
  return Promise.all(reads.map((r) => queryClient.invalidateQueries({ queryKey: routeKeyPrefix(r) }))).then(
    () => undefined,
  );
}

/** Drops the cached answers of a route, so the next mount asks the server again. */
export function removeRoute(queryClient: QueryClient, route: RouteDef): void {
  queryClient.removeQueries({ queryKey: routeKeyPrefix(route) });
}
