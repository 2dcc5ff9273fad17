/**
 * While PostgreSQL cannot be reached every route answers 503 with a clear message and Retry-After, not
 * 500; once it is back the next request succeeds without a restart (issue 9 item 13). The outage is
 * real: the app reaches the cluster through a TCP relay that the test cuts (existing connections are
 * dropped, new ones refused) and restores. PostgreSQL only (PGlite runs in-process).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { API_MESSAGES } from '@portal/contract/messages';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { seedDemoTenant, seedReferenceData } from '../seed/seed.ts';
import { ADMIN, TestClient } from '../../test/harness.ts';
import { startSmtpCatcher, codeFrom, type SmtpCatcher } from '../../test/smtp-catcher.ts';
import { startRelay, type Relay } from '../../test/tcp-relay.ts';

const pgUrl = inject('pgUrl');

describe.skipIf(!pgUrl)('PostgreSQL outage', () => {
  let relay: Relay;
  let database: Database;
  let portal: App;
  let smtp: SmtpCatcher;
  let dbName: string;

  beforeAll(async () => {
    dbName = `o_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: pgUrl! });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const direct = new URL(pgUrl!.replace(/\/postgres$/, `/${dbName}`));
    relay = await startRelay(direct);
    const viaRelay = new URL(direct);
    viaRelay.port = String(relay.port);
    database = await openDatabase({ databaseUrl: viaRelay.toString(), poolSize: 4, onIdleError: () => {} });
    await seedReferenceData(database.db);
    await seedDemoTenant(database.db, { adminEmail: ADMIN.email, adminPassword: ADMIN.password });
    smtp = await startSmtpCatcher();
    portal = await buildApp({
      config: loadConfig({
        SMTP_URL: smtp.url,
        LOG_LEVEL: 'silent',
        AUTH_RATE_LIMIT_PER_MINUTE: '1000',
        PUBLIC_URL: 'http://portal.test',
      }),
      database,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: false,
      webDistDir: '/nonexistent',
    });
    await portal.app.ready();
  });
  afterAll(async () => {
    relay.down = false;
    await portal?.close();
    await database?.close();
    await smtp?.close();
    await relay?.close();
    const c = new pg.Client({ connectionString: pgUrl! });
    await c.connect();
    await c.query(`drop database if exists ${dbName} with (force)`);
    await c.end();
  });

  it('answers 503 with Retry-After while it is down, and recovers without a restart', async () => {
    const client = new TestClient(portal, '/irontech/api/v1');
    expect(
      (await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } })).status,
    ).toBe(200);
    const mail = await smtp.waitFor(ADMIN.email);
    expect((await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } })).status).toBe(200);
    expect((await client.call(routes.password.me)).status).toBe(200);

    relay.cut();
    const answers = [
      await client.call(routes.password.me),
      await client.call(routes.teams.list, { query: {} }),
      await new TestClient(portal, '/irontech/api/v1').call(routes.auth.login, {
        body: { email: ADMIN.email, password: ADMIN.password },
      }),
      await client.call(routes.password.forgotPassword, { body: { email: 'x@example.com' } }),
    ];
    for (const res of answers.slice(0, 3)) {
      expect(res.status).toBe(503);
      expect(res.message).toBe(API_MESSAGES.databaseUnavailable);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }

    relay.down = false;
    const back = Date.now();
    let res = await client.call(routes.password.me);
    while (res.status !== 200 && Date.now() - back < 5000) res = await client.call(routes.password.me);
    expect(res.status).toBe(200);
    expect(Date.now() - back).toBeLessThan(1000);
  });
});
