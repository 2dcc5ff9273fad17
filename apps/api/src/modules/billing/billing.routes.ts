/** The reseller area's usage and billing webhook routes: thin, parse and call a service. */
import type { AuthContext } from '../../lib/auth-context.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { USAGE_CSV_PATH, billingRoutes as r, usageCsvFilename, usageCsvQuerySchema } from '@portal/contract/billing';
import { API_MESSAGES } from '@portal/contract/messages';
import { BILLING_MESSAGES } from '@portal/contract/billing';
import { enforceStaffAccess, registerRoute, staffScopeOf } from '../../lib/http.ts';
import { resellerGate } from '../../lib/reseller-gate.ts';
import type { UsageService } from './usage.service.ts';
import type { createWebhooksService } from './webhooks.service.ts';

/** Manual sends and retries a reseller may ask for per minute (issue 21: they had no limit). */
export const MANUAL_SENDS_PER_MINUTE = 10;

export function registerBillingRoutes(
  app: FastifyInstance,
  d: {
    usage: UsageService;
    webhooks: ReturnType<typeof createWebhooksService>;
    /** Step-up before rotating the webhook's secret (db/step-up.ts). */
    stepUp: (auth: AuthContext) => Promise<void>;
  },
): void {
  // "Send now" and "Retry now" together, per reseller: each makes the portal connect to the reseller's URL.
  const admit = resellerGate(app, {
    name: 'billing-manual',
    perMinute: MANUAL_SENDS_PER_MINUTE,
    message: BILLING_MESSAGES.sendRateLimited,
  });

  registerRoute(app, r.usage, async ({ auth, query }) => ({
    data: await d.usage.resellerUsage(staffScopeOf(auth).resellerId, query.month),
  }));
  registerRoute(app, r.companyUsage, async ({ auth, params, query }) => ({
    data: await d.usage.companyUsage(staffScopeOf(auth).resellerId, params.id, query.month),
  }));

  // A file download, outside the { message, data } envelope (its errors are the envelope as usual).
  app.withTypeProvider<ZodTypeProvider>().get(
    USAGE_CSV_PATH,
    {
      schema: {
        summary: 'Usage of a month as CSV (text/csv; one row per company × VM × size)',
        tags: ['Billing'],
        querystring: usageCsvQuerySchema,
        security: [{ session: [] }],
      },
      config: { rateLimit: false },
      preHandler: async (request) => enforceStaffAccess(request.auth),
    },
    async (request, reply) => {
      enforceStaffAccess(request.auth);
      const { month, companyId } = request.query;
      const csv = await d.usage.csv(staffScopeOf(request.auth).resellerId, month, companyId);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${usageCsvFilename(month, companyId)}"`)
        .header('cache-control', 'no-store')
        .send(csv);
    },
  );

  registerRoute(app, r.getWebhook, async ({ auth }) => ({ data: await d.webhooks.get(staffScopeOf(auth)) }));
  registerRoute(app, r.setWebhook, async ({ auth, body }) => ({
    message: BILLING_MESSAGES.webhookSaved,
    data: await d.webhooks.save(staffScopeOf(auth), body),
  }));
  registerRoute(app, r.rotateSecret, async ({ auth }) => {
    await d.stepUp(auth);
    return {
      message: BILLING_MESSAGES.secretRotated,
      data: await d.webhooks.rotateSecret(staffScopeOf(auth)),
    };
  });
  registerRoute(app, r.sendNow, async ({ auth, body, request }) => ({
    message: BILLING_MESSAGES.sendQueued,
    data: await d.webhooks.sendNow(staffScopeOf(auth), body.month, body.companyId, admit(request)),
  }));
  registerRoute(app, r.deliveries, async ({ auth, query }) => ({
    message: API_MESSAGES.ok,
    data: await d.webhooks.deliveries(staffScopeOf(auth), query.page, query.rowsPerPage),
  }));
  registerRoute(app, r.retryDelivery, async ({ auth, params, request }) => ({
    message: BILLING_MESSAGES.retryQueued,
    data: await d.webhooks.retry(staffScopeOf(auth), params.id, admit(request)),
  }));
}
