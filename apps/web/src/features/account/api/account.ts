/** The account page's calls (issue 25 item 7; docs/account.md), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.account;
export const useAccountSessions = () => useRouteQuery(r.sessions);
export const useRevokeOtherSessions = () => useRouteMutation(r.revokeOtherSessions, { invalidates: [r.sessions] });
export const useUpdatePreferences = () => useRouteMutation(r.updatePreferences, { invalidates: [r.preferences] });
/** The spec's own routes: the name through /users/edit (the caller's own id), the password through /users/updatePassword. */
export const useEditOwnName = () => useRouteMutation(routes.users.edit, { invalidates: [routes.password.me] });
export const useChangePassword = () => useRouteMutation(routes.password.updatePassword, { invalidates: [r.sessions] });
