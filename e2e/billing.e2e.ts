/** The reseller's usage and billing screens in Chromium: last month's usage, its CSV, the webhook and its log. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  companies,
  configurationPrices,
  configurations,
  providers,
  regions,
  users,
  virtualMachines,
  vmSizePeriods,
} from '../apps/api/src/db/schema.ts';
import { hashPassword } from '../apps/api/src/lib/passwords.ts';
import { verifySignature } from '../apps/api/src/modules/billing/webhook-signature.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
let receiver: Server;
/** What the test receiver got: the raw body and its X-Portal-Signature header. */
const bodies: { body: string; signature: string }[] = [];
const OWNER = { email: 'owner@billing.test', password: 'Staff-Password-1!' };

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      bodies.push({ body, signature: String(req.headers['x-portal-signature'] ?? '') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The receiver is on loopback: the operator allows it (EGRESS_ALLOW), as it would a reseller's network.
  portal = await startPortal({
    env: { BILLING_WEBHOOK_ALLOW_HTTP: 'true', BILLING_WEBHOOK_POLL_MS: '200', EGRESS_ALLOW: '127.0.0.1/32' },
  });
});
afterAll(async () => {
  await portal?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

it('shows last month, downloads its CSV, and sets the webhook that delivers it', async () => {
  const db = portal.db;
  const [demo] = await db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const [staffCompany] = await db
    .insert(companies)
    .values({ resellerId: demo!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await db.insert(users).values({
    companyId: staffCompany!.id,
    email: OWNER.email,
    firstName: 'Olive',
    lastName: 'Owner',
    passwordHash: await hashPassword(OWNER.password),
    staffRole: 'owner',
    emailConfirmedAt: new Date(),
  });
  // Last month: 10 days micro, then 5 days small (a resize), then deleted. Written directly: the portal runs on
  // the real clock here, so a closed month (what the worker pushes) cannot be lived through the API; the same
  // resize driven through the API and the operation runner on an injected clock is billing.test.ts.
  const now = new Date();
  const day = (d: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, d));
  const month = day(1).toISOString().slice(0, 7);
  const configs = await db.select().from(configurations);
  const micro = configs.find((c) => c.key === 'micro')!;
  const small = configs.find((c) => c.key === 'small')!;
  const [region] = await db.select().from(regions);
  const [provider] = await db.select().from(providers);
  const [vm] = await db
    .insert(virtualMachines)
    .values({
      companyId: demo!.id,
      name: 'web-shop',
      status: 'Stopped',
      configurationId: small.id,
      regionId: region!.id,
      image: 'Debian 12',
      providerId: provider!.id,
      providerRef: 'sim-gone',
      createdAt: day(2),
      deletedAt: day(17),
    })
    .returning();
  await db.insert(vmSizePeriods).values([
    { vmId: vm!.id, companyId: demo!.id, configurationId: micro.id, startedAt: day(2), endedAt: day(12) },
    { vmId: vm!.id, companyId: demo!.id, configurationId: small.id, startedAt: day(12), endedAt: day(17) },
  ]);
  await db.insert(configurationPrices).values([
    { resellerId: demo!.resellerId, configurationId: micro.id, hourlyPrice: '0.01', monthlyPrice: '5.00' },
    { resellerId: demo!.resellerId, configurationId: small.id, hourlyPrice: '0.02', monthlyPrice: '10.00' },
  ]);

  const { context, page } = await portal.newPage();
  await portal.signIn(page, OWNER.email, OWNER.password);
  await page.getByRole('link', { name: 'Usage' }).click();
  await expect.poll(() => page.getByRole('heading', { name: 'Usage' }).isVisible()).toBe(true);
  expect(await page.getByLabel('Month').inputValue()).toBe(month);
  // Written by the portal's date formatter (the default format: "October 2026"), not the browser's month input.
  expect(await page.getByLabel('Month').locator('option:checked').textContent()).toBe(
    day(1).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }),
  );
  // 240 h × 0.01 = 2.40 and 120 h × 0.02 = 2.40.
  const row = page.getByRole('row', { name: new RegExp(demo!.name) });
  await expect.poll(() => row.textContent()).toContain('360.00');
  expect(await row.textContent()).toContain('4.80');
  await row.getByRole('button', { name: demo!.name }).click();
  const lines = page.getByRole('table', { name: 'VM usage' });
  await expect.poll(() => lines.getByRole('row').count()).toBe(3);
  expect(await lines.textContent()).toContain('web-shop');
  await screenshot(page, 'billing-usage');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`usage-${month}.csv`);
  const csv = await readFile((await download.path())!, 'utf8');
  // One line per size of the resized VM: 10 days (240 h) micro, 5 days (120 h) small.
  expect(csv.split('\r\n').slice(1, 3)).toEqual([
    `${month},${demo!.id},${demo!.name},${vm!.id},web-shop,micro,${micro.name},864000,240.00,0.01000,5.00,2.40,USD,vm,,`,
    `${month},${demo!.id},${demo!.name},${vm!.id},web-shop,small,${small.name},432000,120.00,0.02000,10.00,2.40,USD,vm,,`,
  ]);

  await page.getByRole('link', { name: 'Billing' }).click();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  await page.getByLabel('URL').fill(url);
  await page.getByRole('button', { name: 'Save webhook' }).click();
  await expect.poll(() => page.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
  const secret = (await page.getByTestId('webhook-secret').textContent())!.trim();
  // The worker pushes last month (it has closed) for the company; the log shows it delivered.
  await expect.poll(() => bodies.length, { timeout: 10_000 }).toBe(1);
  // The billing system's check (docs/billing-webhook.md): the HMAC verifies with the secret the page showed,
  // and not with another secret nor over a changed body.
  const [pushed] = bodies;
  expect(pushed!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(verifySignature(secret, pushed!.body, pushed!.signature, new Date())).toBe(true);
  expect(verifySignature(`${secret}x`, pushed!.body, pushed!.signature, new Date())).toBe(false);
  expect(verifySignature(secret, pushed!.body.replace(month, '1999-01'), pushed!.signature, new Date())).toBe(false);
  expect(JSON.parse(pushed!.body)).toMatchObject({ event: 'usage.month', period: { month } });
  await page.getByRole('button', { name: /refresh/i }).click();
  await expect.poll(() => page.getByRole('cell', { name: 'delivered' }).count()).toBe(1);
  await screenshot(page, 'billing-webhook');
  await context.close();
});
