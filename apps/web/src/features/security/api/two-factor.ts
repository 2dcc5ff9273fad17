/** The signed-in user's authenticator app (issue 26 item 1), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.twoFactor;
export const useTwoFactorStatus = () => useRouteQuery(r.status);
export const useStartTwoFactor = () => useRouteMutation(r.start);
export const useConfirmTwoFactor = () => useRouteMutation(r.confirm, { invalidates: [r.status] });
export const useRegenerateRecoveryCodes = () =>
  useRouteMutation(r.regenerateRecoveryCodes, { invalidates: [r.status] });
export const useRemoveTwoFactor = () => useRouteMutation(r.remove, { invalidates: [r.status] });
