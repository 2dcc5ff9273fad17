/** The reseller area's companies (issue 13): list, create with a first administrator, suspend/resume, support view. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createCompaniesRepository } from './companies.repository.ts';
import { registerCompaniesRoutes, registerStaffRoutes } from './companies.routes.ts';
import { createCompaniesService } from './companies.service.ts';
import { createStaffService } from './staff.service.ts';

export async function registerResellerCompaniesModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  registerCompaniesRoutes(api, createCompaniesService({ ...deps, repo: createCompaniesRepository(deps.db) }));
  registerStaffRoutes(api, createStaffService(deps));
  return [];
}
