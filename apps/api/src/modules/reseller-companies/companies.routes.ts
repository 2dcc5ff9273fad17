/** The reseller area's companies routes: parse, call the service, answer. */
import type { FastifyInstance } from 'fastify';
import { COMPANIES_TEXT, resellerCompaniesRoutes as r } from '@portal/contract/reseller-companies';
import { registerRoute, staffScopeOf } from '../../lib/http.ts';
import type { CompaniesService } from './companies.service.ts';

export function registerCompaniesRoutes(app: FastifyInstance, companies: CompaniesService): void {
  registerRoute(app, r.list, async ({ auth, query }) => ({ data: await companies.list(staffScopeOf(auth), query) }));
  registerRoute(app, r.detail, async ({ auth, params }) => ({
    data: await companies.detail(staffScopeOf(auth), params.id),
  }));
  registerRoute(app, r.create, async ({ auth, body, request }) => ({
    message: COMPANIES_TEXT.created(body.adminEmail.toLowerCase()),
    data: await companies.create({ staff: staffScopeOf(auth), requestId: request.id }, body),
  }));
  registerRoute(app, r.suspend, async ({ auth, params, body, request }) => ({
    message: COMPANIES_TEXT.suspended,
    data: await companies.suspend(
      { staff: staffScopeOf(auth), requestId: request.id },
      params.id,
      body?.reason ?? null,
    ),
  }));
  registerRoute(app, r.resume, async ({ auth, params, request }) => {
    await companies.resume({ staff: staffScopeOf(auth), requestId: request.id }, params.id);
    return { message: COMPANIES_TEXT.resumed, data: null };
  });
}
