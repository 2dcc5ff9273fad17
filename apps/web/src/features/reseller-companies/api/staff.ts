/** The reseller's staff: the list and the owner's writes. */
import type { RouteDef } from '@portal/contract/common';
import { resellerStaffRoutes as s } from '@portal/contract/reseller-companies';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

export const useStaff = () => useRouteQuery(s.list);
export const useStaffWrite = <R extends RouteDef>(route: R) => useRouteMutation(route, { invalidates: [s.list] });
