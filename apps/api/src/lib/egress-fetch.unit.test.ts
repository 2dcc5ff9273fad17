/**
 * The fetch an identity provider's requests go through (lib/egress-fetch.ts): the egress rule decides at connect
 * time (a literal address and a name alike), redirects come back as answers and are never followed, and an answer
 * larger than the bound is cut off.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressFetch } from './egress-fetch.ts';
import { createEgressPolicy, EgressRefusedError } from './egress.ts';

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(4096));
    } else {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ method: req.method, body, type: req.headers['content-type'] ?? null })),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const allowLoopback = createEgressPolicy({
  allow: ['127.0.0.1/32'],
  lookup: async () => [{ address: '127.0.0.1', family: 4 }],
});

describe('egress fetch', () => {
  it('refuses loopback without the operator allowing it, by address and by name', async () => {
    const strict = createEgressFetch(createEgressPolicy({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] }));
    await expect(strict(`http://127.0.0.1:${port}/`, {})).rejects.toBeInstanceOf(EgressRefusedError);
    await expect(strict(`http://idp.example.com:${port}/`, {})).rejects.toBeInstanceOf(EgressRefusedError);
  });

  it('sends the request and answers a Response when allowed', async () => {
    const f = createEgressFetch(allowLoopback);
    const res = await f(`http://idp.example.com:${port}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'abc' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      method: 'POST',
      body: 'grant_type=authorization_code&code=abc',
      type: 'application/x-www-form-urlencoded',
    });
  });

  it('answers a redirect as it is, never following it', async () => {
    const res = await createEgressFetch(allowLoopback)(`http://127.0.0.1:${port}/redirect`, {});
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://169.254.169.254/latest/meta-data/');
  });

  it('cuts off an answer larger than its bound', async () => {
    const f = createEgressFetch(allowLoopback, { maxBytes: 1024 });
    await expect(f(`http://127.0.0.1:${port}/big`, {})).rejects.toThrow(/too large/);
  });
});
