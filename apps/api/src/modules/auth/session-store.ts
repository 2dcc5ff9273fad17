/** Server-side sessions. The cookie holds a random token; the table holds only its keyed hash. */
import { and, eq, gt, isNull, lt, ne, sql } from 'drizzle-orm';
import { MFA_PENDING_TTL_MS, REMEMBER_ME_TTL_MS, SESSION_TTL_MS } from '@portal/contract/constants';
import type { Db } from '../../db/client.ts';
import { companies, sessions, users } from '../../db/schema.ts';
import { mustSetUpStrongFactorSql } from '../../db/strong-factor.ts';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash, type Random } from '../../lib/crypto.ts';
import { afterNextPoll, type SessionCache } from './session-cache.ts';

/** How often the last-seen time (and a sliding expiry) is written back. */
const TOUCH_EVERY_MS = 60_000;

export interface NewSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
}

export interface SessionStore {
  resolve(token: string): Promise<AuthContext | null>;
  create(input: {
    userId: number;
    state: 'mfa' | 'authenticated';
    rememberMe: boolean;
    ip?: string;
    userAgent?: string;
  }): Promise<NewSession>;
  destroy(sessionId: string): Promise<void>;
  /** Ends every session of a user except `keep` (after a password change); answers how many ended. */
  destroyAllFor(userId: number, keep?: string): Promise<number>;
  extend(sessionId: string, rememberMe: boolean): Promise<Date>;
  purgeExpired(): Promise<void>;
  ttlFor(state: 'mfa' | 'authenticated', rememberMe: boolean): number;
}

export function createSessionStore(deps: {
  db: Db;
  secret: string;
  clock: Clock;
  random: Random;
  cache?: SessionCache;
}): SessionStore {
  const { db, clock } = deps;
  const idOf = (token: string) => keyedHash(deps.secret, `session:${token}`);
  const ttlFor = (state: 'mfa' | 'authenticated', rememberMe: boolean) =>
    state === 'mfa' ? MFA_PENDING_TTL_MS : rememberMe ? REMEMBER_ME_TTL_MS : SESSION_TTL_MS;

  // Every API request resolves its session: a named prepared statement spares PostgreSQL the parse
  // and plan each time (it is cached per connection).
  const resolveQuery = db
    .select({
      state: sessions.state,
      rememberMe: sessions.rememberMe,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      userId: users.id,
      companyId: users.companyId,
      email: users.email,
      isCompanyAdmin: users.isCompanyAdmin,
      staffRole: users.staffRole,
      resellerId: companies.resellerId,
      mustResetPassword: users.forcePasswordReset,
      mustSetUpTwoFactor: mustSetUpStrongFactorSql,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(companies, eq(companies.id, users.companyId))
    // A suspended company's sessions answer as signed out (suspending also deletes them; this closes the race).
    .where(
      and(
        eq(sessions.id, sql.placeholder('id')),
        gt(sessions.expiresAt, sql.placeholder('now')),
        isNull(companies.suspendedAt),
      ),
    )
    .limit(1)
    .prepare('session_resolve');

  return {
    ttlFor,
    async resolve(token) {
      if (token.length > 200) return null;
      const id = idOf(token);
      // From memory only once the loop has looked at its sockets since the call came: an outage already
      // delivered then steps the cache aside first, and the session is read (and fails with 503) instead.
      if (deps.cache?.session(id)) {
        await afterNextPoll();
        const cached = deps.cache.session(id);
        if (cached) return cached;
      }
      const readAt = deps.cache?.generation() ?? 0;
      const now = clock.now();
      const [row] = await resolveQuery.execute({ id, now });
      if (!row) return null;
      let { lastSeenAt, expiresAt } = row;
      if (row.state === 'authenticated' && now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
        // Sliding expiry for active users; remember-me sessions keep their long fixed window.
        const patch = row.rememberMe
          ? { lastSeenAt: now }
          : { lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_TTL_MS) };
        await db.update(sessions).set(patch).where(eq(sessions.id, id));
        lastSeenAt = now;
        if (!row.rememberMe) expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
      }
      const auth: AuthContext = {
        sessionId: id,
        state: row.state,
        rememberMe: row.rememberMe,
        userId: row.userId,
        companyId: row.companyId,
        email: row.email,
        isCompanyAdmin: row.isCompanyAdmin,
        resellerId: row.resellerId,
        staffRole: row.staffRole,
        mustResetPassword: row.mustResetPassword,
        mustSetUpTwoFactor: Boolean(row.mustSetUpTwoFactor),
      };
      // Served from memory until the session expires or its next touch is due, whichever comes first.
      deps.cache?.setSession(id, auth, Math.min(expiresAt.getTime(), lastSeenAt.getTime() + TOUCH_EVERY_MS), readAt);
      return auth;
    },
    async create(input) {
      const token = deps.random.token(32);
      const sessionId = idOf(token);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + ttlFor(input.state, input.rememberMe));
      await db.insert(sessions).values({
        id: sessionId,
        userId: input.userId,
        state: input.state,
        rememberMe: input.rememberMe,
        ip: input.ip ?? null,
        userAgent: input.userAgent?.slice(0, 300) ?? null,
        createdAt: now,
        lastSeenAt: now,
        expiresAt,
        // A signed-in session starts stepped up: the sign-in proved the factors (docs/two-factor.md "Step-up").
        steppedUpAt: input.state === 'authenticated' ? now : null,
      });
      return { token, sessionId, expiresAt };
    },
    async destroy(sessionId) {
      await db.delete(sessions).where(eq(sessions.id, sessionId));
      deps.cache?.forgetSession(sessionId);
    },
    async destroyAllFor(userId, keep) {
      const ended = await db
        .delete(sessions)
        .where(keep ? and(eq(sessions.userId, userId), ne(sessions.id, keep)) : eq(sessions.userId, userId))
        .returning({ id: sessions.id });
      // Also the kept one: the change that ended the others (a new password) may have changed it too.
      deps.cache?.forgetUser(userId);
      return ended.length;
    },
    async extend(sessionId, rememberMe) {
      const expiresAt = new Date(clock.now().getTime() + ttlFor('authenticated', rememberMe));
      await db.update(sessions).set({ expiresAt, lastSeenAt: clock.now() }).where(eq(sessions.id, sessionId));
      return expiresAt;
    },
    async purgeExpired() {
      await db.delete(sessions).where(lt(sessions.expiresAt, clock.now()));
    },
  };
}
