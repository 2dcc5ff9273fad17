/**
 * The signed-in user's passkeys (docs/two-factor.md "Passkeys") and the sign-in's passkey request options. The
 * sign-in's answer (POST /auth/mfa/passkey) sets the session cookie, so it lives with the other sign-in routes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { PASSKEY_TEXT, passkeyRoutes as r } from '@portal/contract/passkeys';
import { TooManyRequestsError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import { relyingPartyOf, type Passkeys } from './passkeys.ts';

export function registerPasskeyRoutes(
  app: FastifyInstance,
  opts: { passkeys: Passkeys; rateLimitPerMinute: number },
): void {
  const { passkeys } = opts;
  // Like the authenticator's set-up: per address, and removal (a password check) also per account.
  const limited = {
    rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `passkey:${req.ip}` },
  };
  const perUser = app.createRateLimit({
    max: opts.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (req) => `passkey-user:${req.auth?.userId ?? req.ip}`,
  });
  async function limitPerUser(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const result = await perUser(request);
    if (!result.isAllowed && result.isExceeded) {
      reply.header('retry-after', result.ttlInSeconds);
      throw new TooManyRequestsError();
    }
  }

  registerRoute(app, r.list, async ({ auth }) => ({ data: await passkeys.list(auth) }));
  registerRoute(
    app,
    r.registrationOptions,
    async ({ auth, request }) => ({ data: await passkeys.registrationOptions(auth, relyingPartyOf(request)) }),
    limited,
  );
  registerRoute(
    app,
    r.add,
    async ({ auth, body, request }) => ({
      message: PASSKEY_TEXT.addedMessage,
      data: await passkeys.add(
        auth,
        relyingPartyOf(request),
        body.name,
        // Shape checked by the contract; the library checks the rest (and refuses what it cannot parse).
        body.response as RegistrationResponseJSON,
      ),
    }),
    limited,
  );
  registerRoute(app, r.rename, async ({ auth, params, body }) => ({
    message: PASSKEY_TEXT.renamedMessage,
    data: await passkeys.rename(auth, params.id, body.name),
  }));
  registerRoute(
    app,
    r.remove,
    async ({ auth, params, body, request, reply }) => {
      await limitPerUser(request, reply);
      await passkeys.remove(auth, params.id, body);
      return { message: PASSKEY_TEXT.removedMessage, data: null };
    },
    limited,
  );
  registerRoute(
    app,
    r.signInOptions,
    async ({ auth, request }) => ({ data: await passkeys.signInOptions(auth, relyingPartyOf(request)) }),
    { rateLimit: { max: opts.rateLimitPerMinute, keyGenerator: (req: FastifyRequest) => `passkey-mfa:${req.ip}` } },
  );
}
