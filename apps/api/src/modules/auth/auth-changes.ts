/**
 * Listens on PostgreSQL's `auth_changes` channel for the session cache (session-cache.ts): one dedicated
 * connection, made again with backoff when lost. The cache is on only while this connection listens: it is
 * turned off (and emptied) the moment the connection is lost, and emptied again before it is turned back on,
 * since messages sent in between are gone.
 */
import type pg from 'pg';
import type { Clock } from '../../lib/clock.ts';
import { isDatabaseUnavailable } from '../../lib/errors.ts';
import { createPgListener, type ListenerLog, type PgListener } from '../../lib/pg-listener.ts';
import { AUTH_CHANGES_CHANNEL, createSessionCache, type SessionCache } from './session-cache.ts';

/** How the listening connection shows in pg_stat_activity. */
export const AUTH_CHANGES_APPLICATION_NAME = 'portal-auth-changes';

export type AuthChangeListener = PgListener;

export function createAuthChangeListener(opts: {
  connection: pg.ClientConfig;
  cache: SessionCache;
  log: ListenerLog;
  reconnectMs?: { initial: number; max: number };
}): AuthChangeListener {
  const { cache } = opts;
  function off() {
    cache.enabled = false;
    cache.clear();
  }
  const listener = createPgListener({
    connection: opts.connection,
    channel: AUTH_CHANGES_CHANNEL,
    applicationName: AUTH_CHANGES_APPLICATION_NAME,
    label: 'auth changes (session cache off while not listening)',
    log: opts.log,
    ...(opts.reconnectMs ? { reconnectMs: opts.reconnectMs } : {}),
    onNotify: (payload) => cache.apply(payload ?? '*'),
    // Whatever changed while nobody listened is unknown: start empty.
    onUp: () => {
      cache.clear();
      cache.enabled = true;
    },
    onDown: off,
  });
  return {
    get listening() {
      return listener.listening;
    },
    start: () => listener.start(),
    async stop() {
      await listener.stop();
      off();
    },
  };
}

/**
 * Steps the cache aside while `pool` cannot reach PostgreSQL: a pooled connection lost while idle, or a query
 * failing as unreachable, turns it off; a new pooled connection or a query answered turns it back on (the
 * listener's own state still applies). Requests that fail to connect at all step it aside through
 * `forgetOnWrites`'s error hook. Returns the detach.
 */
export function followPool(pool: pg.Pool, cache: SessionCache): () => void {
  const down = () => cache.databaseDown();
  const up = () => cache.databaseUp();
  const released = (err: unknown) => (err && isDatabaseUnavailable(err) ? down() : up());
  const watched = new WeakSet<pg.PoolClient>();
  // The server closing a connection shows first as its socket's end, in the poll that reads it (pg reports it
  // a turn or two later, on close): in time for afterNextPoll. Not when this side ends it (the pool's idle
  // timeout, shutdown). Each pooled connection is watched from its first use (some predate the cache).
  const watch = (client: pg.PoolClient) => {
    if (watched.has(client)) return;
    watched.add(client);
    client.connection.stream.once('end', () => {
      if (!(client as unknown as { _ending?: boolean })._ending) down();
    });
  };
  const connected = (client: pg.PoolClient) => {
    up();
    watch(client);
  };
  pool.on('error', down);
  pool.on('connect', connected);
  pool.on('acquire', watch);
  pool.on('release', released);
  return () => {
    pool.off('error', down);
    pool.off('connect', connected);
    pool.off('acquire', watch);
    pool.off('release', released);
  };
}

/**
 * The session cache for this instance. On PostgreSQL it follows `auth_changes` (several instances may share
 * the database) and is on while its listener is connected and its pool reaches the database; on PGlite it
 * stays off. `enabled: false` (SESSION_CACHE=false) gives a cache that never holds anything.
 */
export async function startSessionCache(opts: {
  enabled: boolean;
  clock: Clock;
  connection: pg.ClientConfig | null;
  /** The pool the requests use: the cache steps aside while it cannot reach PostgreSQL (followPool). */
  pool?: pg.Pool | null;
  log: ListenerLog;
}): Promise<{ cache: SessionCache; stop(): Promise<void> }> {
  // Without a listening connection (PGlite) nothing would announce a change made in SQL (a forced reset set by
  // hand), so the embedded database keeps no cache: it serves one small install, where a cache saves little.
  const cache = createSessionCache({ clock: opts.clock, enabled: false });
  if (!opts.enabled || !opts.connection) return { cache, stop: async () => {} };
  const unfollow = opts.pool ? followPool(opts.pool, cache) : () => {};
  const listener = createAuthChangeListener({ connection: opts.connection, cache, log: opts.log });
  await listener.start();
  return {
    cache,
    async stop() {
      unfollow();
      await listener.stop();
    },
  };
}
