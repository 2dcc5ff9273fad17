/**
 * Usage for billing, driven through a month on the injected clock: a VM created on the 3rd, resized on the 10th,
 * deleted on the 20th, and one whose create failed. The usage splits the hours by size and bills nothing for the
 * failed one; the CSV is exact; the month is validated; another reseller's staff see none of it; support staff
 * read but do not set the webhook; a local receiver checks the signature, and a 500 is retried with backoff.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BILLING_MESSAGES, USAGE_CSV_PATH, type Delivery } from '@portal/contract/billing';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { companies, configurationPrices, configurations, distributors, resellers, users } from '../../db/schema.ts';
import { createEgressPolicy } from '../../lib/egress.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createOperationRunner } from '../../engine/operations/runner.ts';
import { createVmEvents } from '../../engine/vm-events.ts';
import { createSecretBox } from '../../engine/vm-secrets.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { manualClock } from '../../../test/manual-clock.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { createUsageRepository } from './usage.repository.ts';
import { createUsageService } from './usage.service.ts';
import { verifySignature } from './webhook-signature.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { createWebhooksRepository } from './webhooks.repository.ts';

const clock = manualClock(new Date('2026-10-03T00:00:00Z'));
const STAFF_PASSWORD = 'Staff-Password-1!';
const log = pino({ level: 'silent' });
let t: TestApp;
let receiver: Server;
let hookUrl: string;
/** What the receiver answers next (then 200). */
const answers: number[] = [];
const received: { headers: IncomingHttpHeaders; body: string; verified: boolean }[] = [];
let secret = '';

