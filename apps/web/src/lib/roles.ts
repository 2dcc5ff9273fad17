/** The team roles offered in role pickers (teams and users screens). Role 1 is Admin, never assigned from a picker. */
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { useRouteQuery } from './route-query.ts';

export const useRoles = () => useRouteQuery(routes.roles.userRoles, {}, { staleTime: 5 * 60_000 });

export const isAdminRole = (role: { id: number; name: string }) => role.id === ADMIN_ROLE_ID || role.name === 'Admin';
