/**
 * The security headers: documents get exactly what @fastify/helmet sent before they were computed once (ADR 0003);
 * API answers get OWASP's REST set (ADR 0008).
 */
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
const API_EXPECTED = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
/** Helmet's document-only headers, which do nothing on JSON. */
const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

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
  it("sends helmet's set on documents and OWASP's REST set on API answers, with HSTS only behind https", async () => {
    for (const url of ['/', '/login', '/irontech/api/v1/docs']) {
      const plain = (await apps.plain!.app.inject({ url })).headers;
      expect(plain, url).toMatchObject(EXPECTED);
      expect(plain['strict-transport-security'], url).toBeUndefined();
    }
    for (const url of ['/irontech/api/v1/auth/check', '/irontech/api/v1/no/such/route']) {
      const plain = (await apps.plain!.app.inject({ url })).headers;
      expect(plain, url).toMatchObject(API_EXPECTED);
      for (const name of [...DOCUMENT_ONLY, 'strict-transport-security'])
        expect(plain[name], `${url} ${name}`).toBeUndefined();
    }
    const secureDocument = (await apps.secure!.app.inject({ url: '/' })).headers;
    expect(secureDocument).toMatchObject({ ...EXPECTED, 'strict-transport-security': HSTS });
    const secureApi = (await apps.secure!.app.inject({ url: '/irontech/api/v1/auth/check' })).headers;
    expect(secureApi).toMatchObject({ ...API_EXPECTED, 'strict-transport-security': HSTS });
  });
});
