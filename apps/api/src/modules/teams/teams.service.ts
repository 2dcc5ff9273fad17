/** Teams, memberships, roles and permission assignment: the rules and the access checks. */
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import type { TenantScope } from '../../lib/auth-context.ts';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  SQLSTATE,
  databaseErrorOf,
} from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import { PERMISSIONS, ROLE_PERMISSIONS, effectivePermissions } from '../access/permissions.ts';
import { BUILT_IN_ROLES } from '../../seed/roles.ts';
import type { TeamsRepository } from './teams.repository.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'audit'> & { teams: TeamsRepository };
type Ctx = { scope: TenantScope; requestId: string };

const roleIds = new Set<number>(BUILT_IN_ROLES.map((r) => r.id));

export const LAST_ADMIN_MESSAGE =
  'A team needs at least one Admin: make another member Admin first, or delete the team';
export const TEAM_NAME_TAKEN = 'A team with this name already exists';

/** The unique index on (company_id, lower(name)) refused a name another request took in the meantime. */
function isTeamNameClash(err: unknown): boolean {
  const info = databaseErrorOf(err);
  return info?.code === SQLSTATE.uniqueViolation && info.constraint === 'teams_company_name_key';
}

async function nameClashAsConflict<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (isTeamNameClash(err)) throw new ConflictError(TEAM_NAME_TAKEN);
    throw err;
  }
}

function requireRole(roleId: number): void {
  if (!roleIds.has(roleId)) throw new NotFoundError('Role not found');
}

