/**
 * Reads the session cookie into `request.auth`, defends cookie-authenticated writes against CSRF
 * (double-submit token + Origin check, on top of SameSite cookies), and recognises operator tokens.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_MESSAGES } from '@portal/contract/messages';
import { ForbiddenError } from '../lib/errors.ts';
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

export interface SessionPluginOptions {
  sessions: SessionResolver;
  operatorTokens: OperatorTokenVerifier;
  cookieSecure: boolean;
  apiBasePath: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerSession(app: FastifyInstance, opts: SessionPluginOptions): void {
  app.decorateRequest('auth', null);
  app.decorateRequest('operatorTokenId', null);

  app.addHook('onRequest', async (request, reply) => {
    if (!isApiRequest(request, opts.apiBasePath)) return;
    const bearer = bearerToken(request);
    if (bearer !== undefined) {
      // Token callers are machines: cookies are ignored, so CSRF cannot apply.
      request.operatorTokenId = await opts.operatorTokens.verify(bearer);
      return;
    }
    ensureCsrfCookie(request, reply, opts.cookieSecure);
    if (!SAFE_METHODS.has(request.method)) checkCsrf(request);
    const token = request.cookies[SESSION_COOKIE];
    if (token) request.auth = await opts.sessions.resolve(token);
  });
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

function ensureCsrfCookie(request: FastifyRequest, reply: FastifyReply, secure: boolean): void {
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
