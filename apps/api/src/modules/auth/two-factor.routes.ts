/** The signed-in user's authenticator app (docs/two-factor.md) and the sign-in's "Email me a code instead". */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TWO_FACTOR_TEXT, twoFactorRoutes as r } from '@portal/contract/two-factor';
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

  registerRoute(app, r.status, async ({ auth }) => ({ data: await twoFactor.status(auth) }));
  registerRoute(app, r.start, async ({ auth }) => ({ data: await twoFactor.start(auth) }), limited);
  registerRoute(
    app,
    r.confirm,
    async ({ auth, body }) => ({
      message: TWO_FACTOR_TEXT.enabledMessage,
      data: { recoveryCodes: await twoFactor.confirm(auth, body.code) },
    }),
    limited,
  );
  registerRoute(
    app,
    r.regenerateRecoveryCodes,
    async ({ auth, body }) => ({
      message: TWO_FACTOR_TEXT.regeneratedMessage,
      data: { recoveryCodes: await twoFactor.regenerateRecoveryCodes(auth, body.code) },
    }),
    limited,
  );
  registerRoute(
    app,
    r.remove,
    async ({ auth, body }) => {
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
