/** Reseller branding and custom domains (issue 13): the public brand of a host, and the staff's branding screen. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BRANDING_TEXT, resellerBrandingRoutes as r } from '@portal/contract/reseller-branding';
import { registerRoute, staffScopeOf, type StaffAuthContext } from '../../lib/http.ts';
import type { ModuleDeps, Worker } from '../module.ts';
import { createBrandingRepository } from './branding.repository.ts';
import { createBrandingService, type BrandingCtx } from './branding.service.ts';
import { platformHostsOf } from './domain-claims.ts';
import { createTxtLookup } from '../../lib/dns-txt.ts';
import { createBrandAssets } from './brand-assets.ts';
import { BRAND_UPLOAD_BODY_BYTES, registerBrandAssetRoute } from './brand-asset-route.ts';

/** Verify presses per client address and minute. */
const VERIFY_CHECKS_PER_MINUTE = 20;

const ctxOf = (auth: StaffAuthContext, request: FastifyRequest): BrandingCtx => ({
  scope: staffScopeOf(auth),
  companyId: auth.companyId,
  requestId: request.id,
});

export async function registerBrandingModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const assets = createBrandAssets(deps.db);
  const branding = createBrandingService({
    ...deps,
    repo: createBrandingRepository(deps.db),
    platformHosts: platformHostsOf(deps.portalUrl, deps.config.PLATFORM_HOSTS),
    txt: createTxtLookup(deps.config.DNS_RESOLVER),
    assets,
    apiBasePath: deps.config.API_BASE_PATH,
  });

  // Public: one cached lookup per host (reseller-hosts.ts), so it needs no limit of its own.
  // request.host is the Host header unless TRUST_FORWARDED_HOST (plugins/forwarded-host.ts).
  registerRoute(api, r.publicBrand, async ({ request }) => ({ data: await branding.publicBrand(request.host) }));
  registerRoute(api, r.get, async ({ auth, request }) => ({ data: await branding.page(ctxOf(auth, request)) }));
  registerRoute(api, r.update, async ({ auth, request, body }) => ({
    message: BRANDING_TEXT.saved,
    data: await branding.update(ctxOf(auth, request), body),
  }));
  registerRoute(
    api,
    r.uploadAsset,
    async ({ auth, request, params, body }) => ({
      message: params.kind === 'logo' ? BRANDING_TEXT.logoUploaded : BRANDING_TEXT.iconUploaded,
      data: await branding.uploadAsset(ctxOf(auth, request), params.kind, body.data),
    }),
    { bodyLimit: BRAND_UPLOAD_BODY_BYTES },
  );
  // Public: the uploaded images themselves (the sign-in page shows them before anyone signs in).
  registerBrandAssetRoute(api, assets);
  registerRoute(api, r.addDomain, async ({ auth, request, body }) => ({
    message: BRANDING_TEXT.domainAdded,
    data: await branding.addDomain(ctxOf(auth, request), body.host, body.isPrimary ?? false),
  }));
  registerRoute(api, r.removeDomain, async ({ auth, request, params }) => ({
    message: BRANDING_TEXT.domainRemoved,
    data: await branding.removeDomain(ctxOf(auth, request), params.host),
  }));
  registerRoute(api, r.setPrimaryDomain, async ({ auth, request, params }) => ({
    message: BRANDING_TEXT.primarySet,
    data: await branding.setPrimary(ctxOf(auth, request), params.host),
  }));
  registerRoute(
    api,
    r.verifyDomain,
    async ({ auth, request, params }) => ({
      message: BRANDING_TEXT.domainVerified,
      data: await branding.verifyDomain(ctxOf(auth, request), params.host),
    }),
    // Each check is a DNS lookup on the operator's resolver.
    { rateLimit: { max: VERIFY_CHECKS_PER_MINUTE, keyGenerator: (req) => `domain-verify:${req.ip}` } },
  );
  return [];
}
