/** The reseller area's catalog and hosts calls: parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CATALOG_TEXT, resellerCatalogRoutes as r } from '@portal/contract/reseller-catalog';
import { IMAGE_TEXT } from '@portal/contract/images';
import { registerRoute, staffScopeOf, type StaffAuthContext } from '../../lib/http.ts';
import { resellerGate } from '../../lib/reseller-gate.ts';
import type { CatalogService, StaffCtx } from './catalog.service.ts';

const ctxOf = (auth: StaffAuthContext, request: FastifyRequest): StaffCtx => ({
  scope: staffScopeOf(auth),
  companyId: auth.companyId,
  requestId: request.id,
});

/** Host checks and registrations a reseller may ask for per minute: each makes the portal connect out (issue 21). */
export const HOST_CONNECTS_PER_MINUTE = 20;

export function registerCatalogRoutes(app: FastifyInstance, catalog: CatalogService): void {
  const admit = resellerGate(app, {
    name: 'host-connect',
    perMinute: HOST_CONNECTS_PER_MINUTE,
    message: CATALOG_TEXT.hostChecksLimited,
  });
  registerRoute(app, r.listSizes, async ({ auth }) => ({ data: await catalog.sizes(staffScopeOf(auth)) }));
  registerRoute(app, r.saveSize, async ({ auth, request, params, body }) => ({
    message: CATALOG_TEXT.sizeSaved,
    data: await catalog.saveSize(ctxOf(auth, request), params.id, body),
  }));
  registerRoute(app, r.storagePrices, async ({ auth }) => ({
    data: await catalog.storagePrices(staffScopeOf(auth)),
  }));
  registerRoute(app, r.saveStoragePrices, async ({ auth, request, body }) => ({
    message: CATALOG_TEXT.storagePricesSaved,
    data: await catalog.saveStoragePrices(ctxOf(auth, request), body),
  }));
  registerRoute(app, r.listRegions, async ({ auth }) => ({ data: await catalog.regions(staffScopeOf(auth)) }));
  registerRoute(app, r.saveImage, async ({ auth, request, body }) => ({
    message: body.offered ? CATALOG_TEXT.imageOffered : CATALOG_TEXT.imageWithdrawn,
    data: await catalog.saveImage(ctxOf(auth, request), body),
  }));
  registerRoute(app, r.describeImage, async ({ auth, request, body }) => ({
    message: body.description ? IMAGE_TEXT.described : IMAGE_TEXT.descriptionRemoved,
    data: await catalog.describeImage(ctxOf(auth, request), body),
  }));
  registerRoute(app, r.listProviders, async ({ auth }) => ({ data: await catalog.providers(staffScopeOf(auth)) }));
  registerRoute(app, r.createProvider, async ({ auth, request, body }) => ({
    message: CATALOG_TEXT.providerCreated,
    data: await catalog.createProvider(ctxOf(auth, request), body),
  }));
  registerRoute(app, r.updateProvider, async ({ auth, request, params, body }) => ({
    message: CATALOG_TEXT.providerSaved,
    data: await catalog.updateProvider(ctxOf(auth, request), params.id, body),
  }));
  registerRoute(app, r.setProviderRegions, async ({ auth, request, params, body }) => ({
    message: CATALOG_TEXT.regionsSaved,
    data: await catalog.setProviderRegions(ctxOf(auth, request), params.id, body.regionIds),
  }));
  registerRoute(app, r.getProviderSettings, async ({ auth, params }) => ({
    data: await catalog.providerSettings(staffScopeOf(auth), params.id),
  }));
  registerRoute(app, r.saveProviderSettings, async ({ auth, request, params, body }) => ({
    message: CATALOG_TEXT.settingsSaved,
    data: await catalog.saveProviderSettings(ctxOf(auth, request), params.id, body),
  }));
  registerRoute(app, r.saveProviderImage, async ({ auth, request, params, body }) => ({
    message: body.volume === null ? CATALOG_TEXT.providerImageRemoved : CATALOG_TEXT.providerImageAdded,
    data: await catalog.saveProviderImage(ctxOf(auth, request), params.id, body),
  }));
  registerRoute(app, r.listHosts, async ({ auth }) => ({ data: await catalog.hosts(staffScopeOf(auth)) }));
  registerRoute(app, r.registerHost, async ({ auth, request, body }) => ({
    message: CATALOG_TEXT.hostRegistered,
    data: await catalog.registerHost(ctxOf(auth, request), body, admit(request)),
  }));
  registerRoute(app, r.updateHost, async ({ auth, request, params, body }) => ({
    message: CATALOG_TEXT.hostSaved,
    data: await catalog.updateHost(ctxOf(auth, request), params.id, body),
  }));
  registerRoute(app, r.checkHost, async ({ auth, request, body }) => ({
    message: CATALOG_TEXT.hostChecked,
    data: await catalog.checkHost(ctxOf(auth, request), body, admit(request)),
  }));
  registerRoute(app, r.deleteHost, async ({ auth, request, params }) => ({
    message: CATALOG_TEXT.hostRemoved,
    data: await catalog.deleteHost(ctxOf(auth, request), params.id),
  }));
}
