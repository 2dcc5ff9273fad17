/**
 * Listens on PostgreSQL's `auth_changes` channel for the session cache (session-cache.ts): one dedicated
 * connection, made again with backoff when lost. The cache is on only while this connection listens: it is
 * turned off (and emptied) the moment the connection is lost, and emptied again before it is turned back on,
 * since messages sent in between are gone.
 */
import pg from 'pg';
import type { Clock } from '../../lib/clock.ts';
import { AUTH_CHANGES_CHANNEL, createSessionCache, type SessionCache } from './session-cache.ts';

/** How the listening connection shows in pg_stat_activity. */
export const AUTH_CHANGES_APPLICATION_NAME = 'portal-auth-changes';

interface Log {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AuthChangeListener {
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly listening: boolean;
}

export function createAuthChangeListener(opts: {
  connection: pg.ClientConfig;
  cache: SessionCache;
  log: Log;
  reconnectMs?: { initial: number; max: number };
}): AuthChangeListener {
  const { cache, log } = opts;
  const backoff = opts.reconnectMs ?? { initial: 500, max: 30_000 };
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;
  let stopped = false;

  function off() {
    cache.enabled = false;
    cache.clear();
  }

  function scheduleReconnect() {
    if (stopped || retry) return;
    const base = Math.min(backoff.max, backoff.initial * 2 ** Math.min(failures, 20));
    failures += 1;
    retry = setTimeout(
      () => {
        retry = null;
        void connect();
      },
      Math.round(base / 2 + Math.random() * (base / 2)),
    );
    retry.unref();
  }

  function lost(c: pg.Client, err: Error) {
    if (client !== c) return;
    client = null;
    off();
    log.warn({ err }, 'auth changes: listening connection lost; session cache off until it is back');
    c.end().catch(() => {});
    scheduleReconnect();
  }

  function connect(): Promise<void> {
    if (stopped || client || connecting) return connecting ?? Promise.resolve();
    const c = new pg.Client({
      ...opts.connection,
      application_name: AUTH_CHANGES_APPLICATION_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === AUTH_CHANGES_CHANNEL) cache.apply(msg.payload ?? '*');
    });
    connecting = (async () => {
      try {
        await c.connect();
        await c.query(`LISTEN ${AUTH_CHANGES_CHANNEL}`);
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        client = c;
        // Whatever changed while nobody listened is unknown: start empty.
        cache.clear();
        cache.enabled = true;
        if (failures > 0)
          log.info({ channel: AUTH_CHANGES_CHANNEL }, 'auth changes: listening again; session cache on');
        failures = 0;
      } catch (err) {
        log.warn({ err }, 'auth changes: cannot listen; session cache off, retrying');
        c.end().catch(() => {});
        scheduleReconnect();
      } finally {
        connecting = null;
      }
    })();
    return connecting;
  }

  return {
    get listening() {
      return client !== null;
    },
    start: () => connect(),
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      retry = null;
      await connecting;
      const c = client;
      client = null;
      off();
      if (c) await c.end().catch(() => {});
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
  log: Log;
}): Promise<{ cache: SessionCache; stop(): Promise<void> }> {
  // Without a listening connection (PGlite) nothing would announce a change made in SQL (a forced reset set by
  // hand), so the embedded database keeps no cache: it serves one small install, where a cache saves little.
  const cache = createSessionCache({ clock: opts.clock, enabled: false });
  if (!opts.enabled || !opts.connection) return { cache, stop: async () => {} };
  const listener = createAuthChangeListener({ connection: opts.connection, cache, log: opts.log });
  await listener.start();
  return { cache, stop: () => listener.stop() };
}
