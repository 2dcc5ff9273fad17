/** Users routes: parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ACTIVITY_TEXT, companyAdminRoutes } from '@portal/contract/activity';
import { usersRoutes } from '@portal/contract/teams';
import { VALIDATION } from '@portal/contract/messages';
import type { AuthContext } from '../../lib/auth-context.ts';
import { ForbiddenError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { UsersService } from './users.service.ts';

const ctxOf = (auth: AuthContext, request: FastifyRequest) => ({ scope: scopeOf(auth), requestId: request.id });

export function registerUsersRoutes(
  app: FastifyInstance,
  s: {
    users: UsersService;
    /** Step-up before removing a user (db/step-up.ts). */ stepUp: (auth: AuthContext) => Promise<void>;
  },
): void {
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
  registerRoute(app, usersRoutes.details, async ({ auth, params }) => ({
    data: await s.users.details(scopeOf(auth), params.id),
  }));
  registerRoute(app, usersRoutes.teams, async ({ auth, params, query }) => ({
    data: await s.users.memberships(scopeOf(auth), params.userId, query),
  }));
  registerRoute(app, companyAdminRoutes.set, async ({ auth, params, body, request }) => {
    const user = await s.users.setCompanyAdmin(ctxOf(auth, request), params.id, body.isCompanyAdmin);
    return {
      message: body.isCompanyAdmin ? ACTIVITY_TEXT.granted(user.name) : ACTIVITY_TEXT.revoked(user.name),
      data: user,
    };
  });
  registerRoute(app, usersRoutes.delete, async ({ auth, params, request }) => {
    await s.stepUp(auth);
    await s.users.remove(ctxOf(auth, request), params.id);
    return { message: 'User deleted', data: null };
  });
}
