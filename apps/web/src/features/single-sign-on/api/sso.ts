/** The company's single sign-on settings (issue 26 item 3; company administrators), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const r = routes.singleSignOn;
export const useSsoSettings = () => useRouteQuery(r.get);
export const useSaveSso = () => useRouteMutation(r.save, { invalidates: [r.get] });
export const useDisableSso = () => useRouteMutation(r.disable, { invalidates: [r.get] });
export const useTestSso = () => useRouteMutation(r.test);
