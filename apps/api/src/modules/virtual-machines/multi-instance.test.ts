/**
 * Several API instances on one database (ARCHITECTURE.md): a console link issued by instance A opens on
 * instance B once and only once, and a status change made on A reaches a live stream opened on B, exactly
 * once, as it reaches A's own streams exactly once.
 *
 * On api-postgres, A and B are two apps, each with its own pool and its own LISTEN connection, on one
 * database; only A runs the workers. PGlite is one process with an in-memory database that a second app
 * cannot share, so on api-pglite "B" is A itself: the same assertions then check the single-instance
 * guarantees (single use under concurrent opens, each event once per stream). The listener-reconnect test
 * is PostgreSQL only.
 */
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { routes } from '@portal/contract/routes';
import { buildApp, type App } from '../../app.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { consoleTokens } from '../../db/schema.ts';
import { createTestApp, signIn, TestClient, type TestApp } from '../../../test/harness.ts';
import { createPgVmEvents, VM_EVENTS_APPLICATION_NAME } from '../../engine/vm-events.ts';

const crossInstance = inject('pgUrl') !== null;
const SECRET = 'test-secret-that-is-long-enough-0123456789';

let a: TestApp;
let b: App;
let bDatabase: Database | null = null;
let onA: TestClient;
let onB: TestClient;
const base = { a: '', b: '' };

const baseOf = (app: App, apiBase: string) =>
  `http://127.0.0.1:${(app.app.server.address() as { port: number }).port}${apiBase}`;

