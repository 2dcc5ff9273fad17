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
/** The prices per GB-month of snapshots and backups kept (issue 24 item 4). */
export const useStoragePrices = () => useRouteQuery(r.storagePrices);
export const useSaveStoragePrices = () => useRouteMutation(r.saveStoragePrices, { invalidates: [r.storagePrices] });
export const useUpdateHost = () => useRouteMutation(r.updateHost, { invalidates: [r.listHosts, r.listRegions] });
export const useRegisterHost = () => useRouteMutation(r.registerHost, { invalidates: [r.listHosts, r.listRegions] });
/** Validates a URI and reads a qemu+ssh host's key (nothing is stored). */
export const useCheckHost = () => useRouteMutation(r.checkHost);
export const useDeleteHost = () => useRouteMutation(r.deleteHost, { invalidates: [r.listHosts, r.listRegions] });
export const useResellerProviders = () => useRouteQuery(r.listProviders);
/** A provider change moves what the regions list and the host form offer. */
const providerReads = { invalidates: [r.listProviders, r.listRegions, r.listHosts] };
export const useCreateProvider = () => useRouteMutation(r.createProvider, providerReads);
export const useUpdateProvider = () => useRouteMutation(r.updateProvider, providerReads);
export const useSetProviderRegions = () => useRouteMutation(r.setProviderRegions, providerReads);
export const useSaveImage = () => useRouteMutation(r.saveImage, { invalidates: [r.listRegions] });
/** A libvirt provider's settings the reseller manages (pool and network names, public addresses, images). */
export const useProviderSettings = (id: number) => useRouteQuery(r.getProviderSettings, { params: { id } });
export const useSaveProviderSettings = () =>
  useRouteMutation(r.saveProviderSettings, { invalidates: [r.getProviderSettings] });
/** An image's name decides what the regions list once a host holds its volume. */
export const useSaveProviderImage = () =>
  useRouteMutation(r.saveProviderImage, { invalidates: [r.getProviderSettings, r.listRegions] });
export const useDescribeImage = () => useRouteMutation(r.describeImage, { invalidates: [r.listRegions] });

/** Owners change things; support only looks (the server refuses them anyway). */
export function useMayEdit(): boolean {
  return staffMayWrite(useAuth().user?.staffRole);
}

export type ProviderView = ApiData<typeof r.listProviders>['providers'][number];
export type RegionChoice = ApiData<typeof r.listProviders>['regions'][number];
export type RegionView = ApiData<typeof r.listRegions>['regions'][number];
/** An image's platform and own description (decision 0018). */
export type ImageDescriptionView = ApiData<typeof r.listRegions>['descriptions'][number];

/** A host as the portal receives it (timestamps arrive as dates). */
export type HostView = ApiData<typeof r.listHosts>['hosts'][number];
