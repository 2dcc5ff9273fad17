/** Roles, teams and permissions (users have their own module). */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createTeamsRepository } from './teams.repository.ts';
import { registerTeamsRoutes } from './teams.routes.ts';
import { createTeamsService } from './teams.service.ts';
import { createTeamQuotasService, registerQuotaRoutes } from './quotas.ts';

export async function registerTeamsModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const teams = createTeamsRepository(deps.db);
  registerTeamsRoutes(api, { teams: createTeamsService({ ...deps, teams }) });
  registerQuotaRoutes(api, createTeamQuotasService(deps));
  return [];
}
