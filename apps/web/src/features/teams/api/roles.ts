import { useQuery } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export function useRoles() {
  return useQuery({ queryKey: ['roles'], queryFn: () => callApi(routes.roles.userRoles), staleTime: 5 * 60_000 });
}

export const isAdminRole = (role: { id: number; name: string }) => role.id === 1 || role.name === 'Admin';
