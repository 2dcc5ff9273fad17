/**
 * Listens on PostgreSQL's `auth_changes` channel for the session cache (session-cache.ts): one dedicated
 * connection, made again with backoff when lost. The cache is on only while this connection listens: it is
 * turned off (and emptied) the moment the connection is lost, and emptied again before it is turned back on,
 * since messages sent in between are gone.
 */
import type pg from 'pg';
import type { Clock } from '../../lib/clock.ts';
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
 * The session cache for this instance. On PostgreSQL it follows `auth_changes` (several instances may share
 * the database) and is on while its listener is connected; on PGlite it stays off. `enabled: false`
 * (SESSION_CACHE=false) gives a cache that never holds anything.
 */
export async function startSessionCache(opts: {
  enabled: boolean;
  clock: Clock;
  connection: pg.ClientConfig | null;
  log: ListenerLog;
}): Promise<{ cache: SessionCache; stop(): Promise<void> }> {
  // Without a listening connection (PGlite) nothing would announce a change made in SQL (a forced reset set by
  // hand), so the embedded database keeps no cache: it serves one small install, where a cache saves little.
  const cache = createSessionCache({ clock: opts.clock, enabled: false });
  if (!opts.enabled || !opts.connection) return { cache, stop: async () => {} };
  const listener = createAuthChangeListener({ connection: opts.connection, cache, log: opts.log });
  await listener.start();
  return { cache, stop: () => listener.stop() };
}
