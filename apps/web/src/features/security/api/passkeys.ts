/** The signed-in user's passkeys (issue 26 item 1; docs/two-factor.md "Passkeys"), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.passkeys;
export const usePasskeys = () => useRouteQuery(r.list);
/** Also the auth check: a policy's hold on /security ends once a strong factor is on. */
export const useAddPasskey = () => useRouteMutation(r.add, { invalidates: [r.list, routes.auth.check] });
export const useRenamePasskey = () => useRouteMutation(r.rename, { invalidates: [r.list] });
export const useRemovePasskey = () => useRouteMutation(r.remove, { invalidates: [r.list] });
