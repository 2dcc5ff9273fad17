/** Users: list, one user, memberships, and the writes (invite, edit, delete). */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { AUTH_CHECK_KEY } from '../../../app/RequireAuth.tsx';
import { callApi, callApiWithMessage } from '../../../lib/api.ts';

export function useUsersList(q: { page: number; rowsPerPage: number; search: string; excludeTeamId?: number }) {
  return useQuery({ queryKey: ['users', 'list', q], queryFn: () => callApi(routes.users.list, { query: q }), placeholderData: keepPreviousData });
}

export function useUser(id: number) {
  return useQuery({ queryKey: ['users', 'details', id], queryFn: () => callApi(routes.users.details, { params: { id } }), enabled: id > 0 });
}

export function useMemberships(userId: number, q: { page: number; rowsPerPage: number; search: string }) {
  return useQuery({
    queryKey: ['users', 'teams', userId, q],
    queryFn: () => callApi(routes.users.teams, { params: { userId }, query: q }),
    placeholderData: keepPreviousData,
    enabled: userId > 0,
  });
}

/** After user edits and role changes the current user is fetched again (SPEC point 4). */
function useRefreshAfterUserWrite() {
  const queryClient = useQueryClient();
  return async () => {
    await queryClient.invalidateQueries({ queryKey: ['users'] });
    await queryClient.invalidateQueries({ queryKey: ['teams'] });
    await queryClient.invalidateQueries({ queryKey: AUTH_CHECK_KEY });
  };
}

export function useEditUser() {
  const refresh = useRefreshAfterUserWrite();
  return useMutation({ mutationFn: (b: { id: number; firstName: string; lastName: string }) => callApiWithMessage(routes.users.edit, { body: b }), onSuccess: refresh });
}

export function useDeleteUser() {
  const refresh = useRefreshAfterUserWrite();
  return useMutation({ mutationFn: (id: number) => callApi(routes.users.delete, { params: { id } }), onSuccess: refresh });
}

export function useInviteUser() {
  const refresh = useRefreshAfterUserWrite();
  return useMutation({ mutationFn: (b: { email: string; roleId: number; teamIds: number[] }) => callApi(routes.users.create, { body: b }), onSuccess: refresh });
}

export { useRefreshAfterUserWrite };
