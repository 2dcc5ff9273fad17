import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const teamsListKey = ['teams', 'list'] as const;

export function useTeamsList(q: { page: number; rowsPerPage: number; search: string; excludeTeamId?: number }) {
  return useQuery({
    queryKey: [...teamsListKey, q],
    queryFn: () => callApi(routes.teams.list, { query: q }),
    placeholderData: keepPreviousData,
  });
}
