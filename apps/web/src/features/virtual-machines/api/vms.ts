/** VM reads and writes. Every write refreshes the VM queries; live events refresh them too. */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi, callApiWithMessage } from '../../../lib/api.ts';

export const vmsKey = ['vms'] as const;

export function useVmList(q: { page: number; rowsPerPage: number; search: string; sortColumn?: 'name' | 'configuration' | undefined; sortDescending?: boolean; teamId?: number }) {
  return useQuery({
    queryKey: [...vmsKey, 'list', q],
    queryFn: () =>
      callApi(routes.vms.list, {
        query: { page: q.page, rowsPerPage: q.rowsPerPage, search: q.search, sortColumn: q.sortColumn, sortDescending: q.sortColumn ? String(q.sortDescending ?? false) : undefined, teamId: q.teamId },
      }),
    placeholderData: keepPreviousData,
  });
}

export function useVmDetails(id: number) {
  return useQuery({ queryKey: [...vmsKey, 'details', id], queryFn: () => callApi(routes.vms.details, { params: { id } }), enabled: id > 0 });
}

export function useConfigurations() {
  return useQuery({ queryKey: ['catalog', 'configurations'], queryFn: () => callApi(routes.vms.listConfigurations), staleTime: 5 * 60_000 });
}

function useVmWrite<I>(fn: (input: I) => Promise<{ message: string }>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => queryClient.invalidateQueries({ queryKey: vmsKey }) });
}

export const useVmAction = (action: 'start' | 'stop' | 'reset') => useVmWrite((id: number) => callApiWithMessage(routes.vms[action], { params: { id } }));
export const useDeleteVm = () => useVmWrite((id: number) => callApiWithMessage(routes.vms.delete, { params: { id } }));
export const useRenameVm = () => useVmWrite((b: { id: number; name: string }) => callApiWithMessage(routes.vms.edit, { params: { id: b.id }, body: { name: b.name } }));
export const useUpgradeVm = () => useVmWrite((b: { id: number; configurationId: number }) => callApiWithMessage(routes.vms.changeConfiguration, { body: b }));
export const useCreateVm = () =>
  useVmWrite((b: { regionId: number; image: string; configurationId: number; providerId: number; name: string; numberOfInstances: number; teamId?: number | null }) =>
    callApiWithMessage(routes.vms.create, { body: b }),
  );

export const fetchPassword = (id: number) => callApi(routes.vms.getPassword, { params: { id } });
export const fetchPrivateKey = (id: number) => callApi(routes.vms.getAccessKey, { params: { id } });
export const fetchConsoleUrl = (id: number) => callApi(routes.vms.getConsole, { params: { id } });
