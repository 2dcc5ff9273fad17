/**
 * One dedicated PostgreSQL connection LISTENing on a channel, made again with jittered exponential backoff
 * when lost. Shared by the VM event relay and the session cache's invalidation: both need to know when
 * they are deaf (`onDown`) and when they hear again (`onUp`), since NOTIFYs sent in between are gone.
 *
 * A connection can go deaf without closing: a partitioned network or a frozen server sends no FIN, and TCP
 * keepalive notices only after minutes. So the listener asks `select 1` every `heartbeatMs` and counts a
 * connection that does not answer within `heartbeatMs` as lost: deafness is noticed within two heartbeats.
 */
import pg from 'pg';

export interface ListenerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PgListener {
  /** Opens the connection; resolves after the first attempt, whether or not it worked (it retries). */
  start(): Promise<void>;
  /** Stops retrying and closes the connection. */
  stop(): Promise<void>;
  readonly listening: boolean;
}

export function createPgListener(opts: {
  connection: pg.ClientConfig;
  channel: string;
  /** How the connection shows in pg_stat_activity. */
  applicationName: string;
  /** Prefix of log lines, e.g. 'VM events'. */
  label: string;
  log: ListenerLog;
  onNotify: (payload: string | undefined) => void;
  onUp?: () => void;
  onDown?: () => void;
  reconnectMs?: { initial: number; max: number };
  /** How often the connection must prove it still answers (default 2 s). */
  heartbeatMs?: number;
}): PgListener {
  const { log, channel, label } = opts;
  const backoff = opts.reconnectMs ?? { initial: 500, max: 30_000 };
  let client: pg.Client | null = null;
  let connecting: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;
  let stopped = false;
  const heartbeatMs = opts.heartbeatMs ?? 2_000;
  let heartbeat: NodeJS.Timeout | null = null;

  function stopHeartbeat() {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
  }

  function startHeartbeat(c: pg.Client) {
    stopHeartbeat();
    let inFlight = false;
    heartbeat = setInterval(() => {
      if (inFlight || client !== c) return;
      inFlight = true;
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to a heartbeat within ${heartbeatMs} ms`)), heartbeatMs);
      });
      Promise.race([c.query('select 1'), silent])
        .catch((err: Error) => lost(c, err))
        .finally(() => {
          clearTimeout(timer);
          inFlight = false;
        });
    }, heartbeatMs);
    heartbeat.unref();
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
    if (client !== c) return; // a connection we already gave up on
    client = null;
    stopHeartbeat();
    opts.onDown?.();
    log.warn({ err }, `${label}: listening connection lost; reconnecting`);
    c.end().catch(() => {});
    scheduleReconnect();
  }

  function connect(): Promise<void> {
    if (stopped || client || connecting) return connecting ?? Promise.resolve();
    const c = new pg.Client({
      ...opts.connection,
      application_name: opts.applicationName,
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    // Always heard: an unheard 'error' on a client would crash the process.
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === channel) opts.onNotify(msg.payload);
    });
    connecting = (async () => {
      try {
        await c.connect();
        await c.query(`LISTEN ${channel}`);
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        client = c;
        startHeartbeat(c);
        opts.onUp?.();
        if (failures > 0) log.info({ channel }, `${label}: listening again`);
        failures = 0;
      } catch (err) {
        log.warn({ err }, `${label}: cannot listen; retrying`);
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
      stopHeartbeat();
      if (retry) clearTimeout(retry);
      retry = null;
      await connecting;
      const c = client;
      client = null;
      if (c) await c.end().catch(() => {});
    },
  };
}
