/** The served shell: portal under BASE_PATH with SPA fallback, API 404s, headers, and the OpenAPI docs. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import { renderIndexHtml } from './static-web.ts';

const dist = mkdtempSync(join(tmpdir(), 'portal-dist-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(
  join(dist, 'index.html'),
  '<!doctype html><html><head><!--PORTAL_CONFIG--></head><body><div id="root"></div></body></html>',
);
writeFileSync(join(dist, 'assets', 'app-123.js'), 'console.log(1)');

let portal: App;
let database: Database;

beforeAll(async () => {
  database = await openDatabase({ dataDir: 'memory://' });
  portal = await buildApp({
    config: loadConfig({ BASE_PATH: '/portal', API_BASE_PATH: '/irontech/api/v1', LOG_LEVEL: 'silent' }),
    database,
    secret: 'test-secret-that-is-long-enough-0123456789',
    logger: false,
    webDistDir: dist,
  });
});
afterAll(async () => {
  await portal.close();
  await database.close();
});

describe('portal under a base path', () => {
  it('serves index.html with the runtime config for every portal route', async () => {
    for (const url of ['/portal', '/portal/', '/portal/virtualMachineDetails/5', '/portal/team?id=3']) {
      const res = await portal.app.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('<base href="/portal/">');
      expect(res.body).toContain('&quot;apiBasePath&quot;:&quot;/irontech/api/v1&quot;');
    }
  });

  it('serves assets and answers 404 for missing files and unknown API paths', async () => {
    const asset = await portal.app.inject({ url: '/portal/assets/app-123.js' });
    expect(asset.statusCode).toBe(200);
    expect((await portal.app.inject({ url: '/portal/assets/missing.js' })).statusCode).toBe(404);
    const api = await portal.app.inject({ url: '/irontech/api/v1/no/such/route' });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ message: 'Route not found' });
  });

  it("sets the CSRF cookie with the page, before any script runs, and keeps a browser's own", async () => {
    // A fresh browser: the page brings the cookie the first write echoes (a page that writes at once raced the first
    // API answers for it before; session 23).
    const fresh = await portal.app.inject({ url: '/portal/auth/oidc/callback?code=x&state=y' });
    const cookie = fresh.cookies.find((c) => c.name === 'csrf_token');
    expect(cookie).toMatchObject({ path: '/', sameSite: 'Strict' });
    expect(cookie?.httpOnly).toBeFalsy();
    expect(cookie!.value).toMatch(/^[0-9a-f]{32}$/);
    // A write with it passes the CSRF check (and is then refused for what it is: no single sign-on under way).
    const write = await portal.app.inject({
      method: 'POST',
      url: '/irontech/api/v1/auth/oidc/callback',
      headers: { cookie: `csrf_token=${cookie!.value}`, 'x-csrf-token': cookie!.value },
      payload: { query: '?code=x&state=y' },
    });
    expect(write.json().message).not.toBe('Missing or invalid CSRF token');
    // A browser that has one keeps it: no cookie is sent again, neither with the page nor with an asset.
    const again = await portal.app.inject({ url: '/portal/', headers: { cookie: `csrf_token=${cookie!.value}` } });
    expect(again.cookies.find((c) => c.name === 'csrf_token')).toBeUndefined();
    const asset = await portal.app.inject({ url: '/portal/assets/app-123.js' });
    expect(asset.cookies.find((c) => c.name === 'csrf_token')).toBeUndefined();
  });

  it('sends security headers and a request id', async () => {
    const res = await portal.app.inject({ url: '/portal/' });
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('escapes the injected config', () => {
    const html = renderIndexHtml('<head><!--PORTAL_CONFIG--></head>', { basePath: "/a'<b>", apiBasePath: '/api' });
    expect(html).not.toContain('<b>');
    expect(html).not.toMatch(/content='[^']*'[^>]*'/);
  });
});

describe('OpenAPI', () => {
  it('publishes the document generated from the contract and a docs page', async () => {
    const doc = (await portal.app.inject({ url: '/irontech/api/v1/docs/json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    const login = doc.paths['/irontech/api/v1/auth/login'].post;
    expect(login.requestBody.content['application/json'].schema.required).toEqual(['email', 'password']);
    expect(Object.keys(login.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    const page = await portal.app.inject({ url: '/irontech/api/v1/docs' });
    expect([200, 302]).toContain(page.statusCode);
  });
});

describe('server errors', () => {
  it('answers 500 without internals when the database fails mid-request', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    const broken = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      database: db,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: false,
      webDistDir: dist,
    });
    await db.close();
    try {
      const res = await broken.app.inject({
        method: 'POST',
        url: '/irontech/api/v1/auth/login',
        headers: {
          'content-type': 'application/json',
          cookie: 'csrf_token=0123456789abcdef0123',
          'x-csrf-token': '0123456789abcdef0123',
        },
        payload: JSON.stringify({ email: 'a@example.com', password: 'x' }),
      });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body.message).toBe('Something went wrong. Please try again later.');
      expect(JSON.stringify(body)).not.toMatch(/pglite|closed|stack|\.ts/i);
      expect(body.data.requestId).toBe(res.headers['x-request-id']);
    } finally {
      await broken.close();
    }
  });
});
