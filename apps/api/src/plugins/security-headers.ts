/**
 * Security headers (helmet's), computed once at start-up and copied onto every reply. @fastify/helmet built a
 * new helmet middleware — parsing every option and the CSP directives again — on each request (~5% of the
 * CPU of a simple call); none of our headers depends on the request, so the result is the same every time.
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

export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): void {
  const entries = Object.entries(securityHeaders(options));
  app.addHook('onRequest', (_request, reply, done) => {
    // On the raw response, as helmet does: hijacked replies (the live event stream) carry them too.
    for (const [name, value] of entries) reply.raw.setHeader(name, value);
    done();
  });
}
