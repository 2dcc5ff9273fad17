/**
 * Builds the real app for a test file: on a fresh PGlite database, or on a fresh database of the
 * throwaway PostgreSQL cluster when the suite runs in the `api-postgres` project; mail goes to a real
 * SMTP peer. Nothing of our own server or database is mocked.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import type { z } from 'zod';
import type { ErrorBody, RouteData } from '@portal/contract/common';
import { buildRoute, type RouteDef } from './route-call.ts';
import { buildApp, type App } from '../src/app.ts';
import type { Resolver } from '../src/lib/egress.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type Database, type Db } from '../src/db/client.ts';
import type { Clock } from '../src/lib/clock.ts';
import { seedReferenceData } from '../src/seed/seed.ts';
import { ADMIN, databaseUrl, seedTestTenant } from './database-templates.ts';
import { loggingDatabases, noteDatabase } from './database-log.ts';
import { testSideDb } from './test-side-db.ts';
import { startSmtpCatcher, type SmtpCatcher } from './smtp-catcher.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string | null;
  }
}

export { ADMIN };

export interface TestApp {
  portal: App;
  db: Db;
  database: Database;
  smtp: SmtpCatcher;
  config: Config;
  client(): TestClient;
  close(): Promise<void>;
}

/**
 * The file's database, copied from the run's template (`seeded`: migrated, reference data, the demo tenant; else
 * migrated only) when the project's global setup made one (database-templates.ts), else migrated here. `seeded`
 * tells whether the copy is seeded already.
 */
async function openTestDatabase(
  template: 'seeded' | 'migrated',
): Promise<{ database: Database; testDb?: Db; seeded: boolean; drop: () => Promise<void> }> {
  const pgUrl = inject('pgUrl');
  const templates = inject('databaseTemplates');
  if (!pgUrl) {
    const snapshot = templates?.pglite?.[template];
    const database = await openDatabase({
      dataDir: 'memory://',
      ...(snapshot ? { loadDataDir: new Blob([readFileSync(snapshot)]) } : {}),
    });
    return { database, seeded: !!snapshot && template === 'seeded', drop: async () => {} };
  }
  const name = `t_${randomBytes(6).toString('hex')}`;
  const from = templates?.postgres?.[template];
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}${from ? ` template ${from}` : ''}`);
  await admin.end();
  noteDatabase(name);
  const url = databaseUrl(pgUrl, name);
  const database = await openDatabase({ databaseUrl: url, poolSize: 5 });
  // Measuring the PGlite set: the test's own statements named in the statement log (test-side-db.ts).
  const testSide = loggingDatabases() ? testSideDb(url) : undefined;
  return {
    database,
    ...(testSide ? { testDb: testSide.db } : {}),
    seeded: !!from && template === 'seeded',
    drop: async () => {
      await testSide?.end();
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export async function createTestApp(
  opts: { env?: Record<string, string>; clock?: Clock; seed?: boolean; resolver?: Resolver } = {},
): Promise<TestApp> {
  const smtp = await startSmtpCatcher();
  const { database, testDb, seeded, drop } = await openTestDatabase(opts.seed === false ? 'migrated' : 'seeded');
  const config = loadConfig({
    PUBLIC_URL: 'http://portal.test',
    SMTP_URL: smtp.url,
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  if (opts.seed === false) await seedReferenceData(database.db);
  else if (!seeded) await seedTestTenant(database.db);
  const portal = await buildApp({
    config,
    database,
    secret: 'test-secret-that-is-long-enough-0123456789',
    logger: false,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
  });
  await portal.app.ready();
  return {
    portal,
    db: testDb ?? database.db,
    database,
    smtp,
    config,
    client: () => new TestClient(portal, config.API_BASE_PATH),
    async close() {
      await portal.close();
      await smtp.close();
      await database.close();
      await drop();
    },
  };
}

/** Path parameters and query as the route declares them (loosely: tests also send values the server must refuse). */
export interface CallInput<R extends RouteDef> {
  params?: R['params'] extends z.ZodType
    ? { [K in keyof z.input<R['params']>]: string | number }
    : Record<string, string | number>;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Extra request headers (an operator token, say). */
  headers?: Record<string, string>;
}

/** The data of an error answer (`{ requestId, issues }`), whatever the route answers on success. */
export function errorData(res: CallResult<unknown>): ErrorBody['data'] {
  return res.data as ErrorBody['data'];
}

export interface CallResult<T = unknown> {
  status: number;
  message: string;
  data: T;
  headers: Record<string, string | string[] | number | undefined>;
}

/** A browser-like client: keeps cookies and echoes the CSRF cookie in the header, like the portal. */
export class TestClient {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly portal: App,
    private readonly apiBase: string,
  ) {}

  /**
   * Calls a contract route. `data` is typed from the route's `data` schema: that is its shape on a 200;
   * on an error answer it holds the error's data (`{ requestId, issues }` or null), so check `status` first.
   * Input stays loose on purpose: tests send bad input to see it refused.
   */
  async call<R extends RouteDef>(route: R, input: CallInput<R> = {}): Promise<CallResult<RouteData<R>>> {
    const { url } = buildRoute(route, input.params, input.query);
    return this.raw<RouteData<R>>(route.method, `${this.apiBase}${url}`, input.body, input.headers);
  }

  /** A call to a URL outside the route table (or with a hand-made body); `T` is what the test expects in `data`. */
  async raw<T = unknown>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<CallResult<T>> {
    if (!this.cookies.has('csrf_token')) this.cookies.set('csrf_token', randomBytes(16).toString('hex'));
    const unsafe = method !== 'GET' && method !== 'HEAD';
    // Like the portal, a bodiless write sends `{}`.
    const payload =
      body === undefined ? (unsafe ? '{}' : undefined) : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await this.portal.app.inject({
      method: method as 'GET',
      url,
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(unsafe ? { 'x-csrf-token': this.cookies.get('csrf_token')! } : {}),
        ...(unsafe && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(payload !== undefined ? { payload } : {}),
    });
    for (const c of res.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    let parsed: { message?: string; data?: unknown };
    try {
      parsed = res.json();
    } catch {
      parsed = { message: res.body };
    }
    // The server's answer, as the route's schema describes it (the contract is what the server validated it against).
    return { status: res.statusCode, message: parsed.message ?? '', data: parsed.data as T, headers: res.headers };
  }
}

/** Signs in through password + the mailed code; returns the signed-in client. */
export async function signIn(
  t: TestApp,
  email: string = ADMIN.email,
  password: string = ADMIN.password,
  rememberMe = false,
): Promise<TestClient> {
  const { routes } = await import('@portal/contract/routes');
  const { codeFrom } = await import('./smtp-catcher.ts');
  const client = t.client();
  const before = t.smtp.messages.length;
  const login = await client.call(routes.auth.login, { body: { email, password, rememberMe } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.message}`);
  const mail = await t.smtp.waitFor(
    email,
    (m) => t.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
  );
  const mfa = await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } });
  if (mfa.status !== 200) throw new Error(`mfa failed: ${mfa.status} ${mfa.message}`);
  return client;
}