beforeAll(async () => {
  // The receiver is on loopback: the operator's egress allow list lets the webhook reach it (and nothing else there).
  t = await createTestApp({ clock, env: { BILLING_WEBHOOK_ALLOW_HTTP: 'true', EGRESS_ALLOW: '127.0.0.1/32' } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const header = String(req.headers['x-portal-signature'] ?? '');
      // The billing system's side: the signature over the raw body, with the clock the portal signed on.
      received.push({ headers: req.headers, body, verified: verifySignature(secret, body, header, clock.now()) });
      res.writeHead(answers.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/billing-hook`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
  await t.close();
});

/** A staff company for the reseller and staff users in it (decision 0011). */
async function addStaff(resellerId: number, people: { email: string; role: 'owner' | 'support' }[]) {
  const [staffCompany] = await t.db
    .insert(companies)
    .values({ resellerId, name: `Staff of ${resellerId}`, kind: 'staff' })
    .returning();
  const passwordHash = await hashPassword(STAFF_PASSWORD);
  for (const p of people)
    await t.db.insert(users).values({
      companyId: staffCompany!.id,
      email: p.email,
      passwordHash,
      staffRole: p.role,
      emailConfirmedAt: clock.now(),
    });
}

const staff = (email: string) => signIn(t, email, STAFF_PASSWORD);

it('bills a month of a resized VM, exports it, and pushes it by signed webhook', async () => {
  const [demo] = await t.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const resellerA = demo!.resellerId;
  await addStaff(resellerA, [
    { email: 'owner@reseller-a.test', role: 'owner' },
    { email: 'support@reseller-a.test', role: 'support' },
  ]);
  const [distributor] = await t.db.select().from(distributors);
  const [resellerB] = await t.db
    .insert(resellers)
    .values({ distributorId: distributor!.id, name: 'Reseller B' })
    .returning();
  await addStaff(resellerB!.id, [{ email: 'owner@reseller-b.test', role: 'owner' }]);
  const configs = await t.db.select().from(configurations);
  const micro = configs.find((c) => c.key === 'micro')!;
  const small = configs.find((c) => c.key === 'small')!;
  // Micro's hours (180 × 0.05 = 9.00) exceed its monthly price: the cap bills 5.00.
  await t.db.insert(configurationPrices).values([
    { resellerId: resellerA, configurationId: micro.id, hourlyPrice: '0.05', monthlyPrice: '5.00' },
    { resellerId: resellerA, configurationId: small.id, hourlyPrice: '0.02', monthlyPrice: '10.00' },
  ]);

  // The customer's VMs, run by a runner on the test's clock (the simulator answers at once).
  const runner = createOperationRunner({
    db: t.db,
    registry: createProviderRegistry({}, { simulatorStepMs: 0 }),
    events: createVmEvents(),
    secrets: createSecretBox('test-secret-that-is-long-enough-0123456789'),
    log,
    clock,
  });
  const runOperations = async () => {
    await runner.tick();
    await runner.idle();
  };
  let admin = await signIn(t);
  const { createBody } = await seededCatalog(admin);
  const vmId = (await admin.call(routes.vms.create, { body: createBody('billed-vm') })).data.ids[0]!;
  const failedId = (await admin.call(routes.vms.create, { body: createBody('fail-create-vm') })).data.ids[0]!;
  await runOperations(); // 3 Oct 00:00: the machine exists; the other create failed
  expect((await admin.call(routes.vms.details, { params: { id: failedId } })).data.status).toBe('Error');

  clock.advance((7 * 24 + 12) * 3_600_000); // 10 Oct 12:00
  admin = await signIn(t);
  expect(
    (await admin.call(routes.vms.changeConfiguration, { body: { id: vmId, configurationId: small.id } })).status,
  ).toBe(200);
  await runOperations();
  clock.advance((9 * 24 + 12) * 3_600_000); // 20 Oct 00:00
  admin = await signIn(t);
  expect((await admin.call(routes.vms.delete, { params: { id: vmId } })).status).toBe(200);
  await runOperations();
  clock.advance(13 * 24 * 3_600_000); // 2 Nov 00:00: October has closed

  // A customer is not staff; a bad month is a 400 with a clear message.
  admin = await signIn(t);
  const refused = await admin.call(routes.billing.usage, { query: { month: '2026-10' } });
  expect([refused.status, refused.message]).toEqual([403, API_MESSAGES.staffOnly]);
  const owner = await staff('owner@reseller-a.test');
  for (const month of ['2026-13', '2026-1', 'October', ''])
    for (const res of [
      await owner.call(routes.billing.usage, { query: { month } }),
      await owner.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=${month}`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.message).toContain(BILLING_MESSAGES.monthFormat);
    }

  // Usage: 7.5 days of micro, 9.5 days of small; nothing for the failed create.
  const usage = await owner.call(routes.billing.usage, { query: { month: '2026-10' } });
  expect(usage.status).toBe(200);
  expect(usage.data).toMatchObject({
    month: '2026-10',
    from: '2026-10-01T00:00:00.000Z',
    to: '2026-11-01T00:00:00.000Z',
    currency: 'USD',
    hours: '408.00',
    amount: '9.56',
    companies: [{ companyId: demo!.id, companyName: demo!.name, vmCount: 1, hours: '408.00', amount: '9.56' }],
  });
  const detail = await owner.call(routes.billing.companyUsage, {
    params: { id: demo!.id },
    query: { month: '2026-10' },
  });
  expect(detail.data.lines).toEqual([
    {
      vmId,
      vmName: 'billed-vm',
      configurationId: micro.id,
      configurationKey: 'micro',
      configurationName: micro.name,
      seconds: 180 * 3600,
      hours: '180.00',
      hourlyPrice: '0.05000',
      monthlyPrice: '5.00',
      amount: '5.00',
    },
    {
      vmId,
      vmName: 'billed-vm',
      configurationId: small.id,
      configurationKey: 'small',
      configurationName: small.name,
      seconds: 228 * 3600,
      hours: '228.00',
      hourlyPrice: '0.02000',
      monthlyPrice: '10.00',
      amount: '4.56',
    },
  ]);
  expect((await owner.call(routes.billing.usage, { query: { month: '2026-09' } })).data.hours).toBe('0.00');

  const csv = await owner.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=2026-10`);
  expect(csv.status).toBe(200);
  expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(csv.headers['content-disposition']).toBe('attachment; filename="usage-2026-10.csv"');
  expect(csv.message).toBe(
    [
      'month,company_id,company_name,vm_id,vm_name,configuration_key,configuration_name,seconds,hours,hourly_price,monthly_price,amount,currency,line_kind,gb_months,gb_month_price',
      `2026-10,${demo!.id},${demo!.name},${vmId},billed-vm,micro,${micro.name},648000,180.00,0.05000,5.00,5.00,USD,vm,,`,
      `2026-10,${demo!.id},${demo!.name},${vmId},billed-vm,small,${small.name},820800,228.00,0.02000,10.00,4.56,USD,vm,,`,
      '',
    ].join('\r\n'),
  );

  // Reseller B's staff see none of A's companies.
  const ownerB = await staff('owner@reseller-b.test');
  expect((await ownerB.call(routes.billing.usage, { query: { month: '2026-10' } })).data.companies).toEqual([]);
  expect(
    (await ownerB.call(routes.billing.companyUsage, { params: { id: demo!.id }, query: { month: '2026-10' } })).status,
  ).toBe(404);
  expect(
    (await ownerB.raw('GET', `${t.config.API_BASE_PATH}${USAGE_CSV_PATH}?month=2026-10&companyId=${demo!.id}`)).status,
  ).toBe(404);

  // Support staff read the webhook but do not set it; the owner does, and sees the secret once.
  const support = await staff('support@reseller-a.test');
  expect((await support.call(routes.billing.getWebhook)).data).toBeNull();
  const denied = await support.call(routes.billing.setWebhook, { body: { url: hookUrl, enabled: true } });
  expect([denied.status, denied.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  expect((await support.call(routes.billing.rotateSecret)).status).toBe(403);
  expect(
    (await owner.call(routes.billing.setWebhook, { body: { url: 'ftp://billing.test/x', enabled: true } })).status,
  ).toBe(400);
  const saved = await owner.call(routes.billing.setWebhook, { body: { url: hookUrl, enabled: true } });
  expect(saved.status).toBe(200);
  secret = saved.data.secret!;
  expect(secret).toMatch(/^whsec_/);
  const again = await owner.call(routes.billing.setWebhook, { body: { url: hookUrl, enabled: true } });
  expect(again.data.secret).toBeNull();
  expect((await support.call(routes.billing.getWebhook)).data).toMatchObject({ url: hookUrl, enabled: true });

  // The worker pushes the closed month; the receiver's 500 is retried after the first backoff step (1 min).
  const worker = createWebhookWorker({
    repo: createWebhooksRepository(t.db, clock),
    usage: createUsageService({ repo: createUsageRepository(t.db), clock }),
    clock,
    log,
    egress: createEgressPolicy({ allow: ['127.0.0.1/32'] }),
    pollMs: 1000,
  });
  answers.push(500);
  await worker.tick();
  const deliveries = async (client: TestClient = owner) =>
    (await client.call(routes.billing.deliveries, { query: { page: 1, rowsPerPage: 10 } })).data.data;
  expect(await deliveries()).toMatchObject([
    {
      event: 'usage.month',
      companyId: demo!.id,
      month: '2026-10',
      trigger: 'schedule',
      status: 'pending',
      attempts: 1,
      lastStatusCode: 500,
    },
  ]);
  await worker.tick(); // not due yet
  expect(received).toHaveLength(1);
  clock.advance(60_000);
  await worker.tick();
  expect(received).toHaveLength(2);
  const [scheduled] = await deliveries();
  expect(scheduled).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 200, lastError: null });
  expect(received.every((r) => r.verified)).toBe(true);
  expect(received.map((r) => r.headers['x-portal-delivery'])).toEqual([String(scheduled!.id), String(scheduled!.id)]);
  expect(received[1]!.headers['x-portal-event']).toBe('usage.month');
  const payload = JSON.parse(received[1]!.body) as Record<string, unknown>;
  expect(payload).toMatchObject({
    version: 1,
    event: 'usage.month',
    idempotencyKey: `usage.month:${resellerA}:${demo!.id}:2026-10`,
    company: { id: demo!.id, externalId: 'demo-company', name: demo!.name },
    period: { month: '2026-10', from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T00:00:00.000Z', closed: true },
    currency: 'USD',
    lines: detail.data.lines,
    totals: { vmCount: 1, hours: '408.00', amount: '9.56' },
  });
  // A forged body does not verify.
  expect(
    verifySignature(
      secret,
      received[1]!.body.replace('9.56', '0.01'),
      String(received[1]!.headers['x-portal-signature']),
      clock.now(),
    ),
  ).toBe(false);
  await worker.tick(); // the month is pushed once
  expect(received).toHaveLength(2);

  // Send now to a receiver that keeps failing: after the last backoff step (6 h) it is failed; retry now delivers.
  answers.push(500, 502, 503, 500, 500, 500);
  expect((await support.call(routes.billing.sendNow, { body: { month: '2026-10' } })).status).toBe(403);
  expect((await owner.call(routes.billing.sendNow, { body: { month: '2026-10' } })).data).toEqual({
    queued: 1,
    alreadyQueued: 0,
  });
  for (const delay of [0, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000]) {
    clock.advance(delay);
    await worker.tick();
  }
  const [failed] = await deliveries();
  expect(failed).toMatchObject({
    trigger: 'manual',
    status: 'failed',
    attempts: 6,
    lastStatusCode: 500,
    lastError: 'HTTP 500',
  });
  expect((await ownerB.call(routes.billing.retryDelivery, { params: { id: failed!.id } })).status).toBe(404);
  expect((await owner.call(routes.billing.retryDelivery, { params: { id: scheduled!.id } })).status).toBe(409);
  const retried = await owner.call(routes.billing.retryDelivery, { params: { id: failed!.id } });
  expect(retried.data).toMatchObject({ status: 'pending', attempts: 6 });
  await worker.tick();
  expect(((await deliveries()) as Delivery[])[0]).toMatchObject({ id: failed!.id, status: 'delivered', attempts: 7 });
  expect(received).toHaveLength(9);
  expect(await deliveries(ownerB)).toEqual([]);
  await worker.stop();
  await runner.stop();
});
