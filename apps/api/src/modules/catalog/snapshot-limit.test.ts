/**
 * The reseller sets a size's snapshot limit in its catalog (issue 24 item 1, decision 0019), on both engines: the
 * size row shows it (null: the default), the save is audited with the prices, a customer's VM of that size may keep
 * that many snapshots and the next take is refused with the limit's message; 0 refuses every take; a bad value is a
 * 400 with the field's message; a save that leaves it out keeps it. The backup limit (issue 24 items 2 and 4,
 * decision 0021) alike, beside it: stored, audited, and takeBackup refused over it.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUPS, SNAPSHOTS } from '@portal/contract/constants';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { SNAPSHOT_TEXT } from '@portal/contract/vm-lifecycle';
import { auditLog, companies } from '../../db/schema.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { createTestApp, errorData, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let owner: TestClient;
let customer: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  customer = await signIn(t);
  catalog = await seededCatalog(customer);
  // The customer's company's reseller gets a staff company with an owner.
  const [company] = await t.db.select().from(companies).where(eq(companies.id, 1));
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(t, staff!.id, 'owner@snapshot-limit.example', { staffRole: 'owner' });
  owner = await signIn(t, 'owner@snapshot-limit.example', PASSWORD);
});
afterAll(async () => {
  await t.close();
});

async function waitFor(id: number, status: string) {
  for (let i = 0; i < 400; i++) {
    const res = await customer.call(routes.vms.details, { params: { id } });
    if (res.data.status === status && res.data.pendingOperation === null) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} did not reach ${status}`);
}
const take = (id: number, name: string) =>
  customer.call(routes.snapshots.takeSnapshot, { params: { id }, body: { name } });
const saveMicro = (body: Record<string, unknown>) =>
  owner.call(c.saveSize, {
    params: { id: catalog.micro.id },
    body: { monthlyPrice: '5.00', hourlyPrice: '0.01000', offered: true, ...body } as never,
  });
const microRow = async () => (await owner.call(c.listSizes)).data.sizes.find((s) => s.id === catalog.micro.id)!;

describe("a size's snapshot limit in the reseller catalog", () => {
  it('is the default until set; set to 1, a VM of the size keeps one snapshot and the second is refused', async () => {
    expect((await microRow()).snapshotLimit).toBeNull();
    const saved = await saveMicro({ snapshotLimit: 1 });
    expect([saved.status, saved.data.snapshotLimit]).toEqual([200, 1]);
    expect((await microRow()).snapshotLimit).toBe(1);
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'catalog.size.save'), eq(auditLog.targetId, String(catalog.micro.id))));
    expect(entry!.after).toMatchObject({ monthlyPrice: '5.00', offered: true, snapshotLimit: 1 });

    const id = (await customer.call(routes.vms.create, { body: catalog.createBody('limit-one') })).data.ids[0]!;
    await waitFor(id, 'Running');
    expect((await customer.call(routes.snapshots.listSnapshots, { params: { id } })).data.limit).toBe(1);
    expect((await take(id, 'first')).status).toBe(200);
    await waitFor(id, 'Running');
    const over = await take(id, 'second');
    expect([over.status, over.message]).toEqual([409, SNAPSHOT_TEXT.limit(1)]);

    // A save of the prices alone keeps the limit; 0 refuses every take; null is the default again.
    expect((await saveMicro({ monthlyPrice: '6.00' })).data.snapshotLimit).toBe(1);
    expect((await saveMicro({ snapshotLimit: 0 })).data.snapshotLimit).toBe(0);
    const none = await take(id, 'second');
    expect([none.status, none.message]).toEqual([409, "Snapshots are not offered for this VM's size."]);
    expect((await saveMicro({ snapshotLimit: null })).data.snapshotLimit).toBeNull();
    expect((await microRow()).snapshotLimit).toBeNull();
    expect((await take(id, 'second')).status).toBe(200);
    await waitFor(id, 'Running');
  });

  it('a bad value is a 400 with the field message and changes nothing', async () => {
    await saveMicro({ snapshotLimit: 2 });
    for (const bad of [-1, SNAPSHOTS.limitMax + 1, 1.5, '3', '', true]) {
      const res = await saveMicro({ snapshotLimit: bad });
      expect([res.status, res.message], JSON.stringify(bad)).toEqual([400, CATALOG_TEXT.snapshotLimit]);
      expect(errorData(res)?.issues?.[0]).toEqual({ path: 'body.snapshotLimit', message: CATALOG_TEXT.snapshotLimit });
    }
    expect((await saveMicro({ snapshotLimit: SNAPSHOTS.limitMax })).data.snapshotLimit).toBe(SNAPSHOTS.limitMax);
    expect((await microRow()).snapshotLimit).toBe(SNAPSHOTS.limitMax);
  });

  it('support staff cannot set it', async () => {
    const [staff] = await t.db.select().from(companies).where(eq(companies.name, 'Staff'));
    await createUser(t, staff!.id, 'support@snapshot-limit.example', { staffRole: 'support' });
    const support = await signIn(t, 'support@snapshot-limit.example', PASSWORD);
    const res = await support.call(c.saveSize, {
      params: { id: catalog.micro.id },
      body: { monthlyPrice: '5.00', hourlyPrice: '0.01000', offered: true, snapshotLimit: 9 },
    });
    expect(res.status).toBe(403);
    expect((await microRow()).snapshotLimit).toBe(SNAPSHOTS.limitMax);
  });
});

describe("a size's backup limit in the reseller catalog", () => {
  const takeBackup = (id: number) => customer.call(routes.backups.takeBackup, { params: { id }, body: {} });

  it('is the default until set; set to 1, a VM of the size keeps one backup and takeBackup refuses the second', async () => {
    expect((await microRow()).backupLimit).toBeNull();
    const saved = await saveMicro({ backupLimit: 1 });
    expect([saved.status, saved.data.backupLimit]).toEqual([200, 1]);
    expect((await microRow()).backupLimit).toBe(1);
    // The snapshot limit set before is left as it was.
    expect((await microRow()).snapshotLimit).toBe(SNAPSHOTS.limitMax);
    const entries = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'catalog.size.save'), eq(auditLog.targetId, String(catalog.micro.id))));
    expect(entries.at(-1)!.after).toMatchObject({ monthlyPrice: '5.00', offered: true, backupLimit: 1 });

    const id = (await customer.call(routes.vms.create, { body: catalog.createBody('backup-limit-one') })).data.ids[0]!;
    await waitFor(id, 'Running');
    expect((await customer.call(routes.backups.listBackups, { params: { id } })).data.limit).toBe(1);
    expect((await takeBackup(id)).status).toBe(200);
    await waitFor(id, 'Running');
    const over = await takeBackup(id);
    expect([over.status, over.message]).toEqual([409, BACKUP_TEXT.limit(1)]);

    // A save of the prices alone keeps it; 0 refuses every take; null is the default again.
    expect((await saveMicro({ monthlyPrice: '6.00' })).data.backupLimit).toBe(1);
    expect((await saveMicro({ backupLimit: 0 })).data.backupLimit).toBe(0);
    const none = await takeBackup(id);
    expect([none.status, none.message]).toEqual([409, BACKUP_TEXT.limit(0)]);
    expect((await saveMicro({ backupLimit: null })).data.backupLimit).toBeNull();
    expect((await customer.call(routes.backups.listBackups, { params: { id } })).data.limit).toBe(BACKUPS.defaultPerVm);
    expect((await takeBackup(id)).status).toBe(200);
    await waitFor(id, 'Running');
  });

  it('a bad value is a 400 with the field message and changes nothing', async () => {
    await saveMicro({ backupLimit: 2 });
    for (const bad of [-1, BACKUPS.limitMax + 1, 1.5, '3', '', true]) {
      const res = await saveMicro({ backupLimit: bad });
      expect([res.status, res.message], JSON.stringify(bad)).toEqual([400, CATALOG_TEXT.backupLimit]);
      expect(errorData(res)?.issues?.[0]).toEqual({ path: 'body.backupLimit', message: CATALOG_TEXT.backupLimit });
    }
    expect((await microRow()).backupLimit).toBe(2);
    expect((await saveMicro({ backupLimit: BACKUPS.limitMax })).data.backupLimit).toBe(BACKUPS.limitMax);
  });
});
