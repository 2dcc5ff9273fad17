/**
 * VM reads and writes, straight from the contract's route table (the portal's zod-free one) and its action table
 * (vm-actions.ts, zod-free too): the VM page and the list load no schema through here. Every write refreshes the VM
 * reads; live events refresh them too. */
import { keepPreviousData } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { VM_ACTIONS, type VmActionName } from '@portal/contract/vm-actions';
import { callApi } from '../../../lib/api.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { VM_READS } from '../../../lib/reads.ts';
import { vmListRequest, type VmListQuery } from './vm-list-query.ts';

export type { VmListQuery };

/** The list's page; its request (and so its key) is the route loader's prefetch's too (vm-list-prefetch.ts). */
export function useVmList(q: VmListQuery) {
  return useRouteQuery(routes.vms.list, vmListRequest(q), { placeholderData: keepPreviousData });
}

/**
 * A VM's details, refreshed while the page is open: its usage is the engine's latest sample (taken each reconcile
 * pass), so a running machine with no sample yet (just started) is asked again soon, and otherwise every 15 s.
 */
export const useVmDetails = (id: number) =>
  useRouteQuery(
    routes.vms.details,
    { params: { id } },
    {
      enabled: id > 0,
      refetchInterval: (query) => {
        const data = query.state.data;
        if (!data) return false;
        return data.status === 'Running' && !data.usage.cpuUsage ? 2_000 : 15_000;
      },
    },
  );
/** The regions and teams of the caller's VMs: what the list's filters offer. */
export const useVmFacets = () => useRouteQuery(routes.vms.listFacets, {}, { staleTime: 60_000 });
/** Start, stop or delete several VMs (chosen, or all matching the filters): each VM's outcome comes back. */
export const useVmBulk = () => useRouteMutation(routes.vms.bulk, { invalidates: VM_READS });
export const useConfigurations = () => useRouteQuery(routes.vms.listConfigurations, {}, { staleTime: 5 * 60_000 });

/** Actions confirmed with a plain yes/no: the rows of VM_ACTIONS that carry `confirm` texts. */
export type ConfirmedVmAction = {
  [K in VmActionName]: (typeof VM_ACTIONS)[K] extends { confirm: object } ? K : never;
}[VmActionName];
export const isConfirmedAction = (action: VmActionName): action is ConfirmedVmAction => 'confirm' in VM_ACTIONS[action];

/** The VM actions that are one call on `/:id` with no body (each route is named like its action). */
export type VmIdAction = ConfirmedVmAction | 'delete';
export const useVmIdAction = (action: VmIdAction) => useRouteMutation(routes.vms[action], { invalidates: VM_READS });
/** A VM's delete with its query: keepBackups=true keeps its backups (issue 24 item 4). */
export const useDeleteVm = () => useRouteMutation(routes.vms.delete, { invalidates: VM_READS });
export const useRenameVm = () => useRouteMutation(routes.vms.edit, { invalidates: VM_READS });
export const useUpgradeVm = () => useRouteMutation(routes.vms.changeConfiguration, { invalidates: VM_READS });
export const useRebuildVm = () => useRouteMutation(routes.vms.rebuild, { invalidates: VM_READS });
export const useCreateVm = () => useRouteMutation(routes.vms.create, { invalidates: VM_READS });

/**
 * The caller's stored SSH keys, to choose from in the create form (the same read as the SSH keys screen's); read again
 * whenever the tab comes back to the front (the form's "Manage SSH keys" opens the keys screen in another tab).
 */
export const useSshKeyChoices = () => useRouteQuery(routes.sshKeys.list, {}, { refetchOnWindowFocus: 'always' });

export const fetchPassword = (id: number) => callApi(routes.vms.getPassword, { params: { id } });
export const fetchPrivateKey = (id: number) => callApi(routes.vms.getAccessKey, { params: { id } });
export const fetchConsoleUrl = (id: number) => callApi(routes.vms.getConsole, { params: { id } });
