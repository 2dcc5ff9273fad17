/**
 * A fetch for small requests made on a tenant's behalf (an identity provider's discovery, keys and token
 * endpoints): every connection passes the egress policy (lib/egress.ts) at connect time, redirects are not
 * followed, the answer is bounded in size and time. node:http(s) with the policy's `lookup`, like the billing
 * webhook (modules/billing/webhook-post.ts): Node's own fetch takes no per-request lookup without undici.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { EgressPolicy } from './egress.ts';

export interface EgressFetchOptions {
  /** The whole request, connect included. */
  timeoutMs?: number;
  /** Answers larger than this are cut off with an error. */
  maxBytes?: number;
}

export type EgressFetch = (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal | undefined },
) => Promise<Response>;

export function createEgressFetch(egress: EgressPolicy, opts: EgressFetchOptions = {}): EgressFetch {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? 1024 * 1024;
  return async (rawUrl, init) => {
    const url = new URL(rawUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('unsupported protocol');
    // Literal addresses never reach `lookup` (net.connect skips it): judged here. Names are judged at connect.
    if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) await egress.resolveAllowed(url.hostname);
    const body = bodyOf(init.body);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        req.destroy();
        reject(err instanceof Error ? err : new Error(String(err)));
      };
      const req = request(url, {
        method: init.method ?? 'GET',
        agent: false,
        lookup: egress.lookup,
        headers: { ...init.headers, ...(body !== undefined ? { 'content-length': String(body.length) } : {}) },
        ...(init.signal ? { signal: init.signal } : {}),
      });
      const timer = setTimeout(() => fail(new Error('timed out')), timeoutMs);
      req.on('error', fail);
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) fail(new Error('answer too large'));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (Array.isArray(v)) for (const one of v) headers.append(k, one);
            else if (v !== undefined) headers.set(k, v);
          }
          const status = res.statusCode ?? 502;
          const nullBody = status === 204 || status === 304;
          resolve(new Response(nullBody ? null : Buffer.concat(chunks), { status, headers }));
        });
      });
      req.end(body);
    });
  };
}

function bodyOf(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new TypeError('unsupported request body');
}
