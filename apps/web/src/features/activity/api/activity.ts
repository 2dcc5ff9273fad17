/** The activity log: the company's (company administrators) and the reseller's (staff), with their filter choices. */
import { keepPreviousData } from '@tanstack/react-query';
import type { ActivityQuery, ResellerActivityQuery } from '@portal/contract/activity';
import { routes } from '@portal/contract/routes';
import { useRouteQuery } from '../../../lib/route-query.ts';

type Query<Q> = Partial<Q>;

export const useActivityList = (query: Query<ActivityQuery>, enabled: boolean) =>
  useRouteQuery(routes.activity.list, { query }, { placeholderData: keepPreviousData, enabled });
export const useActivityFilters = () => useRouteQuery(routes.activity.filters, {}, { staleTime: 30_000 });

export const useResellerActivityList = (query: Query<ResellerActivityQuery>, enabled: boolean) =>
  useRouteQuery(routes.activity.resellerList, { query }, { placeholderData: keepPreviousData, enabled });
export const useResellerActivityFilters = () =>
  useRouteQuery(routes.activity.resellerFilters, {}, { staleTime: 30_000 });
