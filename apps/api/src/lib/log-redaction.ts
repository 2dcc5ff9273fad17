/**
 * What the request log may say of a URL (issue 21): links carry secrets — the console's single-use `token`, the
 * mailed `/resetPassword?token=…` and `/confirmNewUser?token=…` keys when the page is loaded — and a log is read by
 * more people, for longer, than the link was meant for. Their values become `[redacted]`; so does a path segment
 * that looks like a key (none of our routes has one today: a safety net for a future link or a mistyped one).
 */
import type { FastifyRequest } from 'fastify';

export const REDACTED = '[redacted]';

/** Query parameters whose value is a credential, compared case-insensitively. */
const SECRET_PARAMS = new Set([
  'token',
  'key',
  'resetkey',
  'code',
  'secret',
  'password',
  'signature',
  'sig',
  'access_token',
  'refresh_token',
  'api_key',
  'apikey',
]);
/** A path segment of 24 or more key characters and no dot (asset names have one): a token, not a name. */
const KEY_SEGMENT = /^[A-Za-z0-9_~-]{24,}$/;

export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutHash = hash >= 0 ? url.slice(0, hash) : url;
  const q = withoutHash.indexOf('?');
  const path = q >= 0 ? withoutHash.slice(0, q) : withoutHash;
  const safePath = path
    .split('/')
    .map((segment) => (KEY_SEGMENT.test(segment) ? REDACTED : segment))
    .join('/');
  if (q < 0) return safePath;
  const query = withoutHash
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: compare the raw name
      }
      return SECRET_PARAMS.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${safePath}?${query}`;
}

/** Fastify's request serializer (same fields as its default) with the URL redacted. */
export function serializeRequest(req: Pick<FastifyRequest, 'method' | 'url' | 'headers' | 'host' | 'ip' | 'socket'>) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers['accept-version']?.toString(),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
