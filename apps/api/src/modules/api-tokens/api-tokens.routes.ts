/** Personal API token routes: parse, call the service, answer. None answers a token caller (`sessionOnly`). */
import type { FastifyInstance } from 'fastify';
import { API_TOKEN_TEXT, apiTokenRoutes } from '@portal/contract/api-tokens';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { ApiTokensService } from './api-tokens.service.ts';

export function registerApiTokensRoutes(app: FastifyInstance, tokens: ApiTokensService): void {
  registerRoute(app, apiTokenRoutes.list, async ({ auth }) => ({ data: await tokens.list(scopeOf(auth)) }));
  registerRoute(app, apiTokenRoutes.create, async ({ auth, body, request }) => ({
    message: API_TOKEN_TEXT.created,
    data: await tokens.create({ scope: scopeOf(auth), requestId: request.id }, body),
  }));
  registerRoute(app, apiTokenRoutes.revoke, async ({ auth, params, request }) => ({
    message: API_TOKEN_TEXT.revoked,
    data: await tokens.revoke({ scope: scopeOf(auth), requestId: request.id }, params.id),
  }));
  registerRoute(app, apiTokenRoutes.companyList, async ({ auth, query }) => ({
    data: await tokens.companyList(scopeOf(auth), query.userId),
  }));
  registerRoute(app, apiTokenRoutes.companyRevoke, async ({ auth, params, request }) => ({
    message: API_TOKEN_TEXT.revoked,
    data: await tokens.companyRevoke({ scope: scopeOf(auth), requestId: request.id }, params.id),
  }));
}
