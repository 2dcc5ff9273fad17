/**
 * The one tenant-visibility rule for virtual machines, as a SQL condition: the VM list and the usage
 * counts filter rows with it, and `access.requireVm` evaluates it for one VM's values. A caller sees a VM
 * of their own company when they are a company administrator, a member of its team, or (outside any
 * team) its creator. Anything else is reported as not found.
 */
import { sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import { effectivePermissions, roleGrants, type Permission } from './permissions.ts';

/** A caller's scope, or placeholders for it in a prepared query. */
export type ScopeValues = { companyId: number | Placeholder; userId: number | Placeholder; isCompanyAdmin: boolean };

/** The VM's owning columns, or bound values standing for them. */
export interface VmOwner {
  companyId: SQLWrapper;
  teamId: SQLWrapper;
  createdByUserId: SQLWrapper;
}

export function vmVisibleTo(scope: ScopeValues, vm: VmOwner): SQL {
  const sameCompany = sql`${vm.companyId} = ${scope.companyId}`;
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
