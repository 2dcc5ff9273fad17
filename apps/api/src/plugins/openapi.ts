/** The OpenAPI document and its docs page, generated from the contract's route table. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

export async function registerOpenApi(app: FastifyInstance, apiBasePath: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Cloud VM portal API',
        version: '1.0.0',
        description:
          'Every response is `{ message, data }`. Portal calls use the session cookie and the CSRF double-submit header; operator calls use `Authorization: Bearer <token>`. Customer calls also take a personal API token (`Authorization: Bearer vmp_…`, created under Account → API tokens): no cookie and no CSRF header; a read-only token answers 403 to writes, a team-limited one sees only its teams; calls marked with the session scheme only (token routes, password changes, sign-in) refuse tokens.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'sid' },
          operatorToken: { type: 'http', scheme: 'bearer' },
          bearerToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'A personal API token (`vmp_…`): the user it belongs to, narrowed by its scope',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: `${apiBasePath}/docs` });
}
