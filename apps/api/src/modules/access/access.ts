/**
 * Access checks shared by every module. Rows of another company are reported as not found (so ids
 * of other tenants cannot be probed); rows the caller can see but not change are forbidden.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { teamMembers, teams } from '../../db/schema.ts';
import type { TenantScope } from '../../lib/auth-context.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { roleGrants, type Permission } from './permissions.ts';
import { ownerValues, roleLetsView, vmVisibleTo } from './vm-visibility.ts';

export interface TeamAccess {
  teamId: number;
  /** The caller's role in the team, or null when they reach it as a company administrator. */
  roleId: number | null;
}

export function createAccess(db: Db) {
  async function roleInTeam(userId: number, teamId: number): Promise<number | null> {
    const [row] = await db
      .select({ roleId: teamMembers.roleId })
      .from(teamMembers)
      .where(and(eq(teamMembers.userId, userId), eq(teamMembers.teamId, teamId)))
      .limit(1);
    return row?.roleId ?? null;
  }

  return {
    roleInTeam,

    /** Resolves a team of the caller's company and checks `permission` on it. */
    async requireTeam(
      scope: TenantScope,
      teamId: number,
      permission: Permission,
      notFound = 'Team not found',
    ): Promise<TeamAccess> {
      const [team] = await db
        .select({ id: teams.id })
        .from(teams)
        .where(and(eq(teams.id, teamId), eq(teams.companyId, scope.companyId)))
        .limit(1);
      if (!team) throw new NotFoundError(notFound);
      // A team-limited API token does not reach other teams: as another company's team, not found.
      if (scope.teamIds && !scope.teamIds.includes(teamId)) throw new NotFoundError(notFound);
      const roleId = await roleInTeam(scope.userId, teamId);
      if (scope.isCompanyAdmin) return { teamId, roleId };
      if (roleId === null) throw new NotFoundError(notFound);
      if (!roleGrants(roleId, permission)) throw new ForbiddenError();
      return { teamId, roleId };
    },

    /**
     * Checks `permission` on a VM already loaded with its company, team and creator: hidden (404) unless the
     * visibility rule (vm-visibility.ts) shows it; then a team member's role must grant the permission (403).
     * VMs outside any team belong to their creator (and the company administrators).
     */
    async requireVm(
      scope: TenantScope,
      vm: { companyId: number; teamId: number | null; createdByUserId: number | null },
      permission: Permission,
      notFound = 'Virtual machine not found',
    ): Promise<void> {
      const res = await db.execute<{ visible: boolean; role_id: number | null }>(
        sql`select ${vmVisibleTo(scope, ownerValues(vm))} as visible,
          (select m.role_id from team_members m where m.user_id = ${scope.userId} and m.team_id = ${vm.teamId}::int) as role_id`,
      );
      const row = res.rows[0];
      if (!row?.visible || !roleLetsView(scope, vm, row.role_id)) throw new NotFoundError(notFound);
      if (scope.isCompanyAdmin || vm.teamId === null) return;
      if (!roleGrants(row.role_id, permission)) throw new ForbiddenError();
    },

    /** Company administrators, or a user whose role grants `permission` in at least one team. */
    async requireInAnyTeam(scope: TenantScope, permission: Permission, message?: string): Promise<void> {
      if (scope.isCompanyAdmin) return;
      const roles = await db
        .selectDistinct({ roleId: teamMembers.roleId })
        .from(teamMembers)
        .where(eq(teamMembers.userId, scope.userId));
      if (!roles.some((r) => roleGrants(r.roleId, permission))) throw new ForbiddenError(message);
    },

    requireCompanyAdmin(scope: TenantScope): void {
      if (!scope.isCompanyAdmin) throw new ForbiddenError('Only company administrators can do that');
    },
  };
}
export type Access = ReturnType<typeof createAccess>;
