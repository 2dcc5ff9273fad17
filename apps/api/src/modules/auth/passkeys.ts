/**
 * Passkeys (WebAuthn) as a second factor (issue 26 item 1; docs/two-factor.md "Passkeys"). @simplewebauthn/server
 * makes the options and verifies the browser's answers; the rules are ours: the relying party is the host the
 * request came to (without port) and the origin the browser shows, a challenge is single use (taken by a
 * DELETE … RETURNING before its answer is checked) and lives 5 minutes, an assertion must raise the
 * credential's counter (taken by a conditional UPDATE), and a credential signs in its own user only.
 */
import { and, count, eq, lt, sql } from 'drizzle-orm';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { PASSKEY_MAX_PER_USER, PASSKEY_TEXT, WEBAUTHN_CHALLENGE_TTL_MS, type Passkey } from '@portal/contract/passkeys';
import type { Db } from '../../db/client.ts';
import { userPasskeys, userTotp, webauthnChallenges } from '../../db/schema.ts';
import { requiringPolicy } from '../../db/strong-factor.ts';
import { RESELLER_POLICY_TEXT } from '@portal/contract/company-policy';
import type { Audit } from '../../lib/audit.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash } from '../../lib/crypto.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import type { IdentityRepository } from './identity.repository.ts';

/** Who the browser talks to: the host the request came to and the origin it shows (docs/two-factor.md). */
export interface RelyingParty {
  /** The request's host name without port (WebAuthn's rp id). */
  rpID: string;
  /** scheme://host[:port] as the browser sees it (a base path is not part of an origin). */
  origin: string;
}

/** The relying party of a request: its host (X-Forwarded-Host only under TRUST_FORWARDED_HOST) and protocol. */
export function relyingPartyOf(request: { protocol: string; host: string; hostname: string }): RelyingParty {
  // URL drops a default port (:443 on https, :80 on http) as the browser's origin does.
  return { rpID: request.hostname, origin: new URL(`${request.protocol}://${request.host}`).origin };
}

export interface PasskeysDeps {
  db: Db;
  identity: IdentityRepository;
  clock: Clock;
  secret: string;
  audit?: Audit | undefined;
  /** A current code of the user's authenticator app, taken (removal accepts it as the password's alternative). */
  takeAuthenticatorCode?: (userId: number, code: string) => Promise<boolean>;
}

/** A challenge's use: a new passkey, the sign-in's second step, or a step-up of a signed-in session. */
type Purpose = 'register' | 'authenticate' | 'stepUp';
/** The purposes an assertion answers. */
export type AssertionPurpose = Exclude<Purpose, 'register'>;

