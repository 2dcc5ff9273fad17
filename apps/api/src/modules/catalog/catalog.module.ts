/** The reseller area's catalog and hosts (issue 13; docs/decisions/0014-reseller-catalog.md). No workers. */
import { createHostsService } from '../hosts/hosts.service.ts';
import type { RegisterModule } from '../module.ts';
import { createCatalogRepository } from './catalog.repository.ts';
import { registerCatalogRoutes } from './catalog.routes.ts';
import { createCatalogService } from './catalog.service.ts';

export const registerCatalogModule: RegisterModule = async (api, deps) => {
  const catalog = createCatalogService({
    db: deps.db,
    repo: createCatalogRepository(deps.db),
    hosts: createHostsService({ db: deps.db, registry: deps.registry }),
    audit: deps.audit,
  });
  registerCatalogRoutes(api, catalog);
  return [];
};
