/** The activity (audit) log for company administrators and reseller staff (issue 13, item 6). */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createActivityRepository } from './activity.repository.ts';
import { registerActivityRoutes } from './activity.routes.ts';
import { createActivityService } from './activity.service.ts';

export async function registerActivityModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  registerActivityRoutes(api, { activity: createActivityService({ activity: createActivityRepository(deps.db) }) });
  return [];
}
