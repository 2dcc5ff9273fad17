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
 * - while the pool cannot reach PostgreSQL the cache steps aside (and is emptied): a pooled connection lost,
 *   a query or a connection attempt failing as unreachable (`isDatabaseUnavailable`) turn it off until a
 *   pooled query or a new pooled connection succeeds again. Every call then reads the database, so an outage
 *   answers 503 with Retry-After on every call, the identity calls of a warm session included;
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
import { isDatabaseUnavailable } from '../../lib/errors.ts';

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
  /** False while the pool cannot reach PostgreSQL: the cache then holds and serves nothing. */
  readonly databaseReachable: boolean;
  /** The pool lost a connection or could not reach the database: step aside (and forget everything). */
  databaseDown(): void;
  /** A pooled query or connection succeeded: the database answers again. */
  databaseUp(): void;
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
  let reachable = true;
  const bump = () => void (generation += 1);
  const serving = () => cache.enabled && reachable;
  const bounded = <K, V>(map: Map<K, V>) => {
    if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
  };

  const cache: SessionCache = {
    enabled: deps.enabled,
    get databaseReachable() {
      return reachable;
    },
    databaseDown() {
      reachable = false;
      cache.clear(); // also: a read that started before the outage is not stored after it
    },
    databaseUp() {
      reachable = true;
    },
    generation: () => generation,
    session(id) {
      if (!serving()) return undefined;
      const entry = sessions.get(id);
      if (!entry) return undefined;
      if (deps.clock.now().getTime() >= entry.freshUntil) {
        sessions.delete(id);
        return undefined;
      }
      return entry.auth;
    },
    setSession(id, auth, freshUntil, readAt) {
      if (!serving() || readAt !== generation) return;
      sessions.delete(id); // re-inserted last: the oldest entries are the first to go
      sessions.set(id, { auth, freshUntil });
      bounded(sessions);
    },
    profile(userId) {
      if (!serving()) return undefined;
      const entry = profiles.get(userId);
      if (!entry) return undefined;
      if (deps.clock.now().getTime() >= entry.freshUntil) {
        profiles.delete(userId);
        return undefined;
      }
      return entry.user;
    },
    setProfile(user, companyId, readAt) {
      if (!serving() || readAt !== generation) return;
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

let nextPoll: { promise: Promise<void>; started: boolean } | null = null;

/**
 * Resolves once the event loop has polled its sockets after this call: a connection closed before the call
 * (an outage the kernel has already delivered) has then been seen by the pool and the listener, and has
 * stepped the cache aside. Callers that arrive together share one wait (two `setImmediate`s: the poll phase
 * lies between them), so the cost is a turn of the loop, not work per request.
 */
export function afterNextPoll(): Promise<void> {
  if (nextPoll && !nextPoll.started) return nextPoll.promise;
  const wait = { started: false, promise: Promise.resolve() };
  wait.promise = new Promise<void>((resolve) =>
    setImmediate(() => {
      wait.started = true;
      if (nextPoll === wait) nextPoll = null;
      setImmediate(resolve);
    }),
  );
  nextPoll = wait;
  return wait.promise;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Read-your-writes on this instance: a write request forgets, before its answer is sent, the cached entries
 * of the writer's company (everything, for writes without a session: sign-in, resets by mailed link, operator
 * calls; and for reseller staff, whose writes reach their customers' companies: a suspension ends their
 * sessions). Other instances hear of the change from the triggers.
 *
 * And a request that found the database unreachable (the 503 of an outage) steps the cache aside, so the
 * next calls of warm sessions answer 503 too instead of answering from memory.
 */
export function forgetOnWrites(app: FastifyInstance, cache: SessionCache): void {
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (!SAFE_METHODS.has(request.method)) {
      if (request.auth && !request.auth.staffRole) cache.forgetCompany(request.auth.companyId);
      else cache.clear();
    }
    done(null, payload);
  });
  app.addHook('onError', (_request, _reply, error, done) => {
    if (isDatabaseUnavailable(error)) cache.databaseDown();
    done();
  });
}
