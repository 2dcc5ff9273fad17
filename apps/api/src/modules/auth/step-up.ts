/**
 * POST /auth/stepUp (docs/two-factor.md "Step-up"): the signed-in user proves a factor again — the password, a
 * current code of their authenticator app, or a passkey's answer to POST /auth/stepUp/passkey/options — and the
 * session may take the destructive actions for 5 minutes. Limited per address and per account like the Security
 * page's code checks; wrong answers are 400.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import { PASSKEY_TEXT } from '@portal/contract/passkeys';
import { STEP_UP_TEXT, stepUpRoutes } from '@portal/contract/step-up';
import type { Audit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../db/client.ts';
import { markSteppedUp } from '../../db/step-up.ts';
import { BadRequestError, TooManyRequestsError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import type { ModuleDeps } from '../module.ts';
import { relyingPartyOf, type Passkeys } from './passkeys.ts';

export function registerStepUpRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    clock: Clock;
    identity: ModuleDeps['identity'];
    audit?: Audit | undefined;
    /** A current code of the user's app, taken once (two-factor.ts `takeCode`). */
    takeAuthenticatorCode: (userId: number, code: string) => Promise<boolean>;
    /** Passkeys: the step-up's request options and its answer (challenge of purpose 'stepUp', single use). */
    passkeys: Pick<Passkeys, 'signInOptions' | 'verifySignIn'>;
    rateLimitPerMinute: number;
  },
): void {
  const perUser = app.createRateLimit({
    max: deps.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `step-up-user:${req.auth?.userId ?? req.ip}`,
  });
  async function limitPerUser(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await perUser(request);
    if (!result.isAllowed && result.isExceeded) {
      reply.header('retry-after', result.ttlInSeconds);
      throw new TooManyRequestsError();
    }
  }

  registerRoute(
    app,
    stepUpRoutes.stepUp,
    async ({ auth, body, request, reply }) => {
      await limitPerUser(request, reply);
      if (body.passkey) {
        // A passkey's answer is judged alone: its challenge is the session's, taken whatever the outcome.
        const proved = await deps.passkeys.verifySignIn(
          auth,
          relyingPartyOf(request),
          // Shape checked by the contract; the library checks the rest (and refuses what it cannot parse).
          body.passkey as AuthenticationResponseJSON,
          'stepUp',
        );
        if (!proved) throw new BadRequestError(PASSKEY_TEXT.notVerified);
        return { message: STEP_UP_TEXT.done, data: { steppedUpUntil: await steppedUp(auth, request.id) } };
      }
      let ok = false;
      const code = body.code?.replace(/\s+/g, '');
      if (code && /^\d{6}$/.test(code)) ok = await deps.takeAuthenticatorCode(auth.userId, code);
      if (!ok && body.password) {
        const user = await deps.identity.byId(auth.userId);
        ok = Boolean(user?.passwordHash && (await verifyPassword(user.passwordHash, body.password)));
      }
      if (!ok) throw new BadRequestError(STEP_UP_TEXT.wrong);
      return { message: STEP_UP_TEXT.done, data: { steppedUpUntil: await steppedUp(auth, request.id) } };
    },
    {
      rateLimit: { max: deps.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `step-up:${req.ip}` },
    },
  );

  /** The session proved a factor: marked on its row (every instance reads it there) and audited. */
  async function steppedUp(auth: { sessionId: string; userId: number; companyId: number }, requestId: string) {
    const until = await markSteppedUp(deps.db, deps.clock, auth.sessionId);
    await deps.audit?.record({
      companyId: auth.companyId,
      actorUserId: auth.userId,
      action: 'user.stepUp',
      targetType: 'user',
      targetId: auth.userId,
      requestId,
    });
    return until.toISOString();
  }

  // The passkey's request options: a challenge of purpose 'stepUp' bound to this session (5 minutes, once).
  registerRoute(
    app,
    stepUpRoutes.passkeyOptions,
    async ({ auth, request }) => ({
      data: await deps.passkeys.signInOptions(auth, relyingPartyOf(request), 'stepUp'),
    }),
    // Per address, like the sign-in's options; the answer (POST /auth/stepUp) is also limited per account.
    {
      rateLimit: { max: deps.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `step-up-options:${req.ip}` },
    },
  );
}
