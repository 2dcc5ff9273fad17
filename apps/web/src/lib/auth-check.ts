/** The session check every protected screen waits for; sign-in screens drop its answer so it runs again. */
import { routes } from '@portal/contract/routes';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { callApi } from './api.ts';
import { invalidateRoutes, removeRoute, routeKey } from './route-keys.ts';
import { useRouteQuery } from './route-query.ts';

const CHECK_STALE_MS = 60_000;

export function useAuthCheck() {
  return useRouteQuery(routes.auth.check, {}, { suppress401: true, retry: false, staleTime: CHECK_STALE_MS });
}

/**
 * The same check outside React (its answer if fresh, else asked once, shared with the hook): a route's loader that
 * starts a page's reads while its code loads asks it first (features/virtual-machines/api/vm-page-prefetch.ts).
 */
export const fetchAuthCheck = (queryClient: QueryClient) =>
  queryClient.fetchQuery({
    queryKey: routeKey(routes.auth.check, {}),
    queryFn: ({ signal }) => callApi(routes.auth.check, { signal, suppress401: true }),
    retry: false,
    staleTime: CHECK_STALE_MS,
  });

/** After sign-in, MFA or a password reset the cached "not signed in" answer must not be reused. */
export const forgetAuthCheck = (queryClient: QueryClient) => removeRoute(queryClient, routes.auth.check);

/**
 * A policy holds the user on the Security page until they have a strong factor (the check's `mustSetUpTwoFactor`,
 * docs/two-factor.md "Company policy"): once a screen sees one enrolled (`enrolled`), the check is asked again, which
 * releases the hold. Not in the enrolling mutation's own refresh: that would be awaited before its caller's
 * onSuccess, by when the set-up form has given way to the enabled view and the recovery codes were never shown.
 */
export function useReleaseHoldWhenEnrolled(enrolled: boolean): void {
  const queryClient = useQueryClient();
  const check = useAuthCheck();
  const held = check.data?.authed === true && check.data.mustSetUpTwoFactor === true;
  useEffect(() => {
    if (held && enrolled) void invalidateRoutes(queryClient, routes.auth.check);
  }, [held, enrolled, queryClient]);
}
