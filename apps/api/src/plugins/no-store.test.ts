/** Secrets in API answers are never kept by a browser or proxy cache (issue 9 item 6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../test/harness.ts';

let t: TestApp;
let admin: TestClient;
beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '30', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  admin = await signIn(t);
});
afterAll(async () => t.close());

async function runningVm(): Promise<number> {
  const us = ((await admin.call(routes.vms.listCountries)).data as { id: number; name: string }[]).find(
    (c) => c.name === 'United States',
  )!;
  const east = (
    (await admin.call(routes.vms.listRegions, { params: { id: us.id } })).data as { id: number; name: string }[]
  ).find((r) => r.name === 'US East')!;
  const configs = (
    await admin.call(routes.vms.fetchConfigurations, { params: { regionId: east.id }, query: { image: 'Debian 12' } })
  ).data as { id: number; key: string }[];
  const micro = configs.find((c) => c.key === 'micro')!;
  const providers = (
    await admin.call(routes.vms.listProviders, { params: { regionId: east.id }, query: { configurationId: micro.id } })
  ).data as { id: number }[];
  const res = await admin.call(routes.vms.create, {
    body: {
      regionId: east.id,
      image: 'Debian 12',
      configurationId: micro.id,
      providerId: providers[0]!.id,
      name: 'secret-keeper',
      numberOfInstances: 1,
    },
  });
  const id = res.data.ids[0] as number;
  const deadline = Date.now() + 10_000;
  while ((await admin.call(routes.vms.details, { params: { id } })).data?.status !== 'Running') {
    if (Date.now() > deadline) throw new Error('VM did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  return id;
}

describe('Cache-Control on API answers', () => {
  it('getPassword and getAccessKey answer with no-store', async () => {
    const id = await runningVm();
    for (const route of [routes.vms.getPassword, routes.vms.getAccessKey]) {
      const res = await admin.call(route, { params: { id } });
      expect(res.status, route.path).toBe(200);
      expect(res.headers['cache-control'], route.path).toBe('no-store');
    }
  });

  it('so do the other API answers, errors included', async () => {
    expect((await admin.call(routes.password.me)).headers['cache-control']).toBe('no-store');
    expect((await t.client().call(routes.password.me)).headers['cache-control']).toBe('no-store');
  });
});
