/** Each user's SSH public keys (issue 23 item 5); a VM create copies the chosen ones (virtual-machines). */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createSshKeysRepository } from './ssh-keys.repository.ts';
import { registerSshKeysRoutes } from './ssh-keys.routes.ts';
import { createSshKeysService } from './ssh-keys.service.ts';

export async function registerSshKeysModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  registerSshKeysRoutes(
    api,
    createSshKeysService({ db: deps.db, audit: deps.audit, repo: createSshKeysRepository(deps.db) }),
  );
  return [];
}
