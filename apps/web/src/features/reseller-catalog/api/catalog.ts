/** The reseller area's catalog and hosts calls, straight from the contract. Each write refreshes the reads it changes. */
import { resellerCatalogRoutes as r } from '@portal/contract/reseller-catalog';
import type { ApiData } from '../../../lib/api.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { useAuth } from '../../../lib/auth-context.tsx';
import { staffMayWrite } from '@portal/contract/permissions';

export const useResellerSizes = () => useRouteQuery(r.listSizes);
export const useResellerRegions = () => useRouteQuery(r.listRegions);
export const useResellerHosts = () => useRouteQuery(r.listHosts);
export const useSaveSize = () => useRouteMutation(r.saveSize, { invalidates: [r.listSizes] });
export const useUpdateHost = () => useRouteMutation(r.updateHost, { invalidates: [r.listHosts, r.listRegions] });
export const useRegisterHost = () => useRouteMutation(r.registerHost, { invalidates: [r.listHosts, r.listRegions] });

/** Owners change things; support only looks (the server refuses them anyway). */
export function useMayEdit(): boolean {
  return staffMayWrite(useAuth().user?.staffRole);
}

/** A host as the portal receives it (timestamps arrive as dates). */
export type HostView = ApiData<typeof r.listHosts>['hosts'][number];
