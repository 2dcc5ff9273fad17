/** Sign-in with password + emailed code, password resets, invitation confirmation. */
import { and, eq, sql } from 'drizzle-orm';
import type { AuthUser } from '@portal/contract/auth';
import { MFA_CODE_LENGTH, MFA_CODE_TTL_MS, MFA_MAX_ATTEMPTS, RESET_TOKEN_TTL_MS } from '@portal/contract/constants';
import { API_MESSAGES } from '@portal/contract/messages';
import type { Db } from '../../db/client.ts';
import { mfaChallenges, users } from '../../db/schema.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash, safeEqual, type Random } from '../../lib/crypto.ts';
import { BadRequestError, UnauthorizedError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../lib/passwords.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { mfaCodeMail, resetPasswordMail } from '../../mail/templates.ts';
import type { IdentityRepository, UserWithBrand } from './identity.repository.ts';
import type { OneTimeTokens } from './one-time-tokens.ts';
import type { NewSession, SessionStore } from './session-store.ts';

export interface AuthServiceDeps {
  db: Db;
  identity: IdentityRepository;
  sessions: SessionStore;
  tokens: OneTimeTokens;
  mailer: Mailer;
  clock: Clock;
  random: Random;
  secret: string;
  /** Portal root URL for mailed links, e.g. https://portal.example.com/ */
  portalUrl: string;
  /** Fallback sender when the reseller has no address. */
  defaultFrom: string;
}

export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

export function senderOf(user: Pick<UserWithBrand, 'resellerEmail' | 'resellerName'>, fallback: string): string {
  const address = user.resellerEmail ?? fallback;
  return user.resellerName ? `"${user.resellerName.replace(/"/g, '')}" <${address}>` : address;
}

export function toAuthUser(u: UserWithBrand, resetKey: string | null = null): AuthUser {
  return {
    id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    createdAt: iso(u.createdAt),
    forcePasswordReset: u.forcePasswordReset,
    resetKey,
    resellerName: u.resellerName,
    resellerEmail: u.resellerEmail,
    logoUrl: u.logoUrl,
    tabLogoUrl: u.tabLogoUrl,
    companyName: u.companyName,
    isCompanyAdmin: u.isCompanyAdmin,
  };
}

export function createAuthService(deps: AuthServiceDeps) {
  const { db, identity, sessions, tokens, mailer, clock } = deps;
  const codeHash = (sessionId: string, code: string) => keyedHash(deps.secret, `mfa:${sessionId}:${code}`);
  const link = (path: string, query: Record<string, string | number>) =>
    `${deps.portalUrl.replace(/\/$/, '')}${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`;

  async function mustFind(userId: number): Promise<UserWithBrand> {
    const user = await identity.byId(userId);
    if (!user) throw new UnauthorizedError();
    return user;
  }

  return {
    /** Password check; on success a session awaiting the emailed code. */
    async login(input: { email: string; password: string; rememberMe: boolean; previousSessionId?: string; client: ClientInfo }): Promise<{ session: NewSession; user: AuthUser }> {
      const user = await identity.byEmail(input.email);
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), input.password);
      if (!user || !user.passwordHash || !ok) throw new UnauthorizedError(API_MESSAGES.invalidCredentials);

      if (input.previousSessionId) await sessions.destroy(input.previousSessionId);
      const session = await sessions.create({ userId: user.id, state: 'mfa', rememberMe: input.rememberMe, ...input.client });
      const code = deps.random.digits(MFA_CODE_LENGTH);
      await db.insert(mfaChallenges).values({
        sessionId: session.sessionId,
        userId: user.id,
        codeHash: codeHash(session.sessionId, code),
        expiresAt: new Date(clock.now().getTime() + MFA_CODE_TTL_MS),
      });
      const mail = mfaCodeMail(user.resellerName ?? 'Portal', code);
      await mailer.enqueue({ to: user.email, from: senderOf(user, deps.defaultFrom), ...mail });
      return { session, user: toAuthUser(user) };
    },

    /** Checks the emailed code; on success the session is replaced by a fully authenticated one. */
    async verifyMfa(auth: AuthContext, code: string, client: ClientInfo): Promise<{ session: NewSession; user: AuthUser }> {
      if (auth.state === 'authenticated') throw new BadRequestError('Already verified');
      // Count the attempt first and atomically, so parallel guesses cannot exceed the limit.
      const [challenge] = await db
        .update(mfaChallenges)
        .set({ attempts: sql`${mfaChallenges.attempts} + 1` })
        .where(eq(mfaChallenges.sessionId, auth.sessionId))
        .returning();
      if (!challenge || challenge.expiresAt <= clock.now()) {
        await sessions.destroy(auth.sessionId);
        throw new UnauthorizedError(API_MESSAGES.mfaExpired);
      }
      if (challenge.attempts > MFA_MAX_ATTEMPTS) {
        await sessions.destroy(auth.sessionId);
        throw new UnauthorizedError(API_MESSAGES.retriesExhausted);
      }
      if (!safeEqual(challenge.codeHash, codeHash(auth.sessionId, code.trim()))) {
        if (challenge.attempts >= MFA_MAX_ATTEMPTS) {
          await sessions.destroy(auth.sessionId);
          throw new UnauthorizedError(API_MESSAGES.retriesExhausted);
        }
        throw new BadRequestError(API_MESSAGES.invalidMfaCode);
      }
      // Rotate: the pre-MFA token never becomes an authenticated one.
      await sessions.destroy(auth.sessionId);
      const session = await sessions.create({ userId: auth.userId, state: 'authenticated', rememberMe: auth.rememberMe, ...client });
      const user = await mustFind(auth.userId);
      const resetKey = user.forcePasswordReset ? await tokens.issue(user.id, 'reset_password', RESET_TOKEN_TTL_MS) : null;
      return { session, user: toAuthUser(user, resetKey) };
    },

    async currentUser(auth: AuthContext): Promise<AuthUser> {
      return toAuthUser(await mustFind(auth.userId));
    },

    async shouldResetPassword(auth: AuthContext): Promise<{ forcePasswordReset: boolean; resetKey: string | null }> {
      const user = await mustFind(auth.userId);
      if (!user.forcePasswordReset) return { forcePasswordReset: false, resetKey: null };
      return { forcePasswordReset: true, resetKey: await tokens.issue(user.id, 'reset_password', RESET_TOKEN_TTL_MS) };
    },

    async refresh(auth: AuthContext): Promise<AuthUser> {
      await sessions.extend(auth.sessionId, auth.rememberMe);
      return toAuthUser(await mustFind(auth.userId));
    },

    async logout(auth: AuthContext | null): Promise<void> {
      if (auth) await sessions.destroy(auth.sessionId);
    },

    /** Mails a reset link when the account exists; the caller's answer is the same either way. */
    async forgotPassword(email: string): Promise<void> {
      const user = await identity.byEmail(email);
      if (!user || !user.passwordHash) return;
      const key = await tokens.issue(user.id, 'reset_password', RESET_TOKEN_TTL_MS);
      const mail = resetPasswordMail(user.resellerName ?? 'Portal', link('/resetPassword', { token: key, id: user.id }));
      await mailer.enqueue({ to: user.email, from: senderOf(user, deps.defaultFrom), ...mail });
    },

    async resetPassword(input: { userId: number; resetKey: string; password: string; keepSessionId?: string }): Promise<void> {
      const passwordHash = await hashPassword(input.password);
      await db.transaction(async (tx) => {
        const ok = await tokens.consume(input.userId, 'reset_password', input.resetKey, tx);
        if (!ok) throw new BadRequestError(API_MESSAGES.invalidResetToken);
        await tx.update(users).set({ passwordHash, forcePasswordReset: false, updatedAt: clock.now() }).where(eq(users.id, input.userId));
      });
      await sessions.destroyAllFor(input.userId, input.keepSessionId);
    },

    async confirmEmail(input: { userId: number; resetKey: string; password: string; firstName: string; lastName: string }): Promise<void> {
      const passwordHash = await hashPassword(input.password);
      await db.transaction(async (tx) => {
        const ok = await tokens.consume(input.userId, 'confirm_email', input.resetKey, tx);
        if (!ok) throw new BadRequestError(API_MESSAGES.invalidResetToken);
        await tx
          .update(users)
          .set({ passwordHash, firstName: input.firstName, lastName: input.lastName, emailConfirmedAt: clock.now(), forcePasswordReset: false, updatedAt: clock.now() })
          .where(eq(users.id, input.userId));
      });
    },

    async updatePassword(auth: AuthContext, currentPassword: string, password: string): Promise<void> {
      const user = await mustFind(auth.userId);
      if (!user.passwordHash || !(await verifyPassword(user.passwordHash, currentPassword))) {
        throw new BadRequestError(API_MESSAGES.currentPasswordWrong);
      }
      await db.update(users).set({ passwordHash: await hashPassword(password), forcePasswordReset: false, updatedAt: clock.now() }).where(and(eq(users.id, auth.userId)));
      await sessions.destroyAllFor(auth.userId, auth.sessionId);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
