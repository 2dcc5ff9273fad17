/** Personal API tokens (issue 26 item 4), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

const lists = [routes.apiTokens.list, routes.apiTokens.companyList];
export const useApiTokens = () => useRouteQuery(routes.apiTokens.list);
export const useCompanyApiTokens = (enabled: boolean) =>
  useRouteQuery(routes.apiTokens.companyList, { query: {} }, { enabled });
export const useCreateApiToken = () => useRouteMutation(routes.apiTokens.create, { invalidates: lists });
export const useRevokeApiToken = () => useRouteMutation(routes.apiTokens.revoke, { invalidates: lists });
export const useCompanyRevokeApiToken = () => useRouteMutation(routes.apiTokens.companyRevoke, { invalidates: lists });
export const useMyTeams = () => useRouteQuery(routes.teams.list, { query: { page: 1, rowsPerPage: 100 } });
