/**
 * One webhook POST through the egress policy (issue 21): the URL's host is checked before connecting and its name
 * resolved again at connect time by the policy's lookup (a name that now resolves to 127.0.0.1 is refused), with a
 * short connect timeout apart from the answer's. node:http(s) rather than fetch: it takes `lookup` per request and
 * needs no extra dependency. What is recorded is a failure class, never the socket's error: the delivery log is read
 * by support staff and must not tell which ports and services answer where.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { EgressPolicy } from '../../lib/egress.ts';
import { EgressRefusedError } from '../../lib/egress.ts';

export const POST_FAILURES = {
  refused: "Refused by the portal's network policy",
  connect: 'Could not connect',
  timeout: 'Timed out',
} as const;

export interface PostResult {
  statusCode: number | null;
  /** null when delivered (2xx); otherwise the class shown in the delivery log. */
  failure: string | null;
  /** The underlying error, for the server log only. */
  cause?: unknown;
}

export interface PostOptions {
  egress: EgressPolicy;
  connectTimeoutMs: number;
  /** The whole attempt, connect included. */
  timeoutMs: number;
  headers: Record<string, string>;
  /** Aborts the attempt (the worker stopping); the result then says so and is not recorded. */
  signal?: AbortSignal;
}

class PostTimeout extends Error {
  constructor(readonly phase: 'connect' | 'answer') {
    super(`${phase} timeout`);
  }
}

export async function postWebhook(rawUrl: string, body: string, opts: PostOptions): Promise<PostResult> {
  const url = new URL(rawUrl);
  // Literal addresses never reach `lookup` (net.connect skips it), so they are judged here; a name is resolved and
  // judged once, by the policy's lookup at connect time.
  if (isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0) {
    try {
      await opts.egress.resolveAllowed(url.hostname);
    } catch (err) {
      return { statusCode: null, failure: refusedOrConnect(err), cause: err };
    }
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const req = request(url, {
      method: 'POST',
      agent: false,
      lookup: opts.egress.lookup,
      headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const connectTimer = setTimeout(() => req.destroy(new PostTimeout('connect')), opts.connectTimeoutMs);
    const totalTimer = setTimeout(() => req.destroy(new PostTimeout('answer')), opts.timeoutMs);
    const onAbort = () => req.destroy(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('aborted'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('response', (res: IncomingMessage) => {
      res.resume(); // the answer's body is not read, only drained
      const code = res.statusCode ?? 0;
      const failure =
        code >= 200 && code < 300
          ? null
          : code >= 300 && code < 400
            ? `Redirects are not followed (HTTP ${code})`
            : `HTTP ${code}`;
      finish({ statusCode: code, failure });
      req.destroy();
    });
    req.on('error', (err) => {
      const failure =
        err instanceof PostTimeout
          ? err.phase === 'connect'
            ? POST_FAILURES.connect
            : POST_FAILURES.timeout
          : refusedOrConnect(err);
      finish({ statusCode: null, failure, cause: err });
    });
    req.end(body);
  });
}

/** A refusal by the policy says so; every other failure to reach the receiver is one class. */
function refusedOrConnect(err: unknown): string {
  return err instanceof EgressRefusedError && err.reason !== 'unresolved'
    ? POST_FAILURES.refused
    : POST_FAILURES.connect;
}
