/**
 * Which reads a kind of write makes stale, named by route. Several features write teams and users (the users
 * screens change memberships, the teams screens list users), so the lists live here rather than in one feature.
 */
import { routes } from '@portal/contract/routes';
import type { RouteDef } from '@portal/contract/common';

/** What shows VM state: lists (also a team's VMs), details, dashboard counts. Refreshed by VM writes and live events. */
export const VM_READS: RouteDef[] = [routes.vms.list, routes.vms.details, routes.vms.dashboard, routes.vms.listFacets];

/** Teams, their members and permissions, and the users with their memberships. */
export const TEAM_AND_USER_READS: RouteDef[] = [
  routes.teams.list,
  routes.teams.details,
  routes.permissions.list,
  routes.users.list,
  routes.users.details,
  routes.users.teams,
];

/** After user edits and role changes the current user is fetched again too (SPEC point 4). */
export const USER_WRITE_READS: RouteDef[] = [...TEAM_AND_USER_READS, routes.auth.check];
