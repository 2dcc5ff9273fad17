/**
 * The anonymous provider health check reports the platform's own providers and hosts only: a reseller's enabled
 * provider with a host that never answers (issue 21) must not turn it into a 503 that takes the portal out of a
 * load balancer. The operator's diagnostics still ask every provider.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { hosts, providers, regions, resellers } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { createOperatorTokens } from '../../../test/module-parts.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

it("stays 200 when a reseller's provider and host are unreachable", async () => {
  const before = await t.client().call(routes.platform.healthRemoteApi);
  expect(before.status).toBe(200);

  const [reseller] = await t.db.select().from(resellers).limit(1);
  const [region] = await t.db.select().from(regions).limit(1);
  const [tenantProvider] = await t.db
    .insert(providers)
    .values({ resellerId: reseller!.id, name: 'Tenant cloud', driver: 'libvirt', settings: {}, enabled: true })
    .returning();
  const [deadHost] = await t.db
    .insert(hosts)
    .values({
      name: 'tenant-dead-host',
      uri: 'qemu+ssh://root@203.0.113.7/system',
      providerId: tenantProvider!.id,
      regionId: region!.id,
      cpus: 4,
      ramGb: 8,
      diskGb: 100,
      lastError: 'Could not connect',
    })
    .returning();

  const anonymous = await t.client().call(routes.platform.healthRemoteApi);
  expect(anonymous.status).toBe(200);
  expect(anonymous.data.status).toBe('ok');
  expect(Object.keys(anonymous.data.checks)).toEqual(Object.keys(before.data.checks));
  expect(anonymous.data.checks).not.toHaveProperty(`provider-${tenantProvider!.id}`);
  expect(anonymous.data.checks).not.toHaveProperty(`host-${deadHost!.id}`);

  // The operator's token names the platform's providers; a tenant's never decides the status either.
  const { token } = await createOperatorTokens({
    db: t.db,
    secret: 'test-secret-that-is-long-enough-0123456789',
  }).create('health test');
  const bearer = { authorization: `Bearer ${token}` };
  const named = await t.client().call(routes.platform.healthRemoteApi, { headers: bearer });
  expect(named.status).toBe(200);
  expect(named.data.checks).not.toHaveProperty('Tenant cloud');
  expect(named.data.checks).not.toHaveProperty('host tenant-dead-host');
  // The operator's diagnostics ask every provider, the tenant's included.
  const debug = await t.client().call(routes.platform.debug, { headers: bearer });
  expect(debug.data.map((d) => d.provider)).toContain('Tenant cloud');
});
