/**
 * The LISTEN connection notices a silent partition (no close, only silence) within two heartbeats, not after
 * TCP keepalive's minutes, and listens again once the network is back. PostgreSQL only: PGlite has no network.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRelay, type Relay } from '../../test/tcp-relay.ts';
import { createPgListener, type PgListener } from './pg-listener.ts';

const pgUrl = inject('pgUrl');
const quiet = { info: () => {}, warn: () => {} };

async function until(condition: () => boolean, withinMs: number): Promise<number> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

describe.skipIf(!pgUrl)('a LISTEN connection behind a frozen network', () => {
  let relay: Relay;
  let listener: PgListener;
  const events: string[] = [];
  const heard: string[] = [];

  beforeAll(async () => {
    relay = await startRelay(new URL(pgUrl!));
    const viaRelay = new URL(pgUrl!);
    viaRelay.port = String(relay.port);
    listener = createPgListener({
      connection: { connectionString: viaRelay.toString() },
      channel: 'listener_test',
      applicationName: 'listener-test',
      label: 'test',
      log: quiet,
      heartbeatMs: 200,
      reconnectMs: { initial: 50, max: 200 },
      onNotify: (payload) => heard.push(payload ?? ''),
      onUp: () => events.push('up'),
      onDown: () => events.push('down'),
    });
    await listener.start();
  });
  afterAll(async () => {
    relay?.restore();
    await listener?.stop();
    await relay?.close();
  });

  it('goes deaf within two heartbeats of a freeze and hears again after it', async () => {
    expect(listener.listening).toBe(true);
    const notify = async (payload: string) => {
      const c = new pg.Client({ connectionString: pgUrl! });
      await c.connect();
      await c.query(`select pg_notify('listener_test', $1)`, [payload]);
      await c.end();
    };
    await notify('before');
    await until(() => heard.includes('before'), 2_000);

    relay.freeze();
    // Nothing closed: only the heartbeat can tell. 200 ms interval + 200 ms deadline, plus slack for a busy box.
    const noticedAfter = await until(() => !listener.listening, 2_000);
    expect(events).toEqual(['up', 'down']);
    expect(noticedAfter).toBeLessThan(2_000);

    relay.restore();
    await until(() => listener.listening, 5_000);
    expect(events).toEqual(['up', 'down', 'up']);
    await notify('after');
    await until(() => heard.includes('after'), 2_000);
  });
});
