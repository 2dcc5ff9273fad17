/** Sign-in, sessions and passwords: the auth service and its routes, and the sweep of expired sessions. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import { createCompanyPolicy, registerCompanyPolicyRoutes } from './company-policy.ts';
import { createAuthService } from './auth.service.ts';
import { createTwoFactor } from './two-factor.ts';
import { registerTwoFactorRoutes } from './two-factor.routes.ts';
import { createPasskeys } from './passkeys.ts';
import { registerPasskeyRoutes } from './passkeys.routes.ts';

const SESSION_SWEEP_MS = 10 * 60_000;

export async function registerAuthModule(api: FastifyInstance, deps: ModuleDeps): Promise<Worker[]> {
  const twoFactor = createTwoFactor({
    db: deps.db,
    identity: deps.identity,
    clock: deps.clock,
    random: deps.random,
    secret: deps.secret,
    audit: deps.audit,
  });
  const passkeys = createPasskeys({
    db: deps.db,
    identity: deps.identity,
    clock: deps.clock,
    secret: deps.secret,
    audit: deps.audit,
    takeAuthenticatorCode: twoFactor.takeCode,
    companyRequiresStrongFactor: async (companyId) =>
      (await createCompanyPolicy({ db: deps.db }).get(companyId)).requireAuthenticator,
  });
  const auth = createAuthService({
    db: deps.db,
    identity: deps.identity,
    sessions: deps.sessions,
    tokens: deps.tokens,
    mailer: deps.mailer,
    clock: deps.clock,
    random: deps.random,
    secret: deps.secret,
    portalUrl: deps.portalUrl,
    defaultFrom: deps.defaultFrom,
    profiles: deps.sessionCache,
    hosts: deps.resellerHosts,
    audit: deps.audit,
    twoFactor,
    passkeys,
  });
  registerAuthRoutes(api, {
    auth,
    cookieSecure: deps.cookieSecure,
    rateLimitPerMinute: deps.config.AUTH_RATE_LIMIT_PER_MINUTE,
  });
  registerTwoFactorRoutes(api, { auth, twoFactor, rateLimitPerMinute: deps.config.AUTH_RATE_LIMIT_PER_MINUTE });
  registerPasskeyRoutes(api, { passkeys, rateLimitPerMinute: deps.config.AUTH_RATE_LIMIT_PER_MINUTE });
  registerCompanyPolicyRoutes(api, createCompanyPolicy({ db: deps.db, audit: deps.audit }));

  let sweeper: NodeJS.Timeout | null = null;
  return [
    {
      start() {
        sweeper = setInterval(
          () =>
            void deps.sessions.purgeExpired().catch((err: unknown) => deps.log.error({ err }, 'session sweep failed')),
          SESSION_SWEEP_MS,
        );
        sweeper.unref();
      },
      async stop() {
        if (sweeper) clearInterval(sweeper);
        sweeper = null;
        // Work that runs after its answer was sent (a forgot-password lookup and mail) finishes first.
        await auth.settle();
      },
    },
  ];
}
