import { keepPreviousData } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { useRouteQuery } from '../../../lib/route-query.ts';

export function useTeamDetails(
  id: number,
  query: { page: number; rowsPerPage: number; search: string },
  enabled = true,
) {
  return useRouteQuery(
    routes.teams.details,
    { params: { id }, query },
    { placeholderData: keepPreviousData, enabled: enabled && id > 0 },
  );
}
