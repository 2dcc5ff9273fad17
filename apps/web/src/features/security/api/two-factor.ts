/** The signed-in user's authenticator app (issue 26 item 1), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useReleaseHoldWhenEnrolled } from '../../../lib/auth-check.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.twoFactor;
/** The app's status; once it is on, a policy's hold on /security is released (lib/auth-check.ts). */
export function useTwoFactorStatus() {
  const status = useRouteQuery(r.status);
  useReleaseHoldWhenEnrolled(status.data?.enabled === true);
  return status;
}
export const useStartTwoFactor = () => useRouteMutation(r.start);
export const useConfirmTwoFactor = () => useRouteMutation(r.confirm, { invalidates: [r.status] });
export const useRegenerateRecoveryCodes = () =>
  useRouteMutation(r.regenerateRecoveryCodes, { invalidates: [r.status] });
export const useRemoveTwoFactor = () => useRouteMutation(r.remove, { invalidates: [r.status] });
/** The company's sign-in policy (issue 26 item 2): read by every user, changed by company administrators. */
export const useCompanyPolicy = () => useRouteQuery(routes.companyPolicy.get);
export const useSetCompanyPolicy = () =>
  useRouteMutation(routes.companyPolicy.set, { invalidates: [routes.companyPolicy.get] });
