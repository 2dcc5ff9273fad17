/**
 * X-Forwarded-Host only when the operator says so (TRUST_FORWARDED_HOST, issue 21). The request's host picks the
 * brand and the reseller a sign-in is checked against; Fastify's `request.host` takes X-Forwarded-Host from any
 * proxy TRUST_PROXY trusts, and a proxy that passes the client's header on lets the client choose. Off, the header
 * is dropped before any hook or handler runs, so every reader of `request.host` gets the Host header.
 */
import type { FastifyInstance } from 'fastify';

export function registerForwardedHost(app: FastifyInstance, opts: { trust: boolean }): void {
  if (opts.trust) return;
  app.addHook('onRequest', (request, _reply, done) => {
    delete request.raw.headers['x-forwarded-host'];
    done();
  });
}
