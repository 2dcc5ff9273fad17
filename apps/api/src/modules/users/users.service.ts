/** Users of a company: invitations, names, deletion, memberships. */
import { ADMIN_ROLE_ID, INVITE_TOKEN_TTL_MS } from '@portal/contract/constants';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import { portalLink } from '../../mail/portal-links.ts';
import { alreadyRegisteredMail, inviteMail } from '../../mail/templates.ts';
import { roleGrants } from '../access/permissions.ts';
import { senderOf } from '../../mail/sender.ts';
import { BUILT_IN_ROLES } from '../../seed/roles.ts';
import type { Memberships } from '../../db/memberships.ts';
import type { UsersRepository, userColumns } from './users.repository.ts';
import { setCompanyAdmin } from './company-admin.ts';

type Deps = Pick<
  ModuleDeps,
  'db' | 'access' | 'audit' | 'tokens' | 'mailer' | 'identity' | 'portalUrl' | 'defaultFrom' | 'clock'
> & {
  teams: Memberships;
  users: UsersRepository;
};
type Ctx = { scope: TenantScope; requestId: string };
type UserRow = {
  [K in keyof typeof userColumns]:
    (typeof userColumns)[K]['_']['data'] | ((typeof userColumns)[K]['_']['notNull'] extends true ? never : null);
};

export function toUserDto(u: UserRow) {
  const name = `${u.firstName} ${u.lastName}`.trim();
  return {
    id: u.id,
    firstName: u.firstName,
    lastName: u.lastName,
    name: name || u.email,
    email: u.email,
    isCompanyAdmin: u.isCompanyAdmin,
    confirmed: u.emailConfirmedAt !== null,
    createdAt: iso(u.createdAt),
  };
}

