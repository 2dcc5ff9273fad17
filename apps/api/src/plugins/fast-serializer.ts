/**
 * Response serialization. In tests (and development) every answer is checked against the contract's zod
 * schema before it is sent (fastify-type-provider-zod's serializer: parse, then JSON.stringify), so a handler
 * that drifts from the contract fails loudly. In production the same schema, converted once to JSON Schema,
 * is compiled by fast-json-stringify (Fastify's own serializer): no second walk of the object, no copy, and
 * only the contract's fields go out. A schema that JSON Schema cannot express keeps the zod serializer.
 */
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import fastJson from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type SerializerCompiler = FastifySerializerCompiler<unknown>;

/** Whether answers are checked against the contract's zod schemas: RESPONSE_CHECK, else under Vitest and outside production. */
export function checksResponses(setting: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return setting ?? (env.VITEST !== undefined || env.NODE_ENV === 'test' || env.NODE_ENV === 'development');
}

/**
 * Keywords that only validate a value and do not change how it is written. fast-json-stringify picks a branch of
 * a union (`oneOf`/`anyOf`: `GET /auth/check`'s signed-in or pending answer) by validating the value against each
 * branch with ajv on every answer; with these kept, that meant a date-time format check and a long date regex per
 * call. The contract's zod check runs in tests on every answer (see checksResponses), so validation is not lost.
 */
const VALIDATION_ONLY = new Set([
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

/** The JSON Schema without its validation-only keywords (`properties` keep their names, even "format"). */
export function forSerialization(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forSerialization);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]) => {
      if (key === 'properties' && value !== null && typeof value === 'object')
        return [
          [key, Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, forSerialization(inner)]))],
        ];
      return VALIDATION_ONLY.has(key) ? [] : [[key, forSerialization(value)]];
    }),
  );
}

/** fast-json-stringify from the zod schema's JSON Schema (what the handler hands over: the schema's input). */
export function compileFastSerializer(schema: z.ZodType): (data: unknown) => string {
  const jsonSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'input', unrepresentable: 'throw' });
  return fastJson(forSerialization(jsonSchema) as Parameters<typeof fastJson>[0]);
}

export const fastSerializerCompiler: SerializerCompiler = (route) => {
  const schema = route.schema;
  if (schema instanceof z.ZodType) {
    try {
      return compileFastSerializer(schema);
    } catch {
      // Not expressible (a transform, a custom type): the zod serializer still answers correctly.
    }
  }
  return (zodSerializerCompiler as unknown as SerializerCompiler)(route);
};
