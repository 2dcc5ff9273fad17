/**
 * @portal/sdk against the real server (docs/cli.md): calls typed by the contract's route table (the
 * `@ts-expect-error` lines are checked by `tsc -p packages/sdk`: a wrong body, an unknown route, a missing id
 * do not compile), the envelope unwrapped, responses validated with the contract's schemas, and a refused call
 * as a PortalError with the status, the server's message and its field issues.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { routes as contractRoutes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../apps/api/test/harness.ts';
import { seededCatalog } from '../../../apps/api/test/vm-catalog.ts';
import { createClient, PortalError, type CallResult, type PortalClient } from './index.ts';

let t: TestApp;
let admin: TestClient;
let baseUrl: string;

async function token(scope: 'read' | 'act'): Promise<string> {
  const res = await admin.call(contractRoutes.apiTokens.create, {
    body: { name: `sdk-${scope}`, scope, expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  });
  expect(res.status, res.message).toBe(200);
  return res.data.token;
}

async function caught(promise: Promise<unknown>): Promise<PortalError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(PortalError);
    return err as PortalError;
  }
  throw new Error('the call did not fail');
}

beforeAll(async () => {
  t = await createTestApp();
  await t.portal.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.portal.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}${t.config.API_BASE_PATH}`;
  admin = await signIn(t);
});

afterAll(async () => {
  await t?.close();
});

/** Never called: the compiler checks these lines (tsc -p packages/sdk runs in `npm run typecheck`). */
function typeLevel(client: PortalClient) {
  // @ts-expect-error a body field the route does not declare
  void client.call('vms.create', { body: { name: 'x', regionId: 1, wrong: true } });
  // @ts-expect-error the create body's name must be a string
  void client.vm.create({ body: { name: 1, regionId: 1, image: 'i', configurationId: 1, providerId: 1 } });
  // @ts-expect-error no such route in the table
  void client.call('vms.teleport');
  // @ts-expect-error a VM's details need its id
  void client.vm.get();
  // @ts-expect-error an SSH key's body is { name, publicKey }
  void client.sshKeys.create({ body: { name: 'laptop' } });
  void client.call('vms.list', { query: { rowsPerPage: 5 } });
  void client.teams.list();
}

describe('@portal/sdk', () => {
  it('is typed by the route table: answers are the contract schemas’ outputs', () => {
    expect(typeof typeLevel).toBe('function');
    type Listed = CallResult<typeof contractRoutes.vms.list>;
    expectTypeOf<Awaited<ReturnType<PortalClient['vm']['list']>>>().toEqualTypeOf<Listed>();
    expectTypeOf<Awaited<ReturnType<PortalClient['vm']['get']>>>().toEqualTypeOf<
      CallResult<typeof contractRoutes.vms.details>
    >();
  });

  it('calls with a bearer token, unwraps the envelope and validates the answer', async () => {
    const client = createClient({ baseUrl, token: await token('act'), validateResponses: true });
    const catalog = await seededCatalog(admin);
    const { ids } = await client.vm.create({ body: catalog.createBody('sdk-made') });
    expect(ids).toHaveLength(1);
    const listed = await client.call('vms.list', { query: { search: 'sdk-made' } });
    expect(listed.data.map((vm) => vm.id)).toEqual(ids);
    const details = await client.vm.get({ params: { id: ids[0]! } });
    expect(details.virtualMachine.name).toBe('sdk-made');
    const { message, data } = await client.callWithMessage('teams.list');
    expect(typeof message).toBe('string');
    expect(data.totalPages).toBeGreaterThanOrEqual(0);
    expect(Object.keys(client.routes)).toEqual(Object.keys(contractRoutes));
  });

  it('answers a bad input with a PortalError carrying the 400 and its field issues', async () => {
    const client = createClient({ baseUrl, token: await token('act') });
    const err = await caught(client.sshKeys.create({ body: { name: 'laptop', publicKey: 'not a key' } }));
    expect(err.status).toBe(400);
    expect(err.issues.map((i) => i.path)).toContain('body.publicKey');
    expect(err.message).toBeTruthy();
    // Sent past the types: the server's check is what counts.
    const cast = await caught(client.call('vms.create', { body: { name: '' } as never }));
    expect(cast.status).toBe(400);
    expect(cast.issues.length).toBeGreaterThan(0);
  });

  it('reports a read-only token, a bad token and an unreachable server as PortalErrors', async () => {
    const read = createClient({ baseUrl, token: await token('read') });
    const readOnly = await caught(read.vm.delete({ params: { id: 1 } }));
    expect([readOnly.status, readOnly.message]).toEqual([403, API_TOKEN_TEXT.readOnly]);
    const bad = await caught(createClient({ baseUrl, token: 'vmp_nope' }).vm.list());
    expect([bad.status, bad.message]).toEqual([401, API_TOKEN_TEXT.invalid]);
    const nowhere = await caught(createClient({ baseUrl: 'http://127.0.0.1:1/irontech/api/v1' }).vm.list());
    expect(nowhere.status).toBe(0);
  });
});
