/** The security headers, exactly as @fastify/helmet sent them before they were computed once (ADR 0003). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';

const EXPECTED = {
  'content-security-policy':
    "default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data: https:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' 'unsafe-inline';connect-src 'self';frame-src 'self'",
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
const HSTS = 'max-age=31536000; includeSubDomains';

const apps: { plain?: App; secure?: App } = {};
const databases: Database[] = [];
async function appFor(publicUrl: string): Promise<App> {
  const database = await openDatabase({ dataDir: 'memory://' });
  databases.push(database);
  return buildApp({
    config: loadConfig({ LOG_LEVEL: 'silent', PUBLIC_URL: publicUrl }),
    database,
    secret: 'test-secret-that-is-long-enough-0123456789',
    logger: false,
    webDistDir: '/nonexistent',
  });
}
beforeAll(async () => {
  apps.plain = await appFor('http://portal.test');
  apps.secure = await appFor('https://portal.test');
});
afterAll(async () => {
  await apps.plain?.close();
  await apps.secure?.close();
  for (const d of databases) await d.close();
});

describe('security headers', () => {
  it('sends the same set on every answer, with HSTS only behind https', async () => {
    for (const url of ['/irontech/api/v1/auth/check', '/irontech/api/v1/no/such/route', '/']) {
      const plain = (await apps.plain!.app.inject({ url })).headers;
      expect(plain, url).toMatchObject(EXPECTED);
      expect(plain['strict-transport-security'], url).toBeUndefined();
    }
    const secure = (await apps.secure!.app.inject({ url: '/irontech/api/v1/auth/check' })).headers;
    expect(secure).toMatchObject({ ...EXPECTED, 'strict-transport-security': HSTS });
  });
});