export function createUsersService(deps: Deps) {
  const { db, access, audit, users, teams } = deps;
  const auditOf = (ctx: Ctx, action: string, targetId: number, extra: { before?: unknown; after?: unknown } = {}) => ({
    companyId: ctx.scope.companyId,
    actorUserId: ctx.scope.userId,
    action,
    targetType: 'user',
    targetId,
    requestId: ctx.requestId,
    ...extra,
  });

  async function mustFind(scope: TenantScope, id: number) {
    const user = await users.byId(scope.companyId, id);
    if (!user) throw new NotFoundError('User not found');
    return user;
  }

  return {
    async list(
      scope: TenantScope,
      q: { page: number; rowsPerPage: number; search: string; excludeTeamId?: number | undefined },
    ) {
      if (q.excludeTeamId) await access.requireTeam(scope, q.excludeTeamId, 'team.view');
      const { rows, total } = await users.list({ companyId: scope.companyId, ...q });
      return { data: rows.map(toUserDto), totalPages: totalPages(total, q.rowsPerPage) };
    },

    async details(scope: TenantScope, id: number) {
      return toUserDto(await mustFind(scope, id));
    },

    async memberships(scope: TenantScope, userId: number, q: { page: number; rowsPerPage: number; search: string }) {
      await mustFind(scope, userId);
      // Company admins and the user see every membership; others only teams they share.
      const visibleToUserId = scope.isCompanyAdmin || scope.userId === userId ? null : scope.userId;
      const { rows, total } = await users.memberships({ userId, visibleToUserId, ...q });
      return { data: rows, totalPages: totalPages(total, q.rowsPerPage) };
    },

    async edit(ctx: Ctx, input: { id: number; firstName: string; lastName: string }) {
      if (input.id !== ctx.scope.userId) access.requireCompanyAdmin(ctx.scope);
      const before = await mustFind(ctx.scope, input.id);
      return db.transaction(async (tx) => {
        const after = await users.rename(tx, input.id, input.firstName, input.lastName);
        await audit.record(
          auditOf(ctx, 'user.edit', input.id, {
            before: { firstName: before.firstName, lastName: before.lastName },
            after: { firstName: after.firstName, lastName: after.lastName },
          }),
          tx,
        );
        return toUserDto(after);
      });
    },

    /**
     * Invites a user into the inviter's company and teams, and mails the confirmation link. Company
     * admins may invite anyone; a team Admin may invite into the teams they manage (not as Admin).
     */
    async invite(ctx: Ctx, input: { email: string; roleId: number; teamIds: number[] }) {
      if (!BUILT_IN_ROLES.some((r) => r.id === input.roleId)) throw new NotFoundError('Role not found');
      const teamIds = [...new Set(input.teamIds)];
      if (!ctx.scope.isCompanyAdmin) {
        if (teamIds.length === 0)
          throw new ForbiddenError('Only company administrators can invite users outside a team');
        if (input.roleId === ADMIN_ROLE_ID)
          throw new ForbiddenError('Only company administrators can invite team Admins');
        for (const teamId of teamIds) {
          const { roleId } = await access.requireTeam(ctx.scope, teamId, 'team.manage');
          if (!roleGrants(roleId, 'team.manage')) throw new ForbiddenError();
        }
      }
      const found = await teams.companyTeamIds(ctx.scope.companyId, teamIds);
      if (found.length !== teamIds.length) throw new NotFoundError('Team not found');
      const email = input.email.trim().toLowerCase();
      const inviter = await deps.identity.byId(ctx.scope.userId);
      if (!inviter) throw new NotFoundError('User not found');
      const existing = await users.companyOfEmail(email);
      if (existing !== null) {
        // In the inviter's own company the user is on their list anyway: say so.
        if (existing === ctx.scope.companyId) throw new ConflictError('A user with this email already exists');
        // Elsewhere, the answer must not tell that the address has an account (issue 9 item 9): it reads as
        // a sent invitation, with an id drawn like a new user's; the address's owner is told instead.
        const inviterName = `${inviter.firstName} ${inviter.lastName}`.trim() || inviter.email;
        const note = alreadyRegisteredMail(inviter.resellerName ?? 'Portal', inviterName, inviter.companyName);
        await deps.mailer.enqueue({ to: email, from: senderOf(inviter, deps.defaultFrom), ...note });
        await audit.record(
          auditOf(ctx, 'user.invite.existingAccount', ctx.scope.userId, { after: { roleId: input.roleId, teamIds } }),
        );
        return { id: await users.drawUserId(), email };
      }

      const { user, key } = await db.transaction(async (tx) => {
        const created = await users.insert(tx, { companyId: ctx.scope.companyId, email });
        for (const teamId of teamIds) await teams.addMember(tx, teamId, created.id, input.roleId);
        const inviteKey = await deps.tokens.issue(created.id, 'confirm_email', INVITE_TOKEN_TTL_MS, tx);
        await audit.record(
          auditOf(ctx, 'user.invite', created.id, { after: { email, roleId: input.roleId, teamIds } }),
          tx,
        );
        return { user: created, key: inviteKey };
      });
      // The invitee joins the inviter's company, so the inviter's reseller's domain is theirs too.
      const link = portalLink(deps.portalUrl, inviter.portalHost, '/confirmNewUser', { token: key, id: user.id });
      const inviterName = `${inviter.firstName} ${inviter.lastName}`.trim() || inviter.email;
      const mail = inviteMail(inviter.resellerName ?? 'Portal', inviterName, inviter.companyName, link);
      await deps.mailer.enqueue({ to: email, from: senderOf(inviter, deps.defaultFrom), ...mail });
      return { id: user.id, email: user.email };
    },

    /** Grants or revokes company administration of a user of the caller's company (company-admin.ts holds the rule). */
    async setCompanyAdmin(ctx: Ctx, id: number, grant: boolean) {
      access.requireCompanyAdmin(ctx.scope);
      const result = await setCompanyAdmin(db, audit, {
        target: { companyId: ctx.scope.companyId, userId: id },
        grant,
        actor: { userId: ctx.scope.userId, requestId: ctx.requestId },
        now: deps.clock.now(),
      });
      if (result.outcome === 'notFound') throw new NotFoundError('User not found');
      return toUserDto(result.user);
    },

    /**
     * Deletes a user of the company (company admins; never yourself). Their sessions, codes, keys and
     * memberships go with them; VMs they created stay with the company.
     */
    async remove(ctx: Ctx, id: number) {
      if (id === ctx.scope.userId) throw new BadRequestError('You cannot delete yourself');
      access.requireCompanyAdmin(ctx.scope);
      const user = await mustFind(ctx.scope, id);
      await db.transaction(async (tx) => {
        // Every team keeps an Admin (as when removing a member): hand the role on first, or delete the team.
        // Checked under the locks of the user's teams, so a concurrent removal cannot slip between.
        await teams.lockTeams(tx, await teams.teamIdsOf(id, tx));
        const orphaned = await teams.teamsWithSoleAdmin(id, ADMIN_ROLE_ID, tx);
        if (orphaned.length > 0) {
          throw new ConflictError(
            `This user is the only Admin of ${orphaned.join(', ')}. Make another member Admin first, or delete the team.`,
          );
        }
        await users.delete(tx, id);
        await audit.record(
          auditOf(ctx, 'user.delete', id, {
            before: { email: user.email, firstName: user.firstName, lastName: user.lastName },
          }),
          tx,
        );
      });
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
