/** Registers the teams routes and returns the module's background workers. (Stub: being built.) */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../../lib/module.ts';

export async function registerTeamsModule(_api: FastifyInstance, _deps: ModuleDeps): Promise<Worker[]> {
  return [];
}
