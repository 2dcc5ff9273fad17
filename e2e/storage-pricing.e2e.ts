/**
 * Storage prices and storage usage in Chromium (issue 24 item 4): an owner prices snapshots and backups per GB-month
 * in the catalog (a bad price refused under its field with the server's words), then sees a company's snapshot and
 * backup lines in Usage beside its VM. Both screens at 1440x900 and 390x844, light and dark: nothing wider than the
 * viewport, axe clean, screenshots storage-catalog-* and storage-usage-*.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import {
  companies,
  configurations,
  providers,
  regions,
  storagePeriods,
  users,
  virtualMachines,
} from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { DESKTOP, everyLook, PHONE, signedInPage } from './support/looks.ts';
import { ADMIN, SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const OWNER = 'owner@storage-prices.example';
const WAIT = { timeout: 30_000 };
let portal: Portal;
let month: string;

beforeAll(async () => {
  portal = await startPortal();
  const [admin] = await portal.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [company] = await portal.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
  // Last month: a VM (deleted since) kept a 2 GiB snapshot for 10 days and a 20 GiB backup from the 1st on (a kept
  // backup outlives its VM). Written directly: the portal runs on the real clock here, so a closed month cannot be
  // lived through the API; the same accrual driven through the API on an injected clock is storage-billing.test.ts.
  const now = new Date();
  const day = (d: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, d));
  month = day(1).toISOString().slice(0, 7);
  const [small] = await portal.db.select().from(configurations).where(eq(configurations.key, 'small'));
  const [region] = await portal.db.select().from(regions);
  const [provider] = await portal.db.select().from(providers);
  const [vm] = await portal.db
    .insert(virtualMachines)
    .values({
      companyId: company!.id,
      name: 'archive-box',
      status: 'Stopped',
      configurationId: small!.id,
      regionId: region!.id,
      image: 'Debian 12',
      providerId: provider!.id,
      providerRef: 'sim-gone',
      createdAt: day(1),
      deletedAt: day(20),
    })
    .returning();
  await portal.db.insert(storagePeriods).values([
    {
      kind: 'snapshot',
      objectId: 900001,
      companyId: company!.id,
      vmId: vm!.id,
      sizeBytes: 2 * 1024 ** 3,
      startedAt: day(2),
      endedAt: day(12),
    },
    {
      kind: 'backup',
      objectId: 900002,
      companyId: company!.id,
      vmId: vm!.id,
      sizeBytes: 20 * 1024 ** 3,
      startedAt: day(1),
      endedAt: null,
    },
  ]);
});
afterAll(async () => {
  await portal?.stop();
});

it('an owner prices snapshot and backup storage, and Usage shows the GB-months a company kept', async () => {
  const { context, page } = await signedInPage(portal, undefined, 'light', OWNER, PASSWORD);
  await page.getByRole('link', { name: 'Catalog' }).click();
  const storage = page.getByRole('region', { name: 'Storage' });
  await expect.poll(() => storage.getByLabel('Snapshots (USD per GB-month)').isVisible(), WAIT).toBe(true);
  await storage.getByLabel('Snapshots (USD per GB-month)').fill('-1');
  await storage.getByRole('button', { name: 'Save storage prices' }).click();
  await expect.poll(() => storage.getByRole('alert').textContent(), WAIT).toBe(CATALOG_TEXT.gbMonthPrice);
  await expect
    .poll(() => storage.getByLabel('Snapshots (USD per GB-month)').getAttribute('aria-invalid'), WAIT)
    .toBe('true');
  await storage.scrollIntoViewIfNeeded(); // the screenshots show the section (the page's main scrolls)
  await everyLook(page, 'storage-catalog-error');
  await storage.getByLabel('Snapshots (USD per GB-month)').fill('0.5');
  await storage.getByLabel('Backups (USD per GB-month)').fill('0.03');
  await storage.getByRole('button', { name: 'Save storage prices' }).click();
  await expect.poll(() => page.getByText(CATALOG_TEXT.storagePricesSaved).isVisible(), WAIT).toBe(true);
  await expect.poll(() => storage.getByLabel('Snapshots (USD per GB-month)').inputValue(), WAIT).toBe('0.50000');
  expect(await storage.getByLabel('Backups (USD per GB-month)').inputValue()).toBe('0.03000');
  await storage.scrollIntoViewIfNeeded();
  await everyLook(page, 'storage-catalog');
  // The phone's full-page shot stops at the page's scroll box: the section itself, in view, at 390x844 dark.
  await page.setViewportSize(PHONE);
  await page.emulateMedia({ colorScheme: 'dark' });
  await storage.scrollIntoViewIfNeeded();
  await storage.screenshot({ path: `${SCREENSHOTS}storage-catalog-section-phone-dark.png` });
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });

  // Usage of last month: the company's storage beside its VM, and the lines when it opens.
  await page.getByRole('link', { name: 'Usage' }).click();
  await expect.poll(() => page.getByLabel('Month').inputValue(), WAIT).toBe(month);
  const [company] = await portal.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
  const row = page.getByRole('row', { name: new RegExp(company!.name) });
  await expect.poll(() => row.textContent(), WAIT).toMatch(/Storage|\d/);
  await row.getByRole('button', { name: company!.name }).click();
  const lines = page.getByRole('table', { name: 'Storage usage' });
  await expect.poll(() => lines.getByRole('row').count(), WAIT).toBe(3);
  const text = (await lines.textContent())!;
  expect(text).toContain('archive-box');
  expect(text).toContain('Snapshots');
  expect(text).toContain('Backups');
  expect(text).toContain('0.50000');
  await everyLook(page, 'storage-usage');
  await context.close();
});
