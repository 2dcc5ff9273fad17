/** The reconciler follows what the provider reports for idle VMs: powered off outside the portal, started outside, gone. */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { providers, virtualMachines } from '../../../db/schema.ts';
import { createTestApp, signIn, type TestApp } from '../../../../test/harness.ts';
import { seededCatalog } from '../../../../test/vm-catalog.ts';
import { createProviderRegistry } from '../../../providers/registry.ts';
import { createVmEvents, type VmEvent } from '../vm-events.ts';
import { createSecretBox } from '../vm-secrets.ts';
import { createReconciler } from './reconciler.ts';
import { createOperationRunner } from './runner.ts';

let t: TestApp;
beforeAll(async () => {
  // Workers are not started: this test drives its own runner and reconciler.
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

it('marks a VM powered off outside the portal Shutoff, started outside Running, and a vanished machine Error', async () => {
  const admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const vmId = (await admin.call(routes.vms.create, { body: createBody('drifter') })).data.ids[0]!;
  const registry = createProviderRegistry({}, { simulatorStepMs: 5 });
  const events = createVmEvents();
  const seen: VmEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const log = pino({ level: 'silent' });
  const runner = createOperationRunner({
    db: t.db,
    registry,
    events,
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log,
  });
  await runner.tick();
  await runner.idle();
  await runner.stop();
  const vm = async () => (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!;
  const { providerId, providerRef } = await vm();
  const [provider] = await t.db.select().from(providers).where(eq(providers.id, providerId));
  const driver = registry.driverFor(provider!);
  const reconciler = createReconciler({ db: t.db, registry, events, log });

  expect(await vm()).toMatchObject({ status: 'Running' });
  expect(await reconciler.reconcileOnce()).toBe(0);

  await driver.forceStop(providerRef!);
  await reconciler.reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Shutoff' });
  expect(seen.at(-1)).toMatchObject({ vmId, status: 'Shutoff', deleted: false });

  await driver.start(providerRef!);
  await reconciler.reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Running' });

  await driver.delete(providerRef!);
  // The simulator adopts machines it forgot; one deleted on purpose is gone only for a driver that cannot adopt.
  const strict = createProviderRegistry({ simulator: () => ({ ...driver, adopt: undefined }) });
  await createReconciler({ db: t.db, registry: strict, events, log }).reconcileOnce();
  expect(await vm()).toMatchObject({ status: 'Error', errorReason: 'The machine no longer exists at the provider' });
});
