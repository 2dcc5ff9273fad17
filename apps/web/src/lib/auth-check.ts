/** The session check every protected screen waits for; sign-in screens drop its answer so it runs again. */
import { routes } from '@portal/contract/routes';
import type { QueryClient } from '@tanstack/react-query';
import { removeRoute } from './route-keys.ts';
import { useRouteQuery } from './route-query.ts';

export function useAuthCheck() {
  return useRouteQuery(routes.auth.check, {}, { suppress401: true, retry: false, staleTime: 60_000 });
}

/** After sign-in, MFA or a password reset the cached "not signed in" answer must not be reused. */
export const forgetAuthCheck = (queryClient: QueryClient) => removeRoute(queryClient, routes.auth.check);
