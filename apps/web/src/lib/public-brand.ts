/**
 * The brand of the portal at this address before anyone signs in (issue 13, custom domains): a reseller's domain
 * shows its name, tab icon and logo on the sign-in screens; any other address keeps SPEC point 1's defaults.
 * Once a user is known, their record rules (useBrand).
 */
import type { AuthUser } from '@portal/contract/auth';
import type { PublicBrand } from '@portal/contract/reseller-branding';
import { routes } from '@portal/contract/routes';
import { useAuth } from './auth-context.tsx';
import { useRouteQuery } from './route-query.ts';

/** The address's brand; null while it is still being asked (the server already put it into index.html). */
export function usePublicBrand(): PublicBrand | null | undefined {
  const query = useRouteQuery(
    routes.resellerBranding.publicBrand,
    {},
    // The brand of an address changes rarely: one request per page load.
    { suppress401: true, retry: false, staleTime: Infinity, refetchOnWindowFocus: false },
  );
  return query.data ?? (query.isPending ? null : undefined);
}

/** The brand to show: the known user's record, else the address's brand (null: not known yet, keep the page's). */
export function useBrand():
  Pick<AuthUser, 'resellerName' | 'logoUrl' | 'tabLogoUrl' | 'accentColor'> | null | undefined {
  const { user } = useAuth();
  const hostBrand = usePublicBrand();
  return user ?? hostBrand;
}
