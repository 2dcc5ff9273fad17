/** The reseller area's catalog and hosts (issue 13; docs/decisions/0014-reseller-catalog.md). No workers. */
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
    hosts: deps.engine.hosts,
    hostsRepo: deps.engine.hostsRepository,
    audit: deps.audit,
    keys: deps.engine.resellerKeys,
    access,
    // A host set to draining: the engine's drainer looks at once rather than at its next pass (docs/draining.md).
    onDraining: () => deps.engine.drainer.kick(),
  });
  registerCatalogRoutes(api, catalog);
  return [];
};
