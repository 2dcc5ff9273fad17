/**
 * A VM on a QEMU provider through the portal itself: the create call, the durable runner booting a real
 * guest, its console page, a stop, and the delete that leaves no process behind.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { configurations, providerOfferings, providers, regions } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { qemuPidsUnder } from './qemu.ts';

let t: TestApp;
let admin: TestClient;
let stateDir = '';

beforeAll(async () => {
  t = await createTestApp({ env: { VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '100000' } });
  t.portal.startWorkers();
  admin = await signIn(t);
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'qemu-vm-'));
});
afterAll(async () => {
  await t.close();
  for (const pid of await qemuPidsUnder(stateDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await rm(stateDir, { recursive: true, force: true });
});

async function waitFor(id: number, status: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data?.status === status) return res.data;
    if (res.data?.status === 'Error') throw new Error(`VM ${id} went to Error: ${res.data.errorReason}`);
    if (Date.now() > deadline) throw new Error(`VM ${id} is ${res.data?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('creates a VM that boots a real guest, shows its console, stops and is deleted', { timeout: 120_000 }, async () => {
  // A QEMU provider offering Micro in US East, beside the demo's simulators.
  const [provider] = await t.db.insert(providers).values({ name: 'Local QEMU', driver: 'qemu', settings: { stateDir, maxRamMb: 192, maxCpus: 1, bootTimeoutMs: 50_000 } }).returning();
  const [region] = (await t.db.select().from(regions)).filter((r) => r.name === 'US East');
  const [micro] = (await t.db.select().from(configurations)).filter((c) => c.key === 'micro');
  await t.db.insert(providerOfferings).values({ providerId: provider!.id, regionId: region!.id, configurationId: micro!.id });

  const created = await admin.call(routes.vms.create, { body: { regionId: region!.id, image: 'Debian 12', configurationId: micro!.id, providerId: provider!.id, name: 'real-guest', numberOfInstances: 1 } });
  expect(created.status).toBe(200);
  const id = created.data.ids[0] as number;
  const running = await waitFor(id, 'Running');
  expect(running.consoleAvailable).toBe(true);
  expect(await qemuPidsUnder(stateDir)).toHaveLength(1);

  // The console page shows the guest's own serial output.
  const consoleUrl = (await admin.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl as string;
  const page = await admin.raw('GET', consoleUrl);
  expect(page.status).toBe(200);
  expect(page.message).toMatch(/irontech-guest: booted \S+ with cpus=1/);
  expect(page.message).toContain('real-guest login: ');

  expect((await admin.call(routes.vms.stop, { params: { id } })).status).toBe(200);
  await waitFor(id, 'Stopped');
  expect(await qemuPidsUnder(stateDir)).toEqual([]);

  expect((await admin.call(routes.vms.delete, { params: { id } })).status).toBe(200);
  const deadline = Date.now() + 30_000;
  while ((await admin.call(routes.vms.details, { params: { id } })).status !== 404) {
    if (Date.now() > deadline) throw new Error('the VM was not deleted');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await qemuPidsUnder(stateDir)).toEqual([]);
});
