/** The reseller area's catalog and hosts (issue 13; docs/decisions/0014-reseller-catalog.md). No workers. */
import { createSecretBox } from '../../lib/ssh-keys.ts';
import { createHostsService } from '../hosts/hosts.service.ts';
import { createResellerKeys } from '../hosts/reseller-keys.ts';
import type { RegisterModule } from '../module.ts';
import { createCatalogRepository } from './catalog.repository.ts';
import { registerCatalogRoutes } from './catalog.routes.ts';
import { createCatalogService } from './catalog.service.ts';

export const registerCatalogModule: RegisterModule = async (api, deps) => {
  // Reseller hosts: reached only through the egress rule, qemu+tcp only where the operator allows it (issue 21).
  const access = { egress: deps.egress, allowTcp: deps.config.RESELLER_HOST_TCP };
  const catalog = createCatalogService({
    db: deps.db,
    repo: createCatalogRepository(deps.db),
    hosts: createHostsService({ db: deps.db, registry: deps.registry, access, log: deps.log }),
    audit: deps.audit,
    keys: createResellerKeys({ db: deps.db, secrets: createSecretBox(deps.secret) }),
    access,
  });
  registerCatalogRoutes(api, catalog);
  return [];
};