export function createPasskeys(deps: PasskeysDeps) {
  const { db, clock } = deps;

  async function issueChallenge(sessionId: string, userId: number, purpose: Purpose, challenge: string) {
    const expiresAt = new Date(clock.now().getTime() + WEBAUTHN_CHALLENGE_TTL_MS);
    await db
      .insert(webauthnChallenges)
      .values({ sessionId, userId, purpose, challenge, expiresAt })
      .onConflictDoUpdate({
        target: [webauthnChallenges.sessionId, webauthnChallenges.purpose],
        set: { challenge, expiresAt, userId },
      });
  }

  /** The session's challenge of that purpose, taken (gone from then on whatever the answer); null when none or expired. */
  async function takeChallenge(auth: AuthContext, purpose: Purpose): Promise<string | null> {
    const [row] = await db
      .delete(webauthnChallenges)
      .where(
        and(
          eq(webauthnChallenges.sessionId, auth.sessionId),
          eq(webauthnChallenges.purpose, purpose),
          eq(webauthnChallenges.userId, auth.userId),
        ),
      )
      .returning();
    if (!row || row.expiresAt <= clock.now()) return null;
    return row.challenge;
  }

  async function rows(userId: number) {
    return db.select().from(userPasskeys).where(eq(userPasskeys.userId, userId)).orderBy(userPasskeys.id);
  }

  const toPasskey = (r: typeof userPasskeys.$inferSelect): Passkey => ({
    id: r.id,
    name: r.name,
    createdAt: iso(r.createdAt),
    lastUsedAt: r.lastUsedAt ? iso(r.lastUsedAt) : null,
  });

  async function record(
    auth: { userId: number; companyId: number },
    action: string,
    details?: Record<string, unknown>,
  ): Promise<void> {
    await deps.audit?.record({
      companyId: auth.companyId,
      actorUserId: auth.userId,
      action,
      targetType: 'user',
      targetId: auth.userId,
      ...(details ? { after: details } : {}),
    });
  }

  async function own(auth: AuthContext, id: number) {
    const [r] = await db
      .select()
      .from(userPasskeys)
      .where(and(eq(userPasskeys.id, id), eq(userPasskeys.userId, auth.userId)));
    if (!r) throw new NotFoundError();
    return r;
  }

  return {
    /** Whether the user has a passkey (sign-in offers it first). */
    async has(userId: number): Promise<boolean> {
      const [r] = await db
        .select({ id: userPasskeys.id })
        .from(userPasskeys)
        .where(eq(userPasskeys.userId, userId))
        .limit(1);
      return Boolean(r);
    },

    async list(auth: AuthContext): Promise<Passkey[]> {
      return (await rows(auth.userId)).map(toPasskey);
    },

    async registrationOptions(auth: AuthContext, rp: RelyingParty) {
      const existing = await rows(auth.userId);
      if (existing.length >= PASSKEY_MAX_PER_USER) throw new ConflictError(PASSKEY_TEXT.tooMany);
      const user = await deps.identity.byId(auth.userId);
      const options = await generateRegistrationOptions({
        rpName: user?.resellerName ?? 'Portal',
        rpID: rp.rpID,
        userName: auth.email,
        // A stable handle that says nothing about the user: their passkeys on one authenticator replace each other.
        userID: Buffer.from(keyedHash(deps.secret, `webauthn-user:${auth.userId}`), 'hex').subarray(0, 32),
        timeout: WEBAUTHN_CHALLENGE_TTL_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      });
      await issueChallenge(auth.sessionId, auth.userId, 'register', options.challenge);
      // A plain object (the contract passes WebAuthn's JSON options through as they are).
      return { ...options };
    },

    async add(auth: AuthContext, rp: RelyingParty, name: string, response: RegistrationResponseJSON): Promise<Passkey> {
      const challenge = await takeChallenge(auth, 'register');
      if (!challenge) throw new BadRequestError(PASSKEY_TEXT.noChallenge);
      let info;
      try {
        const verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpID,
          requireUserVerification: false,
        });
        info = verified.verified ? verified.registrationInfo : null;
      } catch {
        info = null;
      }
      if (!info) throw new BadRequestError(PASSKEY_TEXT.notVerified);
      const [{ n } = { n: 0 }] = await db
        .select({ n: count() })
        .from(userPasskeys)
        .where(eq(userPasskeys.userId, auth.userId));
      if (n >= PASSKEY_MAX_PER_USER) throw new ConflictError(PASSKEY_TEXT.tooMany);
      const [row] = await db
        .insert(userPasskeys)
        .values({
          userId: auth.userId,
          name,
          credentialId: info.credential.id,
          publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
          counter: info.credential.counter,
          transports: info.credential.transports ?? response.response.transports ?? [],
          rpId: rp.rpID,
          createdAt: clock.now(),
        })
        .onConflictDoNothing({ target: userPasskeys.credentialId })
        .returning();
      if (!row) throw new ConflictError(PASSKEY_TEXT.alreadyRegistered);
      await record(auth, 'user.passkey.add', { passkeyId: row.id, name });
      return toPasskey(row);
    },

    async rename(auth: AuthContext, id: number, name: string): Promise<Passkey> {
      await own(auth, id);
      const [row] = await db
        .update(userPasskeys)
        .set({ name })
        .where(and(eq(userPasskeys.id, id), eq(userPasskeys.userId, auth.userId)))
        .returning();
      if (!row) throw new NotFoundError();
      return toPasskey(row);
    },

    /** Removes one of the user's passkeys: the password or a current authenticator code proves it is them. */
    async remove(
      auth: AuthContext,
      id: number,
      proof: { code?: string | undefined; password?: string | undefined },
    ): Promise<void> {
      const passkey = await own(auth, id);
      // A policy (the company's, or the reseller's for its staff) keeps the last strong factor.
      const policy = await requiringPolicy(db, auth.userId);
      if (policy) {
        const [others] = await db
          .select({ n: count() })
          .from(userPasskeys)
          .where(and(eq(userPasskeys.userId, auth.userId), sql`${userPasskeys.id} <> ${id}`));
        const [app] = await db
          .select({ userId: userTotp.userId })
          .from(userTotp)
          .where(and(eq(userTotp.userId, auth.userId), sql`${userTotp.enabledAt} is not null`));
        if (!app && (others?.n ?? 0) === 0)
          throw new ForbiddenError(
            policy === 'staff' ? RESELLER_POLICY_TEXT.lastStrongFactor : PASSKEY_TEXT.lastStrongFactor,
          );
      }
      let ok = false;
      if (proof.code && deps.takeAuthenticatorCode)
        ok = await deps.takeAuthenticatorCode(auth.userId, proof.code.trim());
      if (!ok && proof.password) {
        const user = await deps.identity.byId(auth.userId);
        ok = Boolean(user?.passwordHash && (await verifyPassword(user.passwordHash, proof.password)));
      }
      // Only a password typed (the dialog of a user without an app): say just that.
      if (!ok) throw new BadRequestError(proof.code ? PASSKEY_TEXT.wrongPasswordOrCode : PASSKEY_TEXT.wrongPassword);
      await db.delete(userPasskeys).where(and(eq(userPasskeys.id, id), eq(userPasskeys.userId, auth.userId)));
      await record(auth, 'user.passkey.remove', { passkeyId: id, name: passkey.name });
    },

    /**
     * Request options over the user's passkeys made for this host: the sign-in's ('authenticate') or a signed-in
     * session's step-up ('stepUp'); the challenge is the session's for that purpose.
     */
    async signInOptions(auth: AuthContext, rp: RelyingParty, purpose: AssertionPurpose = 'authenticate') {
      const mine = (await rows(auth.userId)).filter((p) => p.rpId === rp.rpID);
      if (mine.length === 0) throw new BadRequestError(PASSKEY_TEXT.noPasskeys);
      const options = await generateAuthenticationOptions({
        rpID: rp.rpID,
        allowCredentials: mine.map((p) => ({ id: p.credentialId, transports: p.transports })),
        userVerification: 'preferred',
        timeout: WEBAUTHN_CHALLENGE_TTL_MS,
      });
      await issueChallenge(auth.sessionId, auth.userId, purpose, options.challenge);
      // A plain object (the contract passes WebAuthn's JSON options through as they are).
      return { ...options };
    },

    /**
     * The sign-in's passkey step (or a step-up's: `purpose`): the session's challenge of that purpose (taken), one
     * of the user's own credentials, a valid signature and a counter above the stored one (taken atomically). True
     * when all hold.
     */
    async verifySignIn(
      auth: AuthContext,
      rp: RelyingParty,
      response: AuthenticationResponseJSON,
      purpose: AssertionPurpose = 'authenticate',
    ): Promise<boolean> {
      const challenge = await takeChallenge(auth, purpose);
      if (!challenge) return false;
      // Another user's credential is not found: it signs in its own user only.
      const [passkey] = await db
        .select()
        .from(userPasskeys)
        .where(
          and(
            eq(userPasskeys.credentialId, response.id),
            eq(userPasskeys.userId, auth.userId),
            eq(userPasskeys.rpId, rp.rpID),
          ),
        );
      if (!passkey) return false;
      let newCounter: number;
      try {
        const verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: rp.origin,
          expectedRPID: rp.rpID,
          credential: {
            id: passkey.credentialId,
            publicKey: isoBase64URL.toBuffer(passkey.publicKey),
            counter: passkey.counter,
            transports: passkey.transports as never,
          },
          requireUserVerification: false,
        });
        if (!verified.verified) return false;
        newCounter = verified.authenticationInfo.newCounter;
      } catch {
        // Bad signature, wrong origin or rp, or a counter that did not go up (a cloned authenticator).
        return false;
      }
      // The counter moves up once: two answers racing with the same counter cannot both sign in.
      const taken = await db
        .update(userPasskeys)
        .set({ counter: newCounter, lastUsedAt: clock.now() })
        .where(
          and(
            eq(userPasskeys.id, passkey.id),
            // An authenticator without a counter (always 0) is taken as it is: the challenge is single use anyway.
            newCounter === 0 ? eq(userPasskeys.counter, 0) : lt(userPasskeys.counter, newCounter),
          ),
        )
        .returning({ id: userPasskeys.id });
      if (taken.length !== 1) return false;
      await record(auth, 'user.passkey.use', { passkeyId: passkey.id, name: passkey.name });
      return true;
    },
  };
}
export type Passkeys = ReturnType<typeof createPasskeys>;
