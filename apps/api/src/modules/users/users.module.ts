/** Users of a company: invitations, profiles, memberships. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createTeamsRepository } from '../teams/teams.repository.ts';
import { createUsersRepository } from './users.repository.ts';
import { registerUsersRoutes } from './users.routes.ts';
import { createUsersService } from './users.service.ts';

export async function registerUsersModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  // Memberships are read through the teams repository.
  const users = createUsersService({
    ...deps,
    teams: createTeamsRepository(deps.db),
    users: createUsersRepository(deps.db),
  });
  registerUsersRoutes(api, { users });
  return [];
}
