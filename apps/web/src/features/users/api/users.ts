/** Users: list, one user, memberships, and the writes (invite, edit, delete), straight from the route table. */
import { keepPreviousData } from '@tanstack/react-query';
import type { RouteDef } from '@portal/contract/common';
import { routes } from '@portal/contract/routes';
import { USER_WRITE_READS } from '../../../lib/reads.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

type PageQuery = { page: number; rowsPerPage: number; search: string };

export const useUsersList = (query: PageQuery) =>
  useRouteQuery(routes.users.list, { query }, { placeholderData: keepPreviousData });
export const useUser = (id: number) => useRouteQuery(routes.users.details, { params: { id } }, { enabled: id > 0 });
export const useMemberships = (userId: number, query: PageQuery) =>
  useRouteQuery(
    routes.users.teams,
    { params: { userId }, query },
    { placeholderData: keepPreviousData, enabled: userId > 0 },
  );

/** Every user or membership write refreshes teams, users and the current user (SPEC point 4). */
export const useUserWrite = <R extends RouteDef>(route: R) =>
  useRouteMutation(route, { invalidates: USER_WRITE_READS });

/** The caller's permissions in a team, from the team's answer (one small page; shared cache per team). */
export const useTeamPermissions = (teamId: number, enabled: boolean) =>
  useRouteQuery(
    routes.teams.details,
    { params: { id: teamId }, query: { page: 1, rowsPerPage: 1, search: '' } },
    { enabled: enabled && teamId > 0, retry: false, staleTime: 30_000 },
  );
