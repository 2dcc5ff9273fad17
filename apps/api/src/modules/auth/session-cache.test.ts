/**
 * The per-instance session cache: a session ended or changed anywhere is refused or seen changed everywhere
 * within a second. On api-postgres A and B are two apps on one database (each with its own pool and its own
 * `auth_changes` listener); on api-pglite (one process) "B" is A itself, which checks the in-process
 * invalidation. Changes made outside any instance (SQL, the operator command) are PostgreSQL only: they reach
 * the instances through the triggers alone.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RouteDef } from '@portal/contract/common';
import { routes } from '@portal/contract/routes';
import { buildApp, type App } from '../../app.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { createTestApp, signIn, TestClient, ADMIN, type TestApp } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { AUTH_CHANGES_APPLICATION_NAME } from './auth-changes.ts';

const crossInstance = inject('pgUrl') !== null;
const SECRET = 'test-secret-that-is-long-enough-0123456789';

let a: TestApp;
let b: App;
let bDatabase: Database | null = null;

beforeAll(async () => {
  // The default configuration: the cache is on by default (SESSION_CACHE), on PostgreSQL.
  a = await createTestApp();
  if (crossInstance) {
    const url = (a.database.pool!.options as { connectionString: string }).connectionString;
    bDatabase = await openDatabase({ databaseUrl: url, poolSize: 3 });
    b = await buildApp({ config: a.config, database: bDatabase, secret: SECRET, logger: false });
    await b.app.ready();
  } else {
    b = a.portal;
  }
});

afterAll(async () => {
  if (crossInstance) {
    await b.close();
    await bDatabase?.close();
  }
  await a.close();
});

/** What the auth check says of the caller's company administration (nothing until the code is accepted). */
async function isCompanyAdmin(client: TestClient) {
  const { data } = await client.call(routes.auth.check);
  return data.authed ? data.user.isCompanyAdmin : undefined;
}

/** The same browser session, sent to B. */
function onB(client: TestClient): TestClient {
  const other = new TestClient(b, a.config.API_BASE_PATH);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  return other;
}

