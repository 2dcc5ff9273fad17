/**
 * The one tenant-visibility rule for virtual machines, as a SQL condition: the VM list and the usage
 * counts filter rows with it, and `access.requireVm` evaluates it for one VM's values. A caller sees a VM
 * of their own company when they are a company administrator, a member of its team, or (outside any
 * team) its creator. Anything else is reported as not found.
 */
import { sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import { effectivePermissions, roleGrants, type Permission } from './permissions.ts';

/**
 * A caller's scope, or placeholders for it in a prepared query. `teamIds`: a personal API token limited to these
 * teams (docs/api-tokens.md) sees only their VMs; a placeholder stands for a PostgreSQL array literal or null
 * (`teamIdsParam`); absent or null = no limit.
 */
export type ScopeValues = {
  companyId: number | Placeholder;
  userId: number | Placeholder;
  isCompanyAdmin: boolean;
  teamIds?: readonly number[] | null | Placeholder;
};

/** The value a prepared query's `teamIds` placeholder takes: '{1,2}' or null (no limit). */
export function teamIdsParam(teamIds: readonly number[] | null | undefined): string | null {
  return teamIds ? `{${teamIds.map((id) => Math.trunc(id)).join(',')}}` : null;
}

function tokenTeams(scope: ScopeValues, vm: VmOwner): SQL | null {
  const t = scope.teamIds;
  if (t === undefined || t === null) return null;
  const list = Array.isArray(t) ? sql`${teamIdsParam(t as readonly number[])}::int[]` : sql`${t}::int[]`;
  return sql`(${list} is null or ${vm.teamId} = any(${list}))`;
}

/** The VM's owning columns, or bound values standing for them. */
export interface VmOwner {
  companyId: SQLWrapper;
  teamId: SQLWrapper;
  createdByUserId: SQLWrapper;
}

export function vmVisibleTo(scope: ScopeValues, vm: VmOwner): SQL {
  const limit = tokenTeams(scope, vm);
  const sameCompany = limit
    ? sql`(${vm.companyId} = ${scope.companyId} and ${limit})`
    : sql`${vm.companyId} = ${scope.companyId}`;
  if (scope.isCompanyAdmin) return sameCompany;
  return sql`(${sameCompany} and (${vm.teamId} in (select m.team_id from team_members m where m.user_id = ${scope.userId})
    or (${vm.teamId} is null and ${vm.createdByUserId} = ${scope.userId})))`;
}

/** Bound values for one VM's owner, typed so PostgreSQL can read a null. */
export function ownerValues(vm: { companyId: number; teamId: number | null; createdByUserId: number | null }): VmOwner {
  return {
    companyId: sql`${vm.companyId}::int`,
    teamId: sql`${vm.teamId}::int`,
    createdByUserId: sql`${vm.createdByUserId}::int`,
  };
}

/**
 * The rule's second half, on a VM the SQL rule already shows: a team's VM stays hidden from a member whose role in
 * that team does not grant `vm.view` (company administrators and a VM outside any team need no role).
 */
export function roleLetsView(
  scope: { isCompanyAdmin: boolean },
  vm: { teamId: number | null },
  roleId: number | null,
): boolean {
  return scope.isCompanyAdmin || vm.teamId === null || roleGrants(roleId, 'vm.view');
}

/** What the caller may do with a VM they see, as read answers report it (the creator of a team-less VM holds all). */
export function vmPermissionsOf(
  scope: { isCompanyAdmin: boolean; userId: number },
  vm: { teamId: number | null; createdByUserId: number | null },
  roleId: number | null,
): Permission[] {
  const owner = vm.teamId === null && vm.createdByUserId === scope.userId;
  return effectivePermissions(roleId, scope.isCompanyAdmin || owner).filter((p) => p.startsWith('vm.'));
}
