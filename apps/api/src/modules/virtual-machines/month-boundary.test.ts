/**
 * A customer's month so far across a month boundary (issue 25 item 4), on the injected clock as billing.test is.
 * A VM made on 30 Sep at 22:00 and running into October: on 1 Oct its month so far (GET
 * /virtualMachines/monthToDate/:id) and the dashboard's spend (GET /virtualMachines/dashboardSummary) count only the
 * hours since 1 Oct 00:00, while the reseller's usage of September (GET /reseller/usage/companies/:id) keeps the 2
 * hours before. A VM stopped all October costs what billing's rule says (stopped machines still count: their disk
 * exists) up to the monthly price. An upgrade on 1 Oct prices each part at its own size. Every figure is checked
 * against billing's usage of the same month, so the customer's figures are the reseller's invoice lines.
 */
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { companies, configurationPrices, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createOperationRunner } from '../../engine/operations/runner.ts';
import { createVmEvents } from '../../engine/vm-events.ts';
import { createSecretBox } from '../../engine/vm-secrets.ts';
import { createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const HOUR = 3_600_000;
const clock = manualClock(new Date('2026-09-30T22:00:00Z'));
const STAFF_PASSWORD = 'Staff-Password-1!';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

it('counts a month so far from the 1st 00:00, leaves the hours before to the previous month, bills a stopped month and an upgrade by size', async () => {
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const resellerId = demo!.resellerId;
  const [staffCompany] = await t.db
    .insert(companies)
    .values({ resellerId, name: 'Staff of the reseller', kind: 'staff' })
    .returning();
  await t.db.insert(users).values({
    companyId: staffCompany!.id,
    email: 'owner@boundary.test',
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
  /** The reseller's usage lines of a month for the demo company, as `vm name/size: hours amount`. */
  const billed = async (month: string) => {
    const owner = await signIn(t, 'owner@boundary.test', STAFF_PASSWORD);
    const usage = await owner.call(routes.billing.companyUsage, { params: { id: demo!.id }, query: { month } });
    expect(usage.status, usage.message).toBe(200);
    return {
      lines: usage.data.lines.map((l) => `${l.vmName}/${l.configurationKey}: ${l.hours} ${l.amount}`),
      hours: usage.data.hours,
      amount: usage.data.amount,
    };
  };

  let admin = await signIn(t);
  const { createBody, micro, small } = await seededCatalog(admin);
  // Micro: 0.01 an hour up to 5.00 a month (the cap from 500 h); small: 0.02 an hour up to 10.00.
  await t.db.insert(configurationPrices).values([
    { resellerId, configurationId: micro.id, hourlyPrice: '0.01', monthlyPrice: '5.00' },
    { resellerId, configurationId: small.id, hourlyPrice: '0.02', monthlyPrice: '10.00' },
  ]);

  // 30 Sep 22:00: both machines are made; one is stopped at once and stays stopped.
  const edgeId = (await admin.call(routes.vms.create, { body: createBody('edge-vm') })).data.ids[0]!;
  const idleId = (await admin.call(routes.vms.create, { body: createBody('idle-vm') })).data.ids[0]!;
  await runOperations();
  expect((await admin.call(routes.vms.stop, { params: { id: idleId } })).status).toBe(200);
  await runOperations();
  expect((await admin.call(routes.vms.details, { params: { id: idleId } })).data.status).toBe('Stopped');
  expect((await admin.call(routes.vms.details, { params: { id: edgeId } })).data.status).toBe('Running');

  // 30 Sep 23:59:59 is still September: 2 h less a second of each VM.
  clock.advance(2 * HOUR - 1_000);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    month: '2026-09',
    hours: '2.00',
    amount: '0.02',
  });

  // 1 Oct 00:00 exactly: a new month, nothing yet.
  clock.advance(1_000);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    month: '2026-10',
    hours: '0.00',
    amount: '0.00',
  });
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toEqual({
    month: '2026-10',
    currency: 'USD',
    hours: '0.00',
    amount: '0.00',
    unpriced: 0,
  });

  // 1 Oct 02:00: only the 2 hours since 00:00 count, for the running VM and the stopped one alike.
  clock.advance(2 * HOUR);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toEqual({
    month: '2026-10',
    currency: 'USD',
    hours: '2.00',
    amount: '0.02',
    unpriced: 0,
    traffic: { rxBytes: 0, txBytes: 0 },
  });
  expect((await admin.call(routes.vms.monthToDate, { params: { id: idleId } })).data).toMatchObject({
    hours: '2.00',
    amount: '0.02',
  });
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toMatchObject({
    month: '2026-10',
    hours: '4.00',
    amount: '0.04',
  });
  // The reseller's usage of September, closed, keeps the 2 hours before midnight; October's so far is the same 2.
  expect(await billed('2026-09')).toEqual({
    lines: ['edge-vm/micro: 2.00 0.02', 'idle-vm/micro: 2.00 0.02'],
    hours: '4.00',
    amount: '0.04',
  });
  expect(await billed('2026-10')).toEqual({
    lines: ['edge-vm/micro: 2.00 0.02', 'idle-vm/micro: 2.00 0.02'],
    hours: '4.00',
    amount: '0.04',
  });

  // An upgrade at 1 Oct 02:00: 2 h of micro, then small from the instant it completed.
  admin = await signIn(t);
  expect(
    (await admin.call(routes.vms.changeConfiguration, { body: { id: edgeId, configurationId: small.id } })).status,
  ).toBe(200);
  await runOperations();
  clock.advance(10 * HOUR); // 1 Oct 12:00: 10 h of small (0.20)
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    hours: '12.00',
    amount: '0.22',
  });
  expect((await billed('2026-10')).lines).toEqual([
    'edge-vm/micro: 2.00 0.02',
    'edge-vm/small: 10.00 0.20',
    'idle-vm/micro: 12.00 0.12',
  ]);

  // 15 Oct 00:00: the stopped VM has cost 336 h of micro, below the cap; the upgraded one 2 h of micro and 334 h
  // of small (6.68).
  clock.advance((13 * 24 + 12) * HOUR);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: idleId } })).data).toMatchObject({
    hours: '336.00',
    amount: '3.36',
  });
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    hours: '336.00',
    amount: '6.70',
  });

  // 31 Oct 23:00: the stopped VM's 743 h (7.43 by the hour) cost the monthly price, 5.00; small's 741 h (14.82)
  // its 10.00, beside micro's 0.02.
  clock.advance((16 * 24 + 23) * HOUR);
  admin = await signIn(t);
  expect((await admin.call(routes.vms.details, { params: { id: idleId } })).data.status).toBe('Stopped');
  expect((await admin.call(routes.vms.monthToDate, { params: { id: idleId } })).data).toMatchObject({
    month: '2026-10',
    hours: '743.00',
    amount: '5.00',
  });
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    hours: '743.00',
    amount: '10.02',
  });
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toMatchObject({
    hours: '1486.00',
    amount: '15.02',
  });

  // 1 Nov 01:00: October closed at 744 h each; November so far is 1 h of each VM at its current size.
  clock.advance(2 * HOUR);
  expect(await billed('2026-10')).toEqual({
    lines: ['edge-vm/micro: 2.00 0.02', 'edge-vm/small: 742.00 10.00', 'idle-vm/micro: 744.00 5.00'],
    hours: '1488.00',
    amount: '15.02',
  });
  admin = await signIn(t);
  expect((await admin.call(routes.vms.monthToDate, { params: { id: edgeId } })).data).toMatchObject({
    month: '2026-11',
    hours: '1.00',
    amount: '0.02',
  });
  expect((await admin.call(routes.vms.dashboardSummary)).data.spend).toMatchObject({
    month: '2026-11',
    hours: '2.00',
    amount: '0.03',
  });
});
