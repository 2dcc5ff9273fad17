/** Roles, users, teams and permissions routes: parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { permissionsRoutes, rolesRoutes, teamsRoutes, usersRoutes } from '@portal/contract/teams';
import { VALIDATION } from '@portal/contract/messages';
import type { AuthContext } from '../../lib/auth-context.ts';
import { ForbiddenError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../../lib/module.ts';
import type { TeamsService } from './teams.service.ts';
import type { UsersService } from './users.service.ts';

const ctxOf = (auth: AuthContext, request: FastifyRequest) => ({ scope: scopeOf(auth), requestId: request.id });

export function registerTeamsRoutes(app: FastifyInstance, s: { teams: TeamsService; users: UsersService }): void {
  registerRoute(app, rolesRoutes.userRoles, async () => ({ data: s.teams.roles() }));
  registerRoute(app, rolesRoutes.updateUserRoleForTeam, async ({ auth, body, request }) => {
    await s.teams.changeRole(ctxOf(auth, request), body);
    return { message: 'Role updated', data: null };
  });

  registerRoute(app, usersRoutes.register, async () => {
    throw new ForbiddenError('Accounts are created by invitation. Ask your administrator to invite you.');
  });
  registerRoute(app, usersRoutes.create, async ({ auth, body, request }) => {
    const data = await s.users.invite(ctxOf(auth, request), body);
    return { message: `Completed creating user: ${data.email}`, data };
  });
  registerRoute(app, usersRoutes.edit, async ({ auth, body, request }) => ({
    message: VALIDATION.userUpdated,
    data: await s.users.edit(ctxOf(auth, request), body),
  }));
  registerRoute(app, usersRoutes.list, async ({ auth, query }) => ({ data: await s.users.list(scopeOf(auth), query) }));
  registerRoute(app, usersRoutes.details, async ({ auth, params }) => ({ data: await s.users.details(scopeOf(auth), params.id) }));
  registerRoute(app, usersRoutes.teams, async ({ auth, params, query }) => ({ data: await s.users.memberships(scopeOf(auth), params.userId, query) }));
  registerRoute(app, usersRoutes.delete, async ({ auth, params, request }) => {
    await s.users.remove(ctxOf(auth, request), params.id);
    return { message: 'User deleted', data: null };
  });

  registerRoute(app, teamsRoutes.list, async ({ auth, query }) => ({ data: await s.teams.list(scopeOf(auth), query) }));
  registerRoute(app, teamsRoutes.details, async ({ auth, params, query }) => ({ data: await s.teams.details(scopeOf(auth), params.id, query) }));
  registerRoute(app, teamsRoutes.create, async ({ auth, body, request }) => ({ message: 'Team created', data: await s.teams.create(ctxOf(auth, request), body) }));
  registerRoute(app, teamsRoutes.update, async ({ auth, body, request }) => {
    await s.teams.rename(ctxOf(auth, request), body.teamId, body.name);
    return { message: 'Team updated', data: null };
  });
  registerRoute(app, teamsRoutes.addUser, async ({ auth, body, request }) => {
    await s.teams.addUser(ctxOf(auth, request), body);
    return { message: 'User added to team', data: null };
  });
  registerRoute(app, teamsRoutes.removeUser, async ({ auth, body, request }) => {
    await s.teams.removeUser(ctxOf(auth, request), body);
    return { message: 'User removed from team', data: null };
  });
  registerRoute(app, teamsRoutes.delete, async ({ auth, body, request }) => {
    await s.teams.remove(ctxOf(auth, request), body.teamId);
    return { message: 'Team deleted', data: null };
  });

  registerRoute(app, permissionsRoutes.list, async ({ auth, params }) => ({ data: await s.teams.permissions(scopeOf(auth), params.id) }));
  registerRoute(app, permissionsRoutes.assign, async ({ auth, body, request }) => {
    await s.teams.assign(ctxOf(auth, request), body);
    return { message: 'Roles updated', data: null };
  });
}
