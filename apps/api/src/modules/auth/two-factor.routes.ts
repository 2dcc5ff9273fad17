/** The signed-in user's authenticator app (docs/two-factor.md) and the sign-in's "Email me a code instead". */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TWO_FACTOR_TEXT, twoFactorRoutes as r } from '@portal/contract/two-factor';
import { TooManyRequestsError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import type { AuthService } from './auth.service.ts';
import type { TwoFactor } from './two-factor.ts';

export function registerTwoFactorRoutes(
  app: FastifyInstance,
  opts: { auth: AuthService; twoFactor: TwoFactor; rateLimitPerMinute: number },
): void {
  const { twoFactor } = opts;
  // Every call that checks a code or mails one is limited like the sign-in's code step.
  const limited = {
    rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `2fa:${req.ip}` },
  };
  // And per account, whatever the address: a stolen session cannot guess codes (to remove the app, say) from
  // many addresses. Its key needs the session, so it is checked in the handler.
  const perUser = app.createRateLimit({
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `2fa-user:${req.auth?.userId ?? req.ip}`,
  });
  async function limitPerUser(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await perUser(request);
    if (!result.isAllowed && result.isExceeded) {
      reply.header('retry-after', result.ttlInSeconds);
      throw new TooManyRequestsError();
    }
  }

  registerRoute(app, r.status, async ({ auth }) => ({ data: await twoFactor.status(auth) }));
  registerRoute(app, r.start, async ({ auth }) => ({ data: await twoFactor.start(auth) }), limited);
  registerRoute(
    app,
    r.confirm,
    async ({ auth, body, request, reply }) => {
      await limitPerUser(request, reply);
      return {
        message: TWO_FACTOR_TEXT.enabledMessage,
        data: { recoveryCodes: await twoFactor.confirm(auth, body.code) },
      };
    },
    limited,
  );
  registerRoute(
    app,
    r.regenerateRecoveryCodes,
    async ({ auth, body, request, reply }) => {
      await limitPerUser(request, reply);
      return {
        message: TWO_FACTOR_TEXT.regeneratedMessage,
        data: { recoveryCodes: await twoFactor.regenerateRecoveryCodes(auth, body.code) },
      };
    },
    limited,
  );
  registerRoute(
    app,
    r.remove,
    async ({ auth, body, request, reply }) => {
      await limitPerUser(request, reply);
      await twoFactor.remove(auth, body);
      return { message: TWO_FACTOR_TEXT.removedMessage, data: null };
    },
    limited,
  );
  registerRoute(
    app,
    r.emailCode,
    async ({ auth }) => {
      await opts.auth.emailCodeInstead(auth);
      return { message: TWO_FACTOR_TEXT.emailSent, data: null };
    },
    { rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `mfa-email:${req.ip}` } },
  );
}
