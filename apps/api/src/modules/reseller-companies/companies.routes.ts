/** The reseller area's companies and staff routes: parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  COMPANIES_TEXT,
  STAFF_TEXT,
  resellerCompaniesRoutes as r,
  resellerStaffRoutes as s,
} from '@portal/contract/reseller-companies';
import { QUOTA_TEXT, resellerQuotaRoutes } from '@portal/contract/quotas';
import { registerRoute, staffScopeOf, type StaffAuthContext } from '../../lib/http.ts';
import type { CompaniesService } from './companies.service.ts';
import type { StaffService } from './staff.service.ts';

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
  registerRoute(app, resellerQuotaRoutes.setCompany, async ({ auth, params, body, request }) => ({
    message: QUOTA_TEXT.saved,
    data: await companies.setQuota({ staff: staffScopeOf(auth), requestId: request.id }, params.id, body),
  }));
  registerRoute(app, r.resume, async ({ auth, params, request }) => {
    await companies.resume({ staff: staffScopeOf(auth), requestId: request.id }, params.id);
    return { message: COMPANIES_TEXT.resumed, data: null };
  });
}

export function registerStaffRoutes(app: FastifyInstance, staff: StaffService): void {
  const ctx = (auth: StaffAuthContext, request: FastifyRequest) => ({
    staff: staffScopeOf(auth),
    requestId: request.id,
  });
  registerRoute(app, s.list, async ({ auth }) => ({ data: await staff.list(staffScopeOf(auth)) }));
  registerRoute(app, s.invite, async ({ auth, body, request }) => ({
    message: STAFF_TEXT.invited(body.email.toLowerCase()),
    data: await staff.invite(ctx(auth, request), body),
  }));
  registerRoute(app, s.changeRole, async ({ auth, params, body, request }) => {
    await staff.changeRole(ctx(auth, request), params.id, body.role);
    return { message: STAFF_TEXT.roleChanged, data: null };
  });
  registerRoute(app, s.remove, async ({ auth, params, request }) => {
    await staff.remove(ctx(auth, request), params.id);
    return { message: STAFF_TEXT.removed, data: null };
  });
}
