/**
 * A host's own limit of backup takes at once (issue 24 item 5; docs/decisions/0027-host-concurrency-and-exact-storage.md),
 * through the real server and runner on the simulator, on both engines: the reseller sets it on its host (a whole
 * number 1..16, or null for the portal's BACKUP_CONCURRENCY_PER_HOST; anything else 400 in the field's words, support
 * staff 403, audited), the host list shows it, the operator's CLI sets it on any host, and the runner holds each host to
 * its own number: with limits 1 and 3, at most 1 and 3 takes are 'creating' on them at once, the others 'queued'.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import {
  auditLog,
  companies,
  hosts,
  providerOfferings,
  providers,
  users,
  virtualMachines,
  vmBackups,
} from '../../db/schema.ts';
import { runHostCommand } from '../../cli/hosts-commands.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { until } from '../../../test/until.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let customer: TestClient;
let owner: TestClient;
let support: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      // A 'slow-backup' take copies for ten steps (1 s).
      SIMULATOR_STEP_MS: '100',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      VM_HOST_CHECK_INTERVAL_MS: '100000',
      BACKUP_CONCURRENCY_PER_HOST: '2',
    },
  });
  t.portal.startWorkers();
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [company] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(t, staff!.id, 'owner@lanes.example', { staffRole: 'owner' });
  await createUser(t, staff!.id, 'support@lanes.example', { staffRole: 'support' });
  [customer, owner, support] = await Promise.all([
    signIn(t),
    signIn(t, 'owner@lanes.example', PASSWORD),
    signIn(t, 'support@lanes.example', PASSWORD),
  ]);
  catalog = await seededCatalog(customer);
});
afterAll(async () => {
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('holds each host to its own limit of backups at once, set by its reseller (1..16 or the default) and the operator', async () => {
  // The reseller's own provider (the simulator: it ignores hosts; the runner's limit counts them) with two hosts.
  const [own] = await t.db
    .insert(providers)
    .values({ name: 'Lanes cloud', driver: 'simulator', resellerId: (await resellerId())! })
    .returning();
  await t.db
    .insert(providerOfferings)
    .values({ providerId: own!.id, regionId: catalog.east.id, configurationId: catalog.micro.id });
  const seen = { lastSeenAt: new Date(), cpus: 64, ramGb: 256, diskGb: 4096, providerId: own!.id };
  const [one, three] = await t.db
    .insert(hosts)
    .values([
      { ...seen, name: 'lanes-one', uri: 'test:///default', regionId: catalog.east.id },
      { ...seen, name: 'lanes-three', uri: 'test:///default', regionId: catalog.east.id },
    ])
    .returning();

  // Bad values are 400s in the field's words; support staff only read; null is the portal's default.
  for (const bad of [0, 17, 2.5, -1, '3', true, 'default'])
    for (const client of [owner]) {
      const res = await client.call(c.updateHost, {
        params: { id: one!.id },
        body: { backupConcurrency: bad as never },
      });
      expect([res.status, res.message], JSON.stringify(bad)).toEqual([400, CATALOG_TEXT.backupConcurrency]);
    }
  const readOnly = await support.call(c.updateHost, { params: { id: one!.id }, body: { backupConcurrency: 1 } });
  expect([readOnly.status, readOnly.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  const listed = async () =>
    Object.fromEntries(
      (await owner.call(c.listHosts)).data.hosts.map((h): [string, number | null] => [h.name, h.backupConcurrency]),
    );
  expect(await listed()).toMatchObject({ 'lanes-one': null, 'lanes-three': null });
  const set1 = await owner.call(c.updateHost, { params: { id: one!.id }, body: { backupConcurrency: 1 } });
  expect([set1.status, set1.message, set1.data.backupConcurrency]).toEqual([200, CATALOG_TEXT.hostSaved, 1]);
  expect((await owner.call(c.updateHost, { params: { id: three!.id }, body: { backupConcurrency: 16 } })).status).toBe(
    200,
  );
  const reset = await owner.call(c.updateHost, { params: { id: three!.id }, body: { backupConcurrency: null } });
  expect([reset.status, reset.data.backupConcurrency]).toEqual([200, null]);
  const entries = await t.db.select().from(auditLog).where(eq(auditLog.action, 'host.update'));
  expect(entries.map((e) => [e.before, e.after])).toEqual([
    [{ backupConcurrency: null }, { backupConcurrency: 1 }],
    [{ backupConcurrency: null }, { backupConcurrency: 16 }],
    [{ backupConcurrency: 16 }, { backupConcurrency: null }],
  ]);

  // The operator's CLI sets any host's (exit 1 and why when it changes nothing or is out of range); `host list` shows it.
  expect(await runHostCommand(['host', 'backups', 'lanes-three', '3'], t.db)).toBe(
    "Host lanes-three now takes 3 backups at once (was the portal's default).",
  );
  await expect(runHostCommand(['host', 'backups', 'lanes-three', '3'], t.db)).rejects.toThrow(
    'Host lanes-three already takes 3 backups at once.',
  );
  await expect(runHostCommand(['host', 'backups', 'lanes-three', '17'], t.db)).rejects.toThrow(
    CATALOG_TEXT.backupConcurrency,
  );
  await expect(runHostCommand(['host', 'backups', 'lanes-three', 'many'], t.db)).rejects.toThrow(
    'host backups needs a number from 1 to 16 or "default", not "many"',
  );
  const hostList = (await runHostCommand(['host', 'list'], t.db))!.split('\n');
  expect(hostList.find((l) => l.startsWith('lanes-one\t'))).toContain('\t1 backups at once\t');
  expect(hostList.find((l) => l.startsWith('lanes-three\t'))).toContain('\t3 backups at once\t');
  expect(await listed()).toMatchObject({ 'lanes-one': 1, 'lanes-three': 3 });

  // Four slow takes on each host at once: at most 1 copying on the one, 3 on the other; the rest wait 'queued'.
  const body = { ...catalog.createBody('x'), providerId: own!.id };
  const names = ['one-a', 'one-b', 'one-c', 'one-d', 'three-a', 'three-b', 'three-c', 'three-d'];
  const ids: number[] = [];
  for (const n of names) {
    const res = await customer.call(routes.vms.create, { body: { ...body, name: `${n}-slow-backup` } });
    expect(res.status, res.message).toBe(200);
    ids.push(res.data.ids[0]!);
  }
  for (const id of ids)
    await until(
      `VM ${id} Running`,
      async () => (await customer.call(routes.vms.details, { params: { id } })).data,
      (d) => d.status === 'Running' && d.pendingOperation === null,
    );
  await t.db
    .update(virtualMachines)
    .set({ hostId: one!.id })
    .where(inArray(virtualMachines.id, ids.slice(0, 4)));
  await t.db
    .update(virtualMachines)
    .set({ hostId: three!.id })
    .where(inArray(virtualMachines.id, ids.slice(4)));
  const answers = await Promise.all(
    ids.map((id) => customer.call(routes.backups.takeBackup, { params: { id }, body: { name: 'at once' } })),
  );
  expect(answers.map((r) => r.status)).toEqual(ids.map(() => 200));

  const max = { one: 0, three: 0 };
  let queuedSeen = false;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const rows = await t.db.select().from(vmBackups).where(inArray(vmBackups.vmId, ids));
    const creating = (host: number) => rows.filter((r) => r.hostId === host && r.state === 'creating').length;
    max.one = Math.max(max.one, creating(one!.id));
    max.three = Math.max(max.three, creating(three!.id));
    const waiting = rows.find((r) => r.state === 'queued');
    if (!queuedSeen && waiting) {
      // What the customer sees of a take waiting for its turn on its host.
      const seen = await customer.call(routes.backups.listBackups, { params: { id: waiting.vmId! } });
      queuedSeen = seen.data.backups.some(
        (b) => b.id === waiting.id && (b.state === 'queued' || b.state === 'creating'),
      );
    }
    if (rows.length === ids.length && rows.every((r) => r.state === 'ready')) break;
    if (Date.now() > deadline) throw new Error(`takes not all ready: ${rows.map((r) => r.state).join(', ')}`);
    await sleep(15);
  }
  expect(max).toEqual({ one: 1, three: 3 });
  expect(queuedSeen).toBe(true);
});

async function resellerId() {
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [company] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  return company?.resellerId;
}
