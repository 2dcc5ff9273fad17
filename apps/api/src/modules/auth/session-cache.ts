/**
 * A per-instance cache of resolved sessions (and of the signed-in user's profile for `GET /auth/check`), so
 * a signed-in request does not cost a database round trip for the session alone.
 *
 * Correctness rests on invalidation, not on a short lifetime:
 * - every change that can alter or end a session — a session deleted (logout, password change or reset,
 *   sign-in again, the user deleted), any change to a user, their company or its reseller/distributor — is
 *   announced by PostgreSQL triggers on the `auth_changes` channel (migration 0003), whoever made it: this
 *   instance, another one, the operator command or an operator's psql. Each instance LISTENs (auth-changes.ts)
 *   and forgets what the message names;
 * - while that listening connection is down the cache is off (and emptied when it comes back), so a missed
 *   message cannot leave a stale entry behind;
 * - this instance also forgets synchronously where it writes (the session store's destroy calls; any write
 *   request of a company's user forgets that company's entries before its answer is sent), so a client sees its
 *   own change on its next request without waiting for the notification (PGlite, one process, has only this);
 * - an entry is never served past the session's expiry, nor past the minute after which the sliding-expiry
 *   touch is due: the store then reads (and touches) the row again, so the touch stays once a minute.
 */
import type { FastifyInstance } from 'fastify';
import type { AuthUser } from '@portal/contract/auth';
import type { AuthContext } from '../../lib/auth-context.ts';
import type { Clock } from '../../lib/clock.ts';

/** The channel the triggers of migration 0003 notify. Payloads: `s:<session id>`, `u:<user id>`, `c:<company id>`, `*`. */
export const AUTH_CHANGES_CHANNEL = 'auth_changes';

/** Entries beyond this are dropped oldest first (one instance rarely holds this many live sessions). */
const MAX_ENTRIES = 50_000;
/** A profile (name, branding) is read again after this long even without a notification. */
const PROFILE_FRESH_MS = 60_000;

interface SessionEntry {
  auth: AuthContext;
  /** Epoch ms after which the store must read the row again (expiry, or the touch being due). */
  freshUntil: number;
}

interface ProfileEntry {
  user: AuthUser;
  companyId: number;
  freshUntil: number;
}

export interface SessionCache {
  /** Off while cross-instance invalidation cannot be trusted (the listener is down). */
  enabled: boolean;
  /** A token for `setSession`/`setProfile`: a value read before an invalidation is not stored after it. */
  generation(): number;
  session(id: string): AuthContext | undefined;
  setSession(id: string, auth: AuthContext, freshUntil: number, readAt: number): void;
  profile(userId: number): AuthUser | undefined;
  setProfile(user: AuthUser, companyId: number, readAt: number): void;
  forgetSession(id: string): void;
  forgetUser(userId: number): void;
  forgetCompany(companyId: number): void;
  clear(): void;
  /** Applies one `auth_changes` payload. */
  apply(payload: string): void;
}

export function createSessionCache(deps: { clock: Clock; enabled: boolean }): SessionCache {
  const sessions = new Map<string, SessionEntry>();
  const profiles = new Map<number, ProfileEntry>();
  let generation = 0;
  const bump = () => void (generation += 1);
  const bounded = <K, V>(map: Map<K, V>) => {
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
  };

  const cache: SessionCache = {
    enabled: deps.enabled,
    generation: () => generation,
    session(id) {
      if (!cache.enabled) return undefined;
      const entry = sessions.get(id);
      if (!entry) return undefined;
      if (deps.clock.now().getTime() >= entry.freshUntil) {
        sessions.delete(id);
        return undefined;
      }
      return entry.auth;
    },
    setSession(id, auth, freshUntil, readAt) {
      if (!cache.enabled || readAt !== generation) return;
      sessions.delete(id); // re-inserted last: the oldest entries are the first to go
      sessions.set(id, { auth, freshUntil });
      bounded(sessions);
    },
    profile(userId) {
      if (!cache.enabled) return undefined;
      const entry = profiles.get(userId);
      if (!entry) return undefined;
      if (deps.clock.now().getTime() >= entry.freshUntil) {
        profiles.delete(userId);
        return undefined;
      }
      return entry.user;
    },
    setProfile(user, companyId, readAt) {
      if (!cache.enabled || readAt !== generation) return;
      profiles.delete(user.id);
      profiles.set(user.id, { user, companyId, freshUntil: deps.clock.now().getTime() + PROFILE_FRESH_MS });
      bounded(profiles);
    },
    forgetSession(id) {
      bump();
      sessions.delete(id);
    },
    forgetUser(userId) {
      bump();
      for (const [id, entry] of sessions) if (entry.auth.userId === userId) sessions.delete(id);
      profiles.delete(userId);
    },
    forgetCompany(companyId) {
      bump();
      for (const [id, entry] of sessions) if (entry.auth.companyId === companyId) sessions.delete(id);
      for (const [id, entry] of profiles) if (entry.companyId === companyId) profiles.delete(id);
    },
    clear() {
      bump();
      sessions.clear();
      profiles.clear();
    },
    apply(payload) {
      const kind = payload.slice(0, 2);
      const rest = payload.slice(2);
      if (kind === 's:') cache.forgetSession(rest);
      else if (kind === 'u:' && /^\d+$/.test(rest)) cache.forgetUser(Number(rest));
      else if (kind === 'c:' && /^\d+$/.test(rest)) cache.forgetCompany(Number(rest));
      else cache.clear(); // '*' (branding) or anything unknown: forget everything rather than guess
    },
  };
  return cache;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read-your-writes on this instance: a write request forgets, before its answer is sent, the cached entries
 * of the writer's company (everything, for writes without a session: sign-in, resets by mailed link, operator
 * calls). Other instances hear of the change from the triggers.
 */
export function forgetOnWrites(app: FastifyInstance, cache: SessionCache): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (!SAFE_METHODS.has(request.method)) {
      if (request.auth) cache.forgetCompany(request.auth.companyId);
      else cache.clear();
    }
    done(null, payload);
  });
}
