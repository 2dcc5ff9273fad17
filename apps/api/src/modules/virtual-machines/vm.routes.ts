/** VM routes: the contract's calls, plus the live event stream and the console page. Handlers only parse, call the service, answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { vmActionRoutes, vmRoutes } from '@portal/contract/virtual-machines';
import { API_MESSAGES, TEXT } from '@portal/contract/messages';
import { VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import type { AuthContext } from '../../lib/auth-context.ts';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors.ts';
import { enforceUserAccess, registerRoute, stillUserAccess } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { Access } from '../access/access.ts';
import type { ModuleDeps } from '../module.ts';

type SessionStore = ModuleDeps['sessions'];
import { SESSION_COOKIE } from '../../plugins/session.ts';
import { consolePage, EXPIRED_CONSOLE_PAGE } from './console-page.ts';
import type { ConsoleTokenStore } from './console-tokens.ts';
import type { VmEvents } from '../../engine/vm-events.ts';
import type { VmOperationAction, VmService } from './vm.service.ts';

const ctxOf = (auth: AuthContext, request: FastifyRequest) => ({
  scope: scopeOf(auth),
  requestId: request.id,
  resellerId: auth.resellerId,
});

export interface VmRoutesDeps {
  vms: VmService;
  events: VmEvents;
  access: Access;
  consoleTokens: ConsoleTokenStore;
  sessions: SessionStore;
  /** How often a live stream checks its session again. */
  sessionRecheckMs: number;
  apiBasePath: string;
  /** Step-up before the destructive actions (db/step-up.ts): delete, bulk delete, rebuild. */
  stepUp: (auth: AuthContext) => Promise<void>;
}

