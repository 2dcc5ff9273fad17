/**
 * A running portal follows `providers set` without a restart (issue 23 item 2): the operator command writes the
 * provider row, and the portal's next use of the provider makes its driver again from the new settings (the registry
 * compares each row's settings with its driver's). Seen through the operator's diagnostics, which ask each provider's
 * driver: the libvirt driver names its network and pool there. The host answers nothing (nothing listens on port 1):
 * the names are reported with the error. Both engines (api-pglite and api-postgres).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { providers } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createOperatorTokens } from '../../test/module-parts.ts';
import { runOperatorOn } from './operator.ts';

let t: TestApp;
let bearer: Record<string, string>;
let providerId: number;
beforeAll(async () => {
  t = await createTestApp();
  const { token } = await createOperatorTokens({
    db: t.db,
    secret: 'test-secret-that-is-long-enough-0123456789',
  }).create('provider settings test');
  bearer = { authorization: `Bearer ${token}` };
  const [row] = await t.db
    .insert(providers)
    .values({
      name: 'Live settings',
      driver: 'libvirt',
      settings: { uri: 'qemu+tcp://127.0.0.1:1/system', session: false, uploadGuestImage: false },
      enabled: true,
    })
    .returning();
  providerId = row!.id;
});
afterAll(async () => {
  await t.close();
});

const diagnostics = async () => {
  const res = await t.client().call(routes.platform.debug, { headers: bearer });
  expect(res.status).toBe(200);
  return res.data.find((d) => d.provider === 'Live settings')!.detail as { network: string; pool: string };
};

it("follows the operator's providers set at its next use of the provider, without a restart", async () => {
  expect(await diagnostics()).toMatchObject({ network: 'irontech', pool: 'irontech' });
  const set = await runOperatorOn(t.database, t.config, [
    'providers',
    'set',
    `#${providerId}`,
    'network.name=tenant-net',
    'pool.name=tank',
  ]);
  expect(set.exitCode).toBe(0);
  expect(set.output).toContain('A running portal applies it at its next use of the provider, without a restart.');
  expect(await diagnostics()).toMatchObject({ network: 'tenant-net', pool: 'tank' });
  // And back: the unset's defaults, again without a restart.
  expect(
    (await runOperatorOn(t.database, t.config, ['providers', 'unset', `#${providerId}`, 'network', 'pool'])).exitCode,
  ).toBe(0);
  expect(await diagnostics()).toMatchObject({ network: 'irontech', pool: 'irontech' });
});