/** Polls until `check` holds; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - started;
}

const status = async (client: TestClient, route: RouteDef = routes.auth.check) => (await client.call(route)).status;

describe('session cache across instances', () => {
  it('refuses on B, within a second, a session signed out on A (B had it cached)', async () => {
    const email = 'leaver@example.com';
    await createUser(a, 1, email);
    const client = await signIn(a, email, PASSWORD);
    const same = onB(client);
    // Warm B's cache with the session and the profile.
    for (let i = 0; i < 3; i++) expect(await status(same)).toBe(200);
    expect((await client.call(routes.auth.logout)).status).toBe(200);
    expect(await within(1000, async () => (await status(same)) === 401)).toBeLessThan(1000);
    // And it stays refused.
    expect(await status(same, routes.vms.list)).toBe(401);
  });

  it("ends on B, within a second, a user's other sessions when the password changes on A", async () => {
    const email = 'changer@example.com';
    await createUser(a, 1, email);
    const first = await signIn(a, email, PASSWORD);
    const second = await signIn(a, email, PASSWORD);
    const secondOnB = onB(second);
    expect(await status(secondOnB)).toBe(200);
    const changed = await first.call(routes.password.updatePassword, {
      body: { currentPassword: PASSWORD, password: 'Another-Password-2!' },
    });
    expect(changed.status).toBe(200);
    await within(1000, async () => (await status(secondOnB)) === 401);
    // The session that changed the password goes on, here and on B.
    expect(await status(first)).toBe(200);
    expect(await status(onB(first))).toBe(200);
  });

  it('refuses at once, on the instance that did it, the session of a deleted user', async () => {
    const victim = await createUser(a, 1, 'deleted@example.com');
    const victimClient = await signIn(a, victim.email, PASSWORD);
    expect(await status(victimClient)).toBe(200);
    const admin = await signIn(a, ADMIN.email, ADMIN.password);
    expect((await admin.call(routes.users.delete, { params: { id: victim.id } })).status).toBe(200);
    expect(await status(victimClient)).toBe(401);
    await within(1000, async () => (await status(onB(victimClient))) === 401);
  });

  if (crossInstance) {
    it('is on with the defaults: B answers a warm session while the sessions table is locked', async () => {
      const email = 'warm@example.com';
      await createUser(a, 1, email);
      const same = onB(await signIn(a, email, PASSWORD));
      // The sign-in's own writes (the pre-code session deleted, the user's code failures reset) reach B as
      // auth_changes notifications; on a loaded machine they can land after the warming calls and forget what they
      // cached. Let them arrive first: this test is about a warm cache, not about the notifications' latency.
      await new Promise((r) => setTimeout(r, 1000));
      for (let i = 0; i < 2; i++) expect(await status(same)).toBe(200);
      const url = (a.database.pool!.options as { connectionString: string }).connectionString;
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      try {
        await locker.query('begin');
        await locker.query('lock table sessions in access exclusive mode');
        const started = Date.now();
        const answered = status(same).then((s) => [s, Date.now() - started] as const);
        // Without the cache the call waits for the lock, which goes after 3 s.
        const [s, tookMs] = await Promise.race([
          answered,
          new Promise<readonly [number, number]>((r) => setTimeout(() => r([0, 3000]), 3000)),
        ]);
        await locker.query('rollback');
        await answered;
        expect([s, tookMs < 1000]).toEqual([200, true]);
      } finally {
        await locker.end();
      }
    });

    it('follows changes made outside any instance: a forced password reset and a revoked company administration', async () => {
      const email = 'outsider@example.com';
      await createUser(a, 1, email, { isCompanyAdmin: true });
      const client = await signIn(a, email, PASSWORD);
      const same = onB(client);
      expect(await isCompanyAdmin(same)).toBe(true);
      expect(await status(same, routes.vms.list)).toBe(200);

      // The operator command, in its own connection.
      const { runOperatorCommand } = await import('../../cli/operator.ts');
      const url = (a.database.pool!.options as { connectionString: string }).connectionString;
      await runOperatorCommand(['company-admin', 'revoke', email], {
        DATABASE_URL: url,
        LOG_LEVEL: 'silent',
        SESSION_SECRET: SECRET,
      });
      await within(1000, async () => (await isCompanyAdmin(same)) === false);

      // Straight SQL, as an operator might.
      await a.db.execute(sql`update users set force_password_reset = true where email = ${email}`);
      await within(1000, async () => (await status(same, routes.vms.list)) === 403);
      expect(await status(client, routes.vms.list)).toBe(403);
    });

    it('stops caching while its listening connection is down, and picks up again', async () => {
      const email = 'blip@example.com';
      await createUser(a, 1, email);
      const client = await signIn(a, email, PASSWORD);
      const same = onB(client);
      expect(await status(same)).toBe(200);
      await a.db.execute(
        sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${AUTH_CHANGES_APPLICATION_NAME}`,
      );
      // While nobody listens, a session deleted behind the instances' backs is refused all the same.
      await a.db.execute(sql`delete from sessions where user_id = (select id from users where email = ${email})`);
      await within(1000, async () => (await status(same)) === 401);
      // The listeners come back (backoff starts at half a second) and invalidation works again.
      await within(10_000, async () => {
        const rows = await a.db.execute(
          sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = ${AUTH_CHANGES_APPLICATION_NAME}`,
        );
        return (rows.rows[0] as { n: number }).n === 2;
      });
      const again = await signIn(a, email, PASSWORD);
      const againOnB = onB(again);
      expect(await status(againOnB)).toBe(200);
      expect((await again.call(routes.auth.logout)).status).toBe(200);
      await within(1000, async () => (await status(againOnB)) === 401);
    });
  }
});