export function registerVmRoutes(app: FastifyInstance, d: VmRoutesDeps): void {
  const { vms } = d;
  // The catalog is what the caller's reseller offers (docs/decisions/0014-reseller-catalog.md).
  registerRoute(app, vmRoutes.listCountries, async ({ auth }) => ({ data: await vms.countries(auth.resellerId) }));
  registerRoute(app, vmRoutes.listConfigurations, async ({ auth }) => ({
    data: await vms.configurations(auth.resellerId),
  }));
  registerRoute(app, vmRoutes.listRegions, async ({ params, auth }) => ({
    data: await vms.regions(params.id, auth.resellerId),
  }));
  registerRoute(app, vmRoutes.listCities, async ({ params }) => ({ data: await vms.cities(params.id) }));
  registerRoute(app, vmRoutes.listImages, async ({ params, auth }) => ({
    data: await vms.images(params.id, auth.resellerId),
  }));
  registerRoute(app, vmRoutes.listImageDetails, async ({ params, auth }) => ({
    data: await vms.imageDetails(params.id, auth.resellerId),
  }));
  registerRoute(app, vmRoutes.getRegion, async ({ params }) => ({ data: await vms.region(params.id) }));
  registerRoute(app, vmRoutes.listProviders, async ({ params, query, auth }) => ({
    data: await vms.providers(params.regionId, auth.resellerId, query.configurationId),
  }));
  registerRoute(app, vmRoutes.fetchConfigurations, async ({ params, query, auth }) => ({
    data: await vms.regionConfigurations(params.regionId, auth.resellerId, query.image),
  }));

  registerRoute(app, vmRoutes.list, async ({ auth, query }) => ({ data: await vms.list(scopeOf(auth), query) }));
  registerRoute(app, vmRoutes.listFacets, async ({ auth }) => ({ data: await vms.facets(scopeOf(auth)) }));
  registerRoute(app, vmRoutes.bulk, async ({ auth, body, request }) => {
    if (body.action === 'delete') await d.stepUp(auth);
    const result = await vms.bulk(ctxOf(auth, request), body);
    return { message: `${result.done} done, ${result.refused} refused`, data: result };
  });
  registerRoute(app, vmRoutes.details, async ({ auth, params }) => ({
    data: await vms.details(scopeOf(auth), params.id),
  }));
  registerRoute(app, vmRoutes.metrics, async ({ auth, params, query }) => ({
    data: await vms.metrics(scopeOf(auth), params.id, query.range),
  }));
  registerRoute(app, vmRoutes.dashboard, async ({ auth }) => ({ data: await vms.dashboard(scopeOf(auth)) }));
  registerRoute(app, vmRoutes.dashboardSummary, async ({ auth }) => ({
    data: await vms.dashboardSummary(scopeOf(auth), auth.resellerId),
  }));
  registerRoute(app, vmRoutes.monthToDate, async ({ auth, params }) => ({
    data: await vms.monthToDate(scopeOf(auth), auth.resellerId, params.id),
  }));
  registerRoute(app, vmRoutes.getPassword, async ({ auth, params, request }) => ({
    data: await vms.password(scopeOf(auth), params.id, request.id),
  }));
  registerRoute(app, vmRoutes.getAccessKey, async ({ auth, params, request }) => ({
    data: await vms.privateKey(scopeOf(auth), params.id, request.id),
  }));
  registerRoute(app, vmRoutes.getAccess, async ({ auth, params }) => ({
    data: await vms.access(scopeOf(auth), params.id),
  }));
  registerRoute(app, vmRoutes.getConsole, async ({ auth, params }) => {
    const vm = await vms.consoleTarget(scopeOf(auth), params.id);
    const consoles = await vms.consoleKinds(vm);
    const token = await d.consoleTokens.issue(params.id, auth.sessionId);
    return { data: { consoleUrl: `${d.apiBasePath}/virtualMachines/console/${params.id}?token=${token}`, consoles } };
  });

  registerRoute(app, vmRoutes.create, async ({ auth, body, request }) => ({
    message: 'Virtual machines are being created',
    data: await vms.create(ctxOf(auth, request), body),
  }));
  // Start, stop, force stop, reset, delete: one loop over the contract's action routes, answered with the lifecycle table's text.
  for (const action of Object.keys(vmActionRoutes) as VmOperationAction[]) {
    registerRoute(app, vmActionRoutes[action], async ({ auth, params, request, query }) => {
      if (action === 'delete') await d.stepUp(auth);
      const keepBackups = (query as { keepBackups?: string } | undefined)?.keepBackups === 'true';
      await vms.act(ctxOf(auth, request), params.id, action, { keepBackups });
      return { message: VM_ACTIONS[action].accepted, data: null };
    });
  }
  registerRoute(app, vmRoutes.changeConfiguration, async ({ auth, body, request }) => {
    await vms.upgrade(ctxOf(auth, request), body.id, body.configurationId);
    return { message: TEXT.upgradeWait, data: null };
  });
  registerRoute(app, vmRoutes.rebuild, async ({ auth, params, body, request }) => {
    await d.stepUp(auth);
    await vms.rebuild(ctxOf(auth, request), params.id, body);
    return { message: VM_ACTIONS.rebuild.accepted, data: null };
  });
  registerRoute(app, vmRoutes.edit, async ({ auth, params, body, request }) => {
    await vms.rename(ctxOf(auth, request), params.id, body.name);
    return { message: 'VM renamed', data: null };
  });

  // The console page the portal frames (console-page.ts), behind a single-use token.
  app.get(
    '/virtualMachines/console/:id',
    {
      schema: {
        hide: true,
        params: z.object({ id: z.coerce.number().int().positive() }),
        querystring: z.object({ token: z.string().max(100) }),
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: number };
      const { token } = request.query as { token: string };
      if (
        !request.auth ||
        request.auth.state !== 'authenticated' ||
        !(await d.consoleTokens.consume(token, id, request.auth.sessionId))
      ) {
        return reply.status(403).type('text/html').send(EXPIRED_CONSOLE_PAGE);
      }
      const { name, text } = await vms.consoleText(id);
      return reply.type('text/html').header('cache-control', 'no-store').send(consolePage(name, text));
    },
  );

  // Live status: a server-sent events stream of the VMs this user may see. The session is checked
  // again every VM_STREAM_SESSION_CHECK_MS: a stream ends soon after logout, a password reset or the user's
  // deletion, and follows a change of company-admin rights.
  app.get('/virtualMachines/events', { schema: { hide: true } }, async (request, reply) => {
    const auth = request.auth;
    const token = request.cookies[SESSION_COOKIE];
    if (!token) throw new UnauthorizedError();
    enforceUserAccess(auth); // the same rule as every contract route: 401 signed out, 403 under a forced reset
    // Nor while a sign-in policy holds the user to the set-up of a factor (docs/two-factor.md "Company policy").
    if (auth.mustSetUpTwoFactor) throw new ForbiddenError(API_MESSAGES.twoFactorSetUpRequired);
    let scope = scopeOf(auth);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(': connected\n\n');
    const unsubscribe = d.events.subscribe((event) => {
      if (event.companyId !== scope.companyId) return;
      void d.access
        .requireVm(scope, event, 'vm.view')
        .then(() =>
          res.write(
            `event: vm\ndata: ${JSON.stringify({ id: event.vmId, status: event.status, deleted: event.deleted })}\n\n`,
          ),
        )
        .catch(() => {});
    });
    const ping = setInterval(() => res.write(': ping\n\n'), 25_000);
    const recheck = setInterval(() => {
      void d.sessions
        .resolve(token)
        .then((current) => {
          if (stillUserAccess(current)) scope = scopeOf(current);
          else res.end();
        })
        .catch(() => {}); // a database blip: keep the stream, try again next time
    }, d.sessionRecheckMs);
    request.raw.on('close', () => {
      clearInterval(ping);
      clearInterval(recheck);
      unsubscribe();
    });
  });
}