beforeAll(async () => {
  a = await createTestApp({
    env: { SIMULATOR_STEP_MS: '30', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  if (crossInstance) {
    // A second instance: its own pool (and LISTEN connection) on A's database, same config and secret.
    const url = (a.database.pool!.options as { connectionString: string }).connectionString;
    bDatabase = await openDatabase({ databaseUrl: url, poolSize: 3 });
    b = await buildApp({ config: a.config, database: bDatabase, secret: SECRET, logger: false });
    await b.app.ready();
    await b.app.listen({ port: 0, host: '127.0.0.1' });
  } else {
    b = a.portal;
  }
  await a.portal.app.listen({ port: 0, host: '127.0.0.1' });
  a.portal.startWorkers(); // only A runs operations: every status change below is made on A
  base.a = baseOf(a.portal, a.config.API_BASE_PATH);
  base.b = baseOf(b, a.config.API_BASE_PATH);
  onA = await signIn(a);
  onB = new TestClient(b, a.config.API_BASE_PATH);
  for (const [k, v] of onA.cookies) onB.cookies.set(k, v); // the same browser session, routed to B
});

afterAll(async () => {
  if (crossInstance) {
    await b.close();
    await bDatabase?.close();
  }
  await a.close();
});

async function createVm(name: string): Promise<number> {
  const { createBody } = await seededCatalog(onA);
  const res = await onA.call(routes.vms.create, { body: createBody(name) });
  expect(res.status).toBe(200);
  return res.data.ids[0]!;
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statusOf = async (id: number) =>
  (await onA.call(routes.vms.details, { params: { id } })).data?.status as string | undefined;

/** Opens the event stream on one instance over a real socket and collects what arrives. */
async function openStream(at: string) {
  const cookie = [...onA.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${at}/virtualMachines/events`, { headers: { cookie } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const stream = { text: '', cancel: () => reader.cancel().catch(() => {}) };
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (done) return;
      stream.text += decoder.decode(value);
    }
  })();
  return stream;
}

const eventLine = (id: number, status: string) => `data: {"id":${id},"status":"${status}","deleted":false}\n`;
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe(
  crossInstance ? 'two API instances on one PostgreSQL' : 'one API instance (PGlite is one process; B is A)',
  () => {
    it('opens a console link issued on A on B once and only once, even when opened on both at the same moment', async () => {
      const id = await createVm('console-across');
      await until(async () => (await statusOf(id)) === 'Running', 'Running');

      const url = (await onA.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
      const token = new URL(url, 'http://x').searchParams.get('token')!;
      // Only a keyed hash is stored.
      const rows = await a.db.select().from(consoleTokens);
      expect(rows.some((r) => r.tokenHash === token || r.tokenHash.includes(token))).toBe(false);

      // B accepts the link. (The simulator keeps its machines in its own process, so B's simulated cloud does
      // not know the machine A's made and B then answers "Console is currently unavailable" (503) where a
      // real provider would give the console; a refused link is a 403 page saying it has expired.)
      const accepted = crossInstance ? 503 : 200;
      const first = await onB.raw('GET', url);
      expect(first.status).toBe(accepted);
      if (crossInstance) expect(first.message).toBe('Console is currently unavailable');
      else expect(first.message).toContain('console-across login:');
      const again = await onB.raw('GET', url);
      expect(again.status).toBe(403);
      expect(again.message).toContain('This console link has expired');
      expect((await onA.raw('GET', url)).status).toBe(403);

      // Four opens of one fresh link at once, two on each instance: exactly one is let through.
      const fresh = (await onA.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
      const statuses = (
        await Promise.all([onA.raw('GET', fresh), onB.raw('GET', fresh), onA.raw('GET', fresh), onB.raw('GET', fresh)])
      ).map((r) => r.status);
      expect(statuses.filter((s) => s !== 403)).toHaveLength(1);
      expect(statuses.filter((s) => s === 403)).toHaveLength(3);
      // And a link issued on A opened on A still shows the console itself.
      const local = (await onA.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
      const page = await onA.raw('GET', local);
      expect(page.status).toBe(200);
      expect(page.message).toContain('console-across login:');

      // Bound to the session: another session of the same user, on B, cannot use a link issued to this one on A.
      const other = await signIn(a);
      const otherOnB = new TestClient(b, a.config.API_BASE_PATH);
      for (const [k, v] of other.cookies) otherOnB.cookies.set(k, v);
      const stolen = (await onA.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
      expect((await otherOnB.raw('GET', stolen)).status).toBe(403);
    });

    it('delivers a status change made on A to a stream on B, and to a stream on A, exactly once each', async () => {
      const onStreamA = await openStream(base.a);
      const onStreamB = await openStream(base.b);
      const id = await createVm('events-across');
      await until(() => onStreamB.text.includes(eventLine(id, 'Running')), 'Running on B');
      await until(() => onStreamA.text.includes(eventLine(id, 'Running')), 'Running on A');

      expect((await onA.call(routes.vms.stop, { params: { id } })).status).toBe(200);
      await until(
        () => onStreamB.text.includes(eventLine(id, 'Stopped')) && onStreamA.text.includes(eventLine(id, 'Stopped')),
        'Stopped on both',
      );
      await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up, if there were one

      for (const stream of [onStreamA, onStreamB]) {
        for (const status of ['Provisioning', 'Running', 'Stopping', 'Stopped'])
          expect(count(stream.text, eventLine(id, status)), status).toBe(1);
        // In the order they happened.
        const order = ['Provisioning', 'Running', 'Stopping', 'Stopped'].map((s) =>
          stream.text.indexOf(eventLine(id, s)),
        );
        expect([...order].sort((x, y) => x - y)).toEqual(order);
      }
      await onStreamA.cancel();
      await onStreamB.cancel();
    });

    // PostgreSQL only: PGlite has no listening connection to lose, so the test exists in the api-postgres project.
    if (crossInstance)
      it('keeps relaying after the listening connections are killed', async () => {
        // The listening connections by their application name (their last query may be LISTEN or the heartbeat).
        const listeners = async () =>
          (
            await a.db.execute<{ pid: number }>(
              sql`select pid from pg_stat_activity where datname = current_database() and application_name = ${VM_EVENTS_APPLICATION_NAME}`,
            )
          ).rows.map((r) => Number(r.pid));
        const before = await listeners();
        expect(before).toHaveLength(2); // one per instance
        const onStreamB = await openStream(base.b);
        const id = await createVm('events-after-reconnect');
        await until(() => onStreamB.text.includes(eventLine(id, 'Running')), 'Running on B');

        // A notification that is not a VM event (another tool on the channel) is ignored, not fatal.
        await a.db.execute(sql`select pg_notify('vm_events', 'not json')`);
        await a.db.execute(
          sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${VM_EVENTS_APPLICATION_NAME}`,
        );
        // Both instances listen again on new connections, and neither process fell over.
        await until(async () => {
          const now = await listeners();
          return now.length === 2 && now.every((pid) => !before.includes(pid));
        }, 'both listeners back');

        expect((await onA.call(routes.vms.stop, { params: { id } })).status).toBe(200);
        await until(() => onStreamB.text.includes(eventLine(id, 'Stopped')), 'Stopped on B after the reconnect');
        expect(count(onStreamB.text, eventLine(id, 'Stopped'))).toBe(1);
        await onStreamB.cancel();
      });
  },
);

describe('the PostgreSQL relay when its database is out of reach', () => {
  it('keeps retrying with backoff and never throws into a publisher or the process', async () => {
    // A port that refuses connections.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    await new Promise((r) => server.close(r));

    const warnings: string[] = [];
    const log = {
      info: () => {},
      warn: (_: object, msg: string) => void warnings.push(msg),
      error: (_: object, msg: string) => void warnings.push(msg),
    };
    const relay = createPgVmEvents({
      pool: { query: () => Promise.reject(new Error('database is down')) } as never,
      connection: { host: '127.0.0.1', port, user: 'nobody', database: 'nothing' },
      log,
      reconnectMs: { initial: 20, max: 40 },
    });
    await relay.start(); // resolves after the first (failed) attempt
    expect(relay.listening).toBe(false);
    relay.publish({ vmId: 1, companyId: 1, teamId: null, createdByUserId: null, status: 'Running', deleted: false });
    await until(() => warnings.filter((w) => w.includes('cannot listen')).length >= 3, 'a few retries');
    expect(warnings).toContain('VM event could not be published');
    await relay.stop();
    const after = warnings.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(warnings).toHaveLength(after); // stopped: no more attempts
  });
});
