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
          'Every response is `{ message, data }`. Portal calls use the session cookie and the CSRF double-submit header; operator calls use `Authorization: Bearer <token>`.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'sid' },
          operatorToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: `${apiBasePath}/docs` });
}
