/** Sign-in, sessions and passwords: the auth service and its routes, and the sweep of expired sessions. */
import type { FastifyInstance } from 'fastify';
import type { ModuleDeps, Worker } from '../module.ts';
import { createAccount, registerAccountRoutes } from './account.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import {
  createCompanyPolicy,
  createResellerPolicy,
  registerCompanyPolicyRoutes,
  registerResellerPolicyRoutes,
} from './company-policy.ts';
import { registerStepUpRoutes } from './step-up.ts';
import { createAuthService } from './auth.service.ts';
import { createTwoFactor } from './two-factor.ts';
import { registerTwoFactorRoutes } from './two-factor.routes.ts';
import { createSingleSignOn } from './single-sign-on.ts';
import { registerSingleSignOnRoutes } from './single-sign-on.routes.ts';
import { SSO_CALLBACK_PATH } from '@portal/contract/single-sign-on';
import { createSecretBox } from '../../lib/ssh-keys.ts';
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
  });
  const sso = createSingleSignOn({
    db: deps.db,
    identity: deps.identity,
    sessions: deps.sessions,
    tokens: deps.tokens,
    clock: deps.clock,
    box: createSecretBox(deps.secret),
    egress: deps.egress,
    audit: deps.audit,
    redirectUri: `${deps.portalUrl.replace(/\/+$/, '')}${SSO_CALLBACK_PATH}`,
    allowHttp: deps.config.OIDC_ALLOW_HTTP,
    log: deps.log,
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
    passwordsDisabled: sso.passwordsDisabled,
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
  registerResellerPolicyRoutes(api, createResellerPolicy({ db: deps.db, audit: deps.audit }));
  registerStepUpRoutes(api, {
    db: deps.db,
    clock: deps.clock,
    identity: deps.identity,
    audit: deps.audit,
    takeAuthenticatorCode: twoFactor.takeCode,
    passkeys,
    rateLimitPerMinute: deps.config.AUTH_RATE_LIMIT_PER_MINUTE,
  });
  registerAccountRoutes(
    api,
    createAccount({ db: deps.db, clock: deps.clock, sessions: deps.sessions, audit: deps.audit }),
  );
  registerSingleSignOnRoutes(api, {
    sso,
    cookieSecure: deps.cookieSecure,
    rateLimitPerMinute: deps.config.AUTH_RATE_LIMIT_PER_MINUTE,
  });

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
