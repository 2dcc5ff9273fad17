/** Sign-in, session and password routes. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authRoutes, passwordRoutes } from '@portal/contract/auth';
import { API_MESSAGES } from '@portal/contract/messages';
import { passkeyRoutes } from '@portal/contract/passkeys';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { TooManyRequestsError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import { SESSION_COOKIE } from '../../plugins/session.ts';
import type { AuthService, ClientInfo } from './auth.service.ts';
import type { NewSession } from './session-store.ts';
import { relyingPartyOf } from './passkeys.ts';

export interface AuthRoutesOptions {
  auth: AuthService;
  cookieSecure: boolean;
  /** Sign-in, code and forgot-password attempts per minute per client; sign-in also per email. */
  rateLimitPerMinute: number;
}

export function registerAuthRoutes(app: FastifyInstance, opts: AuthRoutesOptions): void {
  const { auth } = opts;
  const client = (req: FastifyRequest): ClientInfo => ({ ip: req.ip, userAgent: req.headers['user-agent'] });

  function setSessionCookie(reply: FastifyReply, session: NewSession, persistent: boolean): void {
    reply.setCookie(SESSION_COOKIE, session.token, {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: opts.cookieSecure,
      // Without remember-me the cookie dies with the browser; the server still expires it.
      ...(persistent ? { expires: session.expiresAt } : {}),
    });
  }
  const clearSessionCookie = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, { path: '/' });
  const limit = (key: (req: FastifyRequest) => string) => ({
    rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: key },
  });
  const byIp = (req: FastifyRequest) => `ip:${req.ip}`;

  // Sign-in is limited twice. Per client address, at onRequest (before anything is parsed). And per
  // email, whatever the address, so a password guesser spread over many addresses still meets a limit:
  // that key needs the parsed and validated body, so it is checked in the handler (the plugin's own
  // onRequest hook runs before the body exists).
  const loginPerEmail = app.createRateLimit({
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `login-email:${(req.body as { email: string }).email.toLowerCase()}`,
  });
  async function limitLoginPerEmail(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await loginPerEmail(request);
    if (!result.isAllowed && result.isExceeded) {
      reply.header('retry-after', result.ttlInSeconds);
      throw new TooManyRequestsError();
    }
  }

  registerRoute(
    app,
    authRoutes.login,
    async ({ body, request, reply }) => {
      await limitLoginPerEmail(request, reply);
      const { session, user } = await auth.login({
        email: body.email,
        password: body.password,
        rememberMe: body.rememberMe ?? false,
        ...(request.auth ? { previousSessionId: request.auth.sessionId } : {}),
        client: client(request),
        host: request.host,
      });
      // The code-pending cookie is short-lived either way; remember-me applies once the code is accepted.
      setSessionCookie(reply, session, false);
      return { message: API_MESSAGES.mfaSent, data: { user } };
    },
    limit((req) => `login:${req.ip}`),
  );

  registerRoute(
    app,
    authRoutes.mfa,
    async ({ body, auth: session, request, reply }) => {
      try {
        const result = await auth.verifyMfa(session, body.code, client(request));
        setSessionCookie(reply, result.session, session.rememberMe);
        return { data: { user: result.user } };
      } catch (err) {
        // A dead session (expired or exhausted) must not leave its cookie behind.
        if ((err as { statusCode?: number }).statusCode === 401) clearSessionCookie(reply);
        throw err;
      }
    },
    limit(byIp),
  );

  // The passkey's answer instead of a code (docs/two-factor.md "Passkeys"): the same limits and cookie.
  registerRoute(
    app,
    passkeyRoutes.signIn,
    async ({ body, auth: session, request, reply }) => {
      try {
        const result = await auth.verifyPasskey(
          session,
          relyingPartyOf(request),
          body.response as AuthenticationResponseJSON,
          client(request),
        );
        setSessionCookie(reply, result.session, session.rememberMe);
        return { data: { user: result.user } };
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 401) clearSessionCookie(reply);
        throw err;
      }
    },
    limit(byIp),
  );

  registerRoute(app, authRoutes.check, async ({ auth: session }) => ({
    data:
      session.state === 'authenticated'
        ? {
            authed: true as const,
            user: await auth.currentUser(session),
            // Read from the session's resolve (not cached apart from it): the portal's hold on /security.
            ...(session.mustSetUpTwoFactor ? { mustSetUpTwoFactor: true as const } : {}),
          }
        : { authed: false as const, user: await auth.pendingUser(session) },
  }));

  registerRoute(app, authRoutes.logout, async ({ auth: session, reply }) => {
    await auth.logout(session);
    clearSessionCookie(reply);
    return { message: API_MESSAGES.loggedOut, data: null };
  });

  registerRoute(app, authRoutes.refreshAuth, async ({ auth: session }) => ({
    data: { user: await auth.refresh(session) },
  }));

  registerRoute(app, authRoutes.shouldResetPassword, async ({ auth: session }) => ({
    data: await auth.shouldResetPassword(session),
  }));

  registerRoute(app, passwordRoutes.me, async ({ auth: session }) => ({ data: await auth.currentUser(session) }));

  registerRoute(
    app,
    passwordRoutes.forgotPassword,
    async ({ body, request }) => {
      auth.forgotPassword(body.email, (err) => request.log.error({ err }, 'forgot-password mail failed'), request.host);
      return { message: API_MESSAGES.forgotPasswordAccepted, data: null };
    },
    limit(byIp),
  );

  registerRoute(
    app,
    passwordRoutes.resetPasswordFromEmail,
    async ({ params, body, request }) => {
      const keep = request.auth?.userId === params.token ? request.auth.sessionId : undefined;
      await auth.resetPassword({
        userId: params.token,
        resetKey: body.resetKey,
        password: body.password,
        ...(keep ? { keepSessionId: keep } : {}),
      });
      return { message: API_MESSAGES.passwordUpdated, data: null };
    },
    limit(byIp),
  );

  registerRoute(
    app,
    passwordRoutes.confirmEmail,
    async ({ params, body }) => {
      await auth.confirmEmail({ userId: params.token, ...body });
      return { message: API_MESSAGES.emailConfirmed, data: null };
    },
    limit(byIp),
  );

  registerRoute(
    app,
    passwordRoutes.updatePassword,
    async ({ auth: session, body }) => {
      await auth.updatePassword(session, body.currentPassword, body.password);
      return { message: API_MESSAGES.passwordUpdated, data: null };
    },
    limit(byIp),
  );
}
