/** Roles, teams and permissions routes: parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { permissionsRoutes, rolesRoutes, teamsRoutes } from '@portal/contract/teams';
import type { AuthContext } from '../../lib/auth-context.ts';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { TeamsService } from './teams.service.ts';

const ctxOf = (auth: AuthContext, request: FastifyRequest) => ({ scope: scopeOf(auth), requestId: request.id });

export function registerTeamsRoutes(app: FastifyInstance, s: { teams: TeamsService }): void {
  registerRoute(app, rolesRoutes.userRoles, async () => ({ data: s.teams.roles() }));
  registerRoute(app, rolesRoutes.updateUserRoleForTeam, async ({ auth, body, request }) => {
    await s.teams.changeRole(ctxOf(auth, request), body);
    return { message: 'Role updated', data: null };
  });

  registerRoute(app, teamsRoutes.list, async ({ auth, query }) => ({ data: await s.teams.list(scopeOf(auth), query) }));
  registerRoute(app, teamsRoutes.details, async ({ auth, params, query }) => ({
    data: await s.teams.details(scopeOf(auth), params.id, query),
  }));
  registerRoute(app, teamsRoutes.create, async ({ auth, body, request }) => ({
    message: 'Team created',
    data: await s.teams.create(ctxOf(auth, request), body),
  }));
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

  registerRoute(app, permissionsRoutes.list, async ({ auth, params }) => ({
    data: await s.teams.permissions(scopeOf(auth), params.id),
  }));
  registerRoute(app, permissionsRoutes.assign, async ({ auth, body, request }) => {
    await s.teams.assign(ctxOf(auth, request), body);
    return { message: 'Roles updated', data: null };
  });
}
