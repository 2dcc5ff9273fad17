/** The team writes: create, rename, delete, add/remove a member, set roles. Each refreshes the team queries. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

function useTeamWrite<I, O>(fn: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['teams'] }).then(() => queryClient.invalidateQueries({ queryKey: ['users'] })),
  });
}

export const useCreateTeam = () => useTeamWrite((name: string) => callApi(routes.teams.create, { body: { name, parentTeamId: null } }));
export const useRenameTeam = () => useTeamWrite((b: { teamId: number; name: string }) => callApi(routes.teams.update, { body: b }));
export const useDeleteTeam = () => useTeamWrite((teamId: number) => callApi(routes.teams.delete, { body: { teamId } }));
export const useAddTeamUser = () => useTeamWrite((b: { teamId: number; userId: number; roleId: number }) => callApi(routes.teams.addUser, { body: b }));
export const useRemoveTeamUser = () => useTeamWrite((b: { teamId: number; userId: number }) => callApi(routes.teams.removeUser, { body: b }));
export const useAssignRoles = () =>
  useTeamWrite((b: { teamId: number; assignments: { userId: number; roleId: number }[] }) => callApi(routes.permissions.assign, { body: b }));
export const useUpdateRole = () => useTeamWrite((b: { teamId: number; userId: number; roleId: number }) => callApi(routes.roles.updateUserRoleForTeam, { body: b }));
