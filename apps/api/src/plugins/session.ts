/**
 * Reads the session cookie into `request.auth`, defends cookie-authenticated writes against CSRF
 * (double-submit token + Origin check, on top of SameSite cookies), and recognises operator tokens.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_MESSAGES } from '@portal/contract/messages';
import { API_TOKEN_PREFIX as PERSONAL_TOKEN_PREFIX, API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../lib/errors.ts';
import { requestTokens } from '../lib/audit.ts';
import { safeEqual } from '../lib/crypto.ts';
import type { AuthContext } from '../lib/auth-context.ts';

export const SESSION_COOKIE = 'sid';
export const CSRF_COOKIE = 'csrf_token';
export const CSRF_HEADER = 'x-csrf-token';

/** What the plugin needs of the auth module's stores (declared here, so plugins/ imports nothing from modules/). */
export interface SessionResolver {
  resolve(token: string): Promise<AuthContext | null>;
}
export interface OperatorTokenVerifier {
  /** The token's id when it is valid, else null. */
  verify(token: string): Promise<number | null>;
}

/** Personal API tokens (docs/api-tokens.md): a `vmp_` bearer as its user, or why it is refused. */
export interface PersonalTokenVerifier {
  resolve(secret: string, ip: string): Promise<{ auth: AuthContext } | { refused: 'invalid' | 'address' }>;
}

export interface SessionPluginOptions {
  sessions: SessionResolver;
  operatorTokens: OperatorTokenVerifier;
  personalTokens?: PersonalTokenVerifier;
  /** Failed bearer checks allowed per client address and minute before every bearer call answers 429. */
  bearerFailuresPerMinute?: number;
  cookieSecure: boolean;
  apiBasePath: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const TOKEN_INVALID = API_TOKEN_TEXT.invalid;
const TOKEN_ADDRESS_REFUSED = API_TOKEN_TEXT.addressRefused;

export function registerSession(app: FastifyInstance, opts: SessionPluginOptions): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('operatorTokenId', null);

  const failures = createFailureCounter(opts.bearerFailuresPerMinute ?? 30);
  // The audit's note of the token acting in a request ends with the request.
  app.addHook('onResponse', async (request) => {
    if (request.auth?.token) requestTokens.clear(request.id);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isApiRequest(request, opts.apiBasePath)) return;
    const bearer = bearerToken(request);
    if (bearer !== undefined) {
      // Token callers are machines: cookies are ignored, so CSRF cannot apply.
      if (failures.blocked(request.ip)) throw new TooManyRequestsError();
      if (opts.personalTokens && bearer.startsWith(PERSONAL_TOKEN_PREFIX)) {
        const result = await opts.personalTokens.resolve(bearer, request.ip);
        if ('refused' in result) {
          failures.add(request.ip);
          if (result.refused === 'address') throw new ForbiddenError(TOKEN_ADDRESS_REFUSED);
          throw new UnauthorizedError(TOKEN_INVALID);
        }
        request.auth = result.auth;
        const token = result.auth.token;
        if (token) requestTokens.set(request.id, { id: token.id, name: token.name });
        return;
      }
      request.operatorTokenId = await opts.operatorTokens.verify(bearer);
      if (request.operatorTokenId === null) failures.add(request.ip);
      return;
    }
    ensureCsrfCookie(request, reply, opts.cookieSecure);
    if (!SAFE_METHODS.has(request.method)) checkCsrf(request);
    const token = request.cookies[SESSION_COOKIE];
    if (token) request.auth = await opts.sessions.resolve(token);
  });
}

/** Failed bearer checks per client address in the current minute (per instance). */
function createFailureCounter(max: number) {
  let windowStart = Date.now();
  let counts = new Map<string, number>();
  const roll = () => {
    if (Date.now() - windowStart >= 60_000) {
      windowStart = Date.now();
      counts = new Map();
    }
  };
  return {
    blocked(ip: string): boolean {
      roll();
      return (counts.get(ip) ?? 0) >= max;
    },
    add(ip: string): void {
      roll();
      if (counts.size > 100_000) counts.clear();
      counts.set(ip, (counts.get(ip) ?? 0) + 1);
    },
  };
}

function isApiRequest(request: FastifyRequest, apiBasePath: string): boolean {
  return request.url === apiBasePath || request.url.startsWith(`${apiBasePath}/`);
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match?.[1]?.trim() ?? '';
}

/**
 * Sets the double-submit CSRF cookie when the request has none. The portal's page (plugins/static-web.ts) sets it too,
 * so it exists before any of the page's script runs: otherwise a page that writes at once in a fresh browser (the
 * single sign-on callback) raced the first API answers, each setting a cookie of its own over the one the script made
 * and sent in its header, and was refused "Missing or invalid CSRF token" (seen under load, session 23).
 */
export function ensureCsrfCookie(request: FastifyRequest, reply: FastifyReply, secure: boolean): void {
  if (request.cookies[CSRF_COOKIE]) return;
  const value = crypto.randomUUID().replace(/-/g, '');
  // Readable by the portal's script (not HttpOnly) so it can echo it in the header.
  reply.setCookie(CSRF_COOKIE, value, { path: '/', sameSite: 'strict', secure, httpOnly: false });
}

function checkCsrf(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin && origin !== 'null') {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw new ForbiddenError(API_MESSAGES.csrf);
    }
    if (host !== request.headers.host) throw new ForbiddenError(API_MESSAGES.csrf);
  }
  const cookie = request.cookies[CSRF_COOKIE];
  const header = request.headers[CSRF_HEADER];
  if (!cookie || typeof header !== 'string' || cookie.length < 16 || !safeEqual(cookie, header)) {
    throw new ForbiddenError(API_MESSAGES.csrf);
  }
}
