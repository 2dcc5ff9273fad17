/** The reseller area's companies: list, one company, and the writes, straight from the route table. */
import { keepPreviousData } from '@tanstack/react-query';
import type { RouteDef } from '@portal/contract/common';
import { resellerCompaniesRoutes as r } from '@portal/contract/reseller-companies';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

type PageQuery = { page: number; rowsPerPage: number; search: string };

export const useCompanies = (query: PageQuery) =>
  useRouteQuery(r.list, { query }, { placeholderData: keepPreviousData });
export const useCompany = (id: number) => useRouteQuery(r.detail, { params: { id } }, { enabled: id > 0 });

/** Every companies write refreshes the list and the open company. */
export const useCompanyWrite = <R extends RouteDef>(route: R) =>
  useRouteMutation(route, { invalidates: [r.list, r.detail] });
