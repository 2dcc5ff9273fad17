/**
 * A customer's own spend (issue 25 items 4 and 5), driven through a month on the injected clock as billing.test is:
 * a VM created on the 3rd, resized on the 10th. Its month so far (GET /virtualMachines/monthToDate/:id) and the
 * dashboard's spend (GET /virtualMachines/dashboardSummary) are the very figures the reseller's usage bills; the
 * summary counts machines by status; another company's VM is 404, a member who does not see it gets 404, a bad id
 * 400; a deleted VM's time still counts in the dashboard's month.
 */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { companies, configurationPrices, users, vmTrafficMonths } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createOperationRunner } from '../../engine/operations/runner.ts';
import { createVmEvents } from '../../engine/vm-events.ts';
import { createSecretBox } from '../../engine/vm-secrets.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const clock = manualClock(new Date('2026-10-03T00:00:00Z'));
const STAFF_PASSWORD = 'Staff-Password-1!';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

it("answers a VM's month so far and the dashboard's spend by billing's rule, within the caller's company", async () => {
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const resellerId = demo!.resellerId;
  // The reseller's owner, to read the same month from billing's usage.
  const [staffCompany] = await t.db
    .insert(companies)
    .values({ resellerId, name: 'Staff of the reseller', kind: 'staff' })
    .returning();
  await t.db.insert(users).values({
    companyId: staffCompany!.id,
    email: 'owner@mtd.test',
    passwordHash: await hashPassword(STAFF_PASSWORD),
    staffRole: 'owner',
    emailConfirmedAt: clock.now(),
  });

  const runner = createOperationRunner({
    db: t.db,
    registry: createProviderRegistry({}, { simulatorStepMs: 0 }),
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log: pino({ level: 'silent' }),
    clock,
  });
  const runOperations = async () => {
    await runner.tick();
    await runner.idle();
  };

  let admin = await signIn(t);
  const { createBody, micro, small } = await seededCatalog(admin);
  await t.db.insert(configurationPrices).values([
    { resellerId, configurationId: micro.id, hourlyPrice: '0.05', monthlyPrice: '5.00' },
    { resellerId, configurationId: small.id, hourlyPrice: '0.02', monthlyPrice: '10.00' },
  ]);

  // Nothing yet: no machines, no spend.
  const empty = await admin.call(routes.vms.dashboardSummary);
  expect(empty.status).toBe(200);
  expect(empty.data).toEqual({
    total: 0,
    statuses: [],
    spend: { month: '2026-10', currency: 'USD', hours: '0.00', amount: '0.00', unpriced: 0 },
  });

  const vmId = (await admin.call(routes.vms.create, { body: createBody('mtd-vm') })).data.ids[0]!;
  const failedId = (await admin.call(routes.vms.create, { body: createBody('fail-create-mtd') })).data.ids[0]!;
  await runOperations(); // 3 Oct 00:00
  clock.advance((7 * 24 + 12) * 3_600_000); // 10 Oct 12:00: 180 h of micro (9.00, capped at 5.00)
  admin = await signIn(t);
  expect(
    (await admin.call(routes.vms.changeConfiguration, { body: { id: vmId, configurationId: small.id } })).status,
  ).toBe(200);
  await runOperations();
  clock.advance((9 * 24 + 12) * 3_600_000); // 20 Oct 00:00: 228 h of small (4.56)
  await t.db.insert(vmTrafficMonths).values({
    vmId,
    companyId: demo!.id,
    month: new Date('2026-10-01T00:00:00Z'),
    rxBytes: 5_000_000,
    txBytes: 1_200,
  });

  admin = await signIn(t);
  const month = await admin.call(routes.vms.monthToDate, { params: { id: vmId } });
  expect(month.status).toBe(200);
  expect(month.data).toEqual({
    month: '2026-10',
    currency: 'USD',
    hours: '408.00',
    amount: '9.56',
    unpriced: 0,
    traffic: { rxBytes: 5_000_000, txBytes: 1_200 },
  });
  // The failed create never existed on a host: nothing billed.
  expect((await admin.call(routes.vms.monthToDate, { params: { id: failedId } })).data).toMatchObject({
    hours: '0.00',
    amount: '0.00',
    traffic: { rxBytes: 0, txBytes: 0 },
  });

  // The reseller's usage of the running month bills the very same figures.
  const owner = await signIn(t, 'owner@mtd.test', STAFF_PASSWORD);
  const billed = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-10' },
  });
  expect(billed.status).toBe(200);
  expect([billed.data.hours, billed.data.amount]).toEqual([month.data.hours, month.data.amount]);

  const summary = await admin.call(routes.vms.dashboardSummary);
  expect(summary.data).toEqual({
    total: 2,
    statuses: [
      { status: 'Running', count: 1 },
      { status: 'Error', count: 1 },
    ],
    spend: { month: '2026-10', currency: 'USD', hours: '408.00', amount: '9.56', unpriced: 0 },
  });

  // Tenant isolation: another company's administrator gets 404 for the VM and none of the spend; a member of the
  // same company who does not see the VM (no team, not its creator) gets 404 too; a bad id is a 400.
  const other = await createOtherCompany(t, 'boss@mtd-other.test');
  const stranger = await signIn(t, other.admin.email, PASSWORD);
  const foreign = await stranger.call(routes.vms.monthToDate, { params: { id: vmId } });
  expect([foreign.status, foreign.message]).toEqual([404, 'Virtual machine not found']);
  expect((await stranger.call(routes.vms.dashboardSummary)).data).toMatchObject({
    total: 0,
    statuses: [],
    spend: { hours: '0.00', amount: '0.00' },
  });
  await createUser(t, demo!.id, 'member@mtd.test');
  const member = await signIn(t, 'member@mtd.test', PASSWORD);
  expect((await member.call(routes.vms.monthToDate, { params: { id: vmId } })).status).toBe(404);
  expect((await member.call(routes.vms.dashboardSummary)).data.spend.amount).toBe('0.00');
  const bad = await admin.raw('GET', `${t.config.API_BASE_PATH}/virtualMachines/monthToDate/abc`);
  expect(bad.status).toBe(400);

  // Deleted on the 20th: the VM is gone (404) and no longer counted, but its time stays in the month's spend.
  expect((await admin.call(routes.vms.delete, { params: { id: vmId } })).status).toBe(200);
  await runOperations();
  clock.advance(5 * 24 * 3_600_000);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: vmId } })).status).toBe(404);
  expect((await admin.call(routes.vms.dashboardSummary)).data).toEqual({
    total: 1,
    statuses: [{ status: 'Error', count: 1 }],
    spend: { month: '2026-10', currency: 'USD', hours: '408.00', amount: '9.56', unpriced: 0 },
  });

  // A new month starts from nothing.
  clock.advance(8 * 24 * 3_600_000); // 2 Nov
  admin = await signIn(t);
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toEqual({
    month: '2026-11',
    currency: 'USD',
    hours: '0.00',
    amount: '0.00',
    unpriced: 0,
  });
});
