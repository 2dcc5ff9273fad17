/**
 * The production serializer (fast-json-stringify from the contract's JSON Schema) writes exactly what the
 * zod serializer of the tests writes: every contract response compiles, and real answers of the app come
 * out of it unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, errorBodySchema } from '@portal/contract/common';
import { allRoutes, routes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../test/harness.ts';
import { checksResponses, compileFastSerializer, forSerialization } from './fast-serializer.ts';

let t: TestApp;
let admin: TestClient;
beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
});
afterAll(async () => {
  await t.close();
});

describe('fast serializer', () => {
  it('compiles every response of the contract (none falls back to the zod serializer)', () => {
    for (const def of allRoutes())
      expect(() => compileFastSerializer(envelope(def.data)), `${def.method} ${def.path}`).not.toThrow();
    expect(() => compileFastSerializer(errorBodySchema)).not.toThrow();
  });

  it('writes the same JSON as the zod serializer for real answers', async () => {
    const calls = [
      { def: routes.auth.check },
      { def: routes.password.me },
      { def: routes.vms.listCountries },
      { def: routes.vms.listConfigurations },
      { def: routes.vms.list, query: { page: 1, rowsPerPage: 10 } },
      { def: routes.vms.dashboard },
      { def: routes.teams.list, query: { page: 1, rowsPerPage: 10 } },
      { def: routes.users.list, query: { page: 1, rowsPerPage: 10 } },
    ];
    for (const { def, query } of calls) {
      const res = await admin.call(def, query ? { query } : {});
      expect(res.status, def.path).toBe(200);
      const body = { message: res.message, data: res.data };
      expect(JSON.parse(compileFastSerializer(envelope(def.data))(body)), def.path).toEqual(body);
    }
    const bad = await admin.call(routes.vms.list, { query: { page: 0 } });
    expect(bad.status).toBe(400);
    const body = { message: bad.message, data: bad.data };
    expect(JSON.parse(compileFastSerializer(errorBodySchema)(body))).toEqual(body);
  });

  it('picks the branch of a union by its shape, with validation-only keywords left out', () => {
    const serialize = compileFastSerializer(envelope(routes.auth.check.data));
    const pending = {
      message: 'OK',
      data: {
        authed: false as const,
        user: {
          email: 'pending@example.com',
          resellerName: 'Northwind Hosting',
          resellerEmail: null,
          logoUrl: null,
          tabLogoUrl: null,
          forcePasswordReset: false,
          resetKey: null,
        },
      },
    };
    expect(routes.auth.check.data.parse(pending.data)).toEqual(pending.data);
    expect(JSON.parse(serialize(pending))).toEqual(pending);
    // Keywords go, a property that happens to bear a keyword's name stays.
    expect(
      forSerialization({
        type: 'object',
        properties: {
          format: { type: 'string', format: 'date-time', pattern: '^x' },
          n: { type: 'integer', minimum: 0 },
        },
        required: ['format'],
      }),
    ).toEqual({
      type: 'object',
      properties: { format: { type: 'string' }, n: { type: 'integer' } },
      required: ['format'],
    });
  });

  it('is used outside tests only', () => {
    expect(checksResponses(undefined)).toBe(true);
    expect(checksResponses(undefined, { NODE_ENV: 'production' })).toBe(false);
    expect(checksResponses(undefined, {})).toBe(false);
    expect(checksResponses(true, { NODE_ENV: 'production' })).toBe(true);
    expect(checksResponses(false)).toBe(false);
  });
});
