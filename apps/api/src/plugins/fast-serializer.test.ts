/**
 * The production serializer (fast-json-stringify from the contract's JSON Schema) writes exactly what the
 * zod serializer of the tests writes: every contract response compiles, and real answers of the app come
 * out of it unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, errorBodySchema } from '@portal/contract/common';
import { allRoutes, routes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../test/harness.ts';
import { checksResponses, compileFastSerializer } from './fast-serializer.ts';

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

  it('is used outside tests only', () => {
    expect(checksResponses(undefined)).toBe(true);
    expect(checksResponses(undefined, { NODE_ENV: 'production' })).toBe(false);
    expect(checksResponses(undefined, {})).toBe(false);
    expect(checksResponses(true, { NODE_ENV: 'production' })).toBe(true);
    expect(checksResponses(false)).toBe(false);
  });
});
