/**
 * Security headers, computed once at start-up and copied onto every reply. @fastify/helmet built a new helmet
 * middleware — parsing every option and the CSP directives again — on each request (~5% of the CPU of a simple
 * call); none of our headers depends on the request, so the result is the same every time.
 *
 * Two sets (docs/decisions/0008-api-performance.md): documents (the portal's pages, its files, anything outside
 * the API) get helmet's full set; the API's JSON answers get the set OWASP's REST Security Cheat Sheet names for
 * APIs — no caching, a CSP that allows nothing and cannot be framed, nosniff, no framing, no referrer, same-origin
 * resources, HSTS behind https. The headers helmet adds for HTML documents only (DNS prefetch, IE download and XSS-auditor
 * switches, cross-domain policies, origin-agent-cluster, COOP) do nothing on JSON, and each header costs every
 * answer: a signed-in `GET /auth/check` went from 9.7k to 11.4k req/s on the benchmark with the short set.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The headers helmet would set for these options, by running it once against a collecting response. */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown = null;
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (err?: unknown) => {
    if (err) failed = err;
  });
  if (failed) throw failed;
  return headers;
}

/** What an API (JSON) answer carries: OWASP's REST set, with HSTS as the documents get it. */
export function apiSecurityHeaders(documentHeaders: Record<string, string>): Record<string, string> {
  const hsts = documentHeaders['strict-transport-security'];
  return {
    // Answers carry personal data and secrets (VM passwords, private keys): no browser or proxy cache keeps them.
    // A route that is safe to cache (none today) may set its own header, which takes precedence.
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...(hsts ? { 'strict-transport-security': hsts } : {}),
  };
}

export function registerSecurityHeaders(
  app: FastifyInstance,
  options: HelmetOptions,
  { apiBasePath }: { apiBasePath: string },
): void {
  const documentHeaders = securityHeaders(options);
  const documentEntries = Object.entries(documentHeaders);
  const apiEntries = Object.entries(apiSecurityHeaders(documentHeaders));
  const apiPrefix = `${apiBasePath}/`;
  const docsPrefix = `${apiBasePath}/docs`; // the OpenAPI docs page is a document
  app.addHook('onRequest', (request, reply, done) => {
    const url = request.url;
    const entries = url.startsWith(apiPrefix) && !url.startsWith(docsPrefix) ? apiEntries : documentEntries;
    // On the raw response, as helmet does: hijacked replies (the live event stream, consoles) carry them too.
    for (const [name, value] of entries) reply.raw.setHeader(name, value);
    done();
  });
}
