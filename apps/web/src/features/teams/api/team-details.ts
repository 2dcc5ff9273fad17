import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from '../../../lib/api.ts';

export const teamKey = (id: number) => ['teams', 'details', id] as const;

export function useTeamDetails(id: number, q: { page: number; rowsPerPage: number; search: string }, enabled = true) {
  return useQuery({
    queryKey: [...teamKey(id), q],
    queryFn: () => callApi(routes.teams.details, { params: { id }, query: q }),
    placeholderData: keepPreviousData,
    enabled: enabled && id > 0,
  });
}
