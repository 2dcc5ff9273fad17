/** Single sign-on routes (docs/single-sign-on.md): the company administrators' settings, and the sign-in's two steps. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SSO_FLOW_TTL_MS, SSO_TEXT, ssoRoutes as r } from '@portal/contract/single-sign-on';
import { registerRoute } from '../../lib/http.ts';
import { SESSION_COOKIE } from '../../plugins/session.ts';
import type { SingleSignOn } from './single-sign-on.ts';

/** The started sign-in's state, nonce and PKCE verifier, sealed; read back by the callback only. */
export const SSO_FLOW_COOKIE = 'oidc_flow';

export function registerSingleSignOnRoutes(
  app: FastifyInstance,
  opts: { sso: SingleSignOn; cookieSecure: boolean; rateLimitPerMinute: number },
): void {
  const { sso } = opts;
  const perIp = (name: string) => ({
    rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `${name}:${req.ip}` },
  });
  const clearFlow = (reply: { clearCookie(name: string, o: { path: string }): unknown }) =>
    reply.clearCookie(SSO_FLOW_COOKIE, { path: '/' });

  registerRoute(app, r.get, async ({ auth }) => ({ data: await sso.settings(auth) }));
  registerRoute(
    app,
    r.save,
    async ({ auth, body, request }) => ({
      message: SSO_TEXT.savedMessage,
      data: await sso.save(auth, body, request.id),
    }),
    perIp('sso-save'),
  );
  registerRoute(app, r.disable, async ({ auth, request }) => ({
    message: SSO_TEXT.disabledMessage,
    data: await sso.disable(auth, request.id),
  }));
  registerRoute(
    app,
    r.test,
    async ({ auth, body }) => {
      const data = await sso.test(auth, body.issuer);
      return { message: SSO_TEXT.testOk(data.issuer), data };
    },
    perIp('sso-test'),
  );

  registerRoute(
    app,
    r.start,
    async ({ body, reply }) => {
      const { url, cookie } = await sso.start(body.email, body.rememberMe ?? false);
      reply.setCookie(SSO_FLOW_COOKIE, cookie, {
        path: '/',
        httpOnly: true,
        // Sent back by the callback page's own request (same site); lax also survives the provider's redirect.
        sameSite: 'lax',
        secure: opts.cookieSecure,
        maxAge: Math.floor(SSO_FLOW_TTL_MS / 1000),
      });
      return { data: { url } };
    },
    perIp('sso-start'),
  );

  registerRoute(
    app,
    r.callback,
    async ({ body, request, reply }) => {
      // The flow's cookie is good for one try, whatever its outcome.
      const cookie = request.cookies[SSO_FLOW_COOKIE];
      clearFlow(reply);
      const result = await sso.finish({
        query: body.query,
        cookie,
        client: {
          ip: request.ip,
          ...(request.headers['user-agent'] ? { userAgent: request.headers['user-agent'] } : {}),
        },
        requestId: request.id,
      });
      if (request.auth) await sso.endSession(request.auth.sessionId);
      reply.setCookie(SESSION_COOKIE, result.session.token, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: opts.cookieSecure,
        ...(result.rememberMe ? { expires: result.session.expiresAt } : {}),
      });
      return { data: { user: result.user } };
    },
    perIp('sso-callback'),
  );
}
