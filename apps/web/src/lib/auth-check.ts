/** The session check every protected screen waits for; sign-in screens drop its answer so it runs again. */
import { routes } from '@portal/contract/routes';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { invalidateRoutes, removeRoute } from './route-keys.ts';
import { useRouteQuery } from './route-query.ts';

export function useAuthCheck() {
  return useRouteQuery(routes.auth.check, {}, { suppress401: true, retry: false, staleTime: 60_000 });
}

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