export function createTeamsService(deps: Deps) {
  const { db, access, audit, teams } = deps;
  const auditOf = (
    ctx: Ctx,
    action: string,
    targetType: string,
    targetId: number,
    extra: { before?: unknown; after?: unknown } = {},
  ) => ({
    companyId: ctx.scope.companyId,
    actorUserId: ctx.scope.userId,
    action,
    targetType,
    targetId,
    requestId: ctx.requestId,
    ...extra,
  });

  async function requireMember(teamId: number, userId: number) {
    const membership = await teams.membership(teamId, userId);
    if (!membership) throw new NotFoundError('User is not a member of this team');
    return membership;
  }

  return {
    roles() {
      return BUILT_IN_ROLES.map((r) => ({ id: r.id, name: r.name, info: r.info }));
    },

    async list(
      scope: TenantScope,
      q: { page: number; rowsPerPage: number; search: string; excludeTeamId?: number | undefined },
    ) {
      const { rows, total } = await teams.list({
        companyId: scope.companyId,
        memberUserId: scope.isCompanyAdmin ? null : scope.userId,
        search: q.search,
        ...(q.excludeTeamId ? { excludeTeamId: q.excludeTeamId } : {}),
        page: q.page,
        rowsPerPage: q.rowsPerPage,
      });
      // The caller's permissions per row, so the portal offers only what they may do (the role comes with the page).
      const data = rows.map(({ memberRoleId, ...r }) => ({
        ...r,
        createdAt: iso(r.createdAt),
        permissions: effectivePermissions(memberRoleId, scope.isCompanyAdmin),
      }));
      return { data, totalPages: totalPages(total, q.rowsPerPage) };
    },

    async details(scope: TenantScope, teamId: number, q: { page: number; rowsPerPage: number; search: string }) {
      const { roleId } = await access.requireTeam(scope, teamId, 'team.view');
      const team = (await teams.byId(scope.companyId, teamId))!;
      const { rows, total } = await teams.members(teamId, q);
      return {
        teamName: team.name,
        members: rows,
        totalPages: totalPages(total, q.rowsPerPage),
        myRoleId: roleId,
        permissions: effectivePermissions(roleId, scope.isCompanyAdmin),
      };
    },

    async create(ctx: Ctx, input: { name: string; parentTeamId?: number | null | undefined }) {
      const parentTeamId = input.parentTeamId ?? null;
      if (parentTeamId !== null)
        await access.requireTeam(ctx.scope, parentTeamId, 'team.view', 'Parent team not found');
      if (await teams.nameTaken(ctx.scope.companyId, input.name)) throw new ConflictError(TEAM_NAME_TAKEN);
      return nameClashAsConflict(
        db.transaction(async (tx) => {
          const team = await teams.insert(tx, { companyId: ctx.scope.companyId, name: input.name, parentTeamId });
          // The creator runs the team.
          await teams.addMember(tx, team.id, ctx.scope.userId, ADMIN_ROLE_ID);
          await audit.record(
            auditOf(ctx, 'team.create', 'team', team.id, { after: { name: team.name, parentTeamId } }),
            tx,
          );
          return { teamId: team.id };
        }),
      );
    },

    async rename(ctx: Ctx, teamId: number, name: string) {
      await access.requireTeam(ctx.scope, teamId, 'team.manage');
      const team = (await teams.byId(ctx.scope.companyId, teamId))!;
      if (team.name === name) return;
      if (await teams.nameTaken(ctx.scope.companyId, name, teamId)) throw new ConflictError(TEAM_NAME_TAKEN);
      await nameClashAsConflict(
        db.transaction(async (tx) => {
          await teams.rename(tx, teamId, name);
          await audit.record(
            auditOf(ctx, 'team.rename', 'team', teamId, { before: { name: team.name }, after: { name } }),
            tx,
          );
        }),
      );
    },

    async addUser(ctx: Ctx, input: { teamId: number; userId: number; roleId: number }) {
      await access.requireTeam(ctx.scope, input.teamId, 'team.manage');
      requireRole(input.roleId);
      if (!(await teams.userInCompany(ctx.scope.companyId, input.userId))) throw new NotFoundError('User not found');
      if (await teams.membership(input.teamId, input.userId))
        throw new ConflictError('User is already a member of this team');
      await db.transaction(async (tx) => {
        await teams.addMember(tx, input.teamId, input.userId, input.roleId);
        await audit.record(
          auditOf(ctx, 'team.member.add', 'team', input.teamId, {
            after: { userId: input.userId, roleId: input.roleId },
          }),
          tx,
        );
      });
    },

    async removeUser(ctx: Ctx, input: { teamId: number; userId: number }) {
      // Members may leave a team themselves; removing others takes team.manage.
      const self = input.userId === ctx.scope.userId;
      await access.requireTeam(ctx.scope, input.teamId, self ? 'team.view' : 'team.manage');
      await requireMember(input.teamId, input.userId);
      await db.transaction(async (tx) => {
        // Checked again under the team's lock: two Admins removing each other (or both leaving) at once
        // would otherwise each see the other still there and leave the team with none.
        await teams.lockTeams(tx, [input.teamId]);
        const membership = await teams.membership(input.teamId, input.userId, tx);
        if (!membership) throw new NotFoundError('User is not a member of this team');
        if (!self && !(await teams.membership(input.teamId, ctx.scope.userId, tx)) && !ctx.scope.isCompanyAdmin) {
          throw new NotFoundError('Team not found');
        }
        if (membership.roleId === ADMIN_ROLE_ID && (await teams.adminCount(input.teamId, ADMIN_ROLE_ID, tx)) <= 1) {
          throw new ConflictError(LAST_ADMIN_MESSAGE);
        }
        await teams.removeMember(tx, input.teamId, input.userId);
        await audit.record(
          auditOf(ctx, 'team.member.remove', 'team', input.teamId, {
            before: { userId: input.userId, roleId: membership.roleId },
          }),
          tx,
        );
      });
    },

    /** The role dropdown: Admin is fixed (never changed, never granted here). */
    async changeRole(ctx: Ctx, input: { teamId: number; userId: number; roleId: number }) {
      await access.requireTeam(ctx.scope, input.teamId, 'team.manage');
      requireRole(input.roleId);
      const membership = await requireMember(input.teamId, input.userId);
      if (membership.roleId === ADMIN_ROLE_ID) throw new ForbiddenError('The Admin role cannot be changed');
      if (input.roleId === ADMIN_ROLE_ID) throw new BadRequestError('The Admin role cannot be assigned here');
      if (membership.roleId === input.roleId) return;
      await db.transaction(async (tx) => {
        await teams.setRole(tx, input.teamId, input.userId, input.roleId);
        await audit.record(
          auditOf(ctx, 'team.member.role', 'team', input.teamId, {
            before: { userId: input.userId, roleId: membership.roleId },
            after: { userId: input.userId, roleId: input.roleId },
          }),
          tx,
        );
      });
    },

    async remove(ctx: Ctx, teamId: number) {
      await access.requireTeam(ctx.scope, teamId, 'team.delete');
      const team = (await teams.byId(ctx.scope.companyId, teamId))!;
      await db.transaction(async (tx) => {
        await teams.lockForDelete(tx, teamId);
        const vms = await teams.liveVmCount(teamId, tx);
        if (vms > 0) {
          throw new ConflictError(
            `This team still has ${vms} virtual machine${vms === 1 ? '' : 's'}. Delete them first.`,
          );
        }
        await teams.delete(tx, teamId);
        await audit.record(auditOf(ctx, 'team.delete', 'team', teamId, { before: { name: team.name } }), tx);
      });
    },

    async permissions(scope: TenantScope, teamId: number) {
      await access.requireTeam(scope, teamId, 'team.view');
      const { rows } = await teams.members(teamId, { search: '' });
      return {
        teamId,
        members: rows,
        roles: BUILT_IN_ROLES.map((r) => ({
          id: r.id,
          name: r.name,
          info: r.info,
          permissions: [...(ROLE_PERMISSIONS[r.id] ?? [])],
        })),
        permissions: Object.entries(PERMISSIONS).map(([key, description]) => ({ key, description })),
      };
    },

    /** Sets several members' roles at once (set-permissions mode); all or nothing. */
    async assign(ctx: Ctx, input: { teamId: number; assignments: { userId: number; roleId: number }[] }) {
      await access.requireTeam(ctx.scope, input.teamId, 'team.manage');
      const seen = new Set<number>();
      const changes: { userId: number; from: number; to: number }[] = [];
      for (const a of input.assignments) {
        if (seen.has(a.userId)) throw new BadRequestError('Each member may appear once');
        seen.add(a.userId);
        requireRole(a.roleId);
        const membership = await requireMember(input.teamId, a.userId);
        if (membership.roleId === a.roleId) continue;
        if (membership.roleId === ADMIN_ROLE_ID) throw new ForbiddenError('The Admin role cannot be changed');
        if (a.roleId === ADMIN_ROLE_ID) throw new BadRequestError('The Admin role cannot be assigned here');
        changes.push({ userId: a.userId, from: membership.roleId, to: a.roleId });
      }
      await db.transaction(async (tx) => {
        for (const c of changes) {
          await teams.setRole(tx, input.teamId, c.userId, c.to);
          await audit.record(
            auditOf(ctx, 'team.member.role', 'team', input.teamId, {
              before: { userId: c.userId, roleId: c.from },
              after: { userId: c.userId, roleId: c.to },
            }),
            tx,
          );
        }
      });
    },
  };
}
export type TeamsService = ReturnType<typeof createTeamsService>;
