/** The signed-in user's SSH keys (issue 23 item 5), straight from the route table. */
import { routes } from '@portal/contract/routes';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';

export const useSshKeys = () => useRouteQuery(routes.sshKeys.list);
export const useAddSshKey = () => useRouteMutation(routes.sshKeys.add, { invalidates: [routes.sshKeys.list] });
export const useRemoveSshKey = () => useRouteMutation(routes.sshKeys.remove, { invalidates: [routes.sshKeys.list] });
