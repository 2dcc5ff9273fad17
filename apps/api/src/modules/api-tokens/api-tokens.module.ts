/** Personal API tokens (issue 26 item 4): their routes. The bearer check itself is app.ts's (token-resolver.ts). */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createApiTokensRepository } from './api-tokens.repository.ts';
import { registerApiTokensRoutes } from './api-tokens.routes.ts';
import { createApiTokensService } from './api-tokens.service.ts';

export async function registerApiTokensModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const repo = createApiTokensRepository(deps.db);
  registerApiTokensRoutes(
    api,
    createApiTokensService({ audit: deps.audit, clock: deps.clock, random: deps.random, repo }),
  );
  return [];
}
