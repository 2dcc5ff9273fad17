/** Users of a company: invitations, profiles, memberships. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createMemberships } from '../../db/memberships.ts';
import { assertSteppedUp } from '../../db/step-up.ts';
import { createUsersRepository } from './users.repository.ts';
import { registerUsersRoutes } from './users.routes.ts';
import { createUsersService } from './users.service.ts';

export async function registerUsersModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  // Team memberships are shared with the teams module through db/memberships.ts.
  const users = createUsersService({
    ...deps,
    teams: createMemberships(deps.db),
    users: createUsersRepository(deps.db),
  });
  registerUsersRoutes(api, { users, stepUp: (auth) => assertSteppedUp(deps.db, deps.clock, auth) });
  return [];
}
