/**
 * Company administration and the activity log in Chromium: a company administrator makes a user an administrator
 * from /user, sees the Admin badge on /users, and finds the change on /activity filtered to that action, then revokes
 * it and finds the revoke there too; reseller staff read their companies' activity on /reseller/activity. The date
 * filters are text fields in the user's date format (issue 25 defect 10: never the browser's "mm/dd/yyyy"): the
 * default "26 Nov 2026" and ISO "2026-11-26", read as typed, with a field message for what is not a day; the
 * page at 1440x900 and 390x844, light and dark, fits and passes axe with that message shown.
 */
import { eq } from 'drizzle-orm';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import { companies, users } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { LOOKS, setLook, signedInPage } from './support/looks.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

describe('company administration and activity', () => {
  it('grants administration from /user and finds it on /activity; staff see it on /reseller/activity', async () => {
    const grace = await createUser(portal, 1, 'grace@example.com', { firstName: 'Grace', lastName: 'Hopper' });
    const { context, page } = await portal.newPage();
    await portal.signIn(page);

    await page.goto(`${portal.url}/user?id=${grace.id}`);
    const status = page.getByTestId('company-admin-status');
    await expect.poll(() => status.textContent()).toBe(ACTIVITY_TEXT.isNotCompanyAdmin('Grace Hopper'));
    await page.getByRole('button', { name: ACTIVITY_TEXT.grantButton }).click();
    const dialog = page.getByRole('dialog', { name: ACTIVITY_TEXT.grantTitle });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await dialog.getByRole('button', { name: ACTIVITY_TEXT.grantConfirm }).click();
    await expect.poll(() => status.textContent()).toBe(ACTIVITY_TEXT.isCompanyAdmin('Grace Hopper'));
    await expect.poll(() => page.getByText(ACTIVITY_TEXT.granted('Grace Hopper')).first().isVisible()).toBe(true);
    await screenshot(page, 'user-company-admin');

    await page.getByRole('link', { name: 'Users' }).click();
    const row = page.getByRole('row', { name: 'Grace Hopper' });
    await expect.poll(() => row.getByText(ACTIVITY_TEXT.adminBadge, { exact: true }).isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/activity$/);
    await page.getByLabel('Action').selectOption({ label: 'Company administration granted' });
    await page.waitForURL(/action=user.companyAdmin.grant/);
    const rows = page.getByRole('region', { name: 'Activity' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(
      /admin@example\.com.*Company administration granted.*Grace Hopper/,
    );
    await screenshot(page, 'activity');

    // Revoked again from /user: the revoke is on /activity too.
    await page.goto(`${portal.url}/user?id=${grace.id}`);
    await page.getByRole('button', { name: ACTIVITY_TEXT.revokeButton }).click();
    const revoke = page.getByRole('dialog', { name: ACTIVITY_TEXT.revokeTitle });
    await revoke.getByRole('button', { name: ACTIVITY_TEXT.revokeConfirm }).click();
    await expect.poll(() => status.textContent()).toBe(ACTIVITY_TEXT.isNotCompanyAdmin('Grace Hopper'));
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/activity$/);
    await page.getByLabel('Action').selectOption({ label: 'Company administration revoked' });
    await page.waitForURL(/action=user.companyAdmin.revoke/);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toMatch(
      /admin@example\.com.*Company administration revoked.*Grace Hopper/,
    );
    // A start date after the end date is said, not asked.
    await page.getByLabel('From').fill('2030-02-01');
    await page.getByLabel('To').fill('2030-01-01');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toBe(ACTIVITY_TEXT.datesOrder);
    await context.close();

    const [demo] = await portal.db.select().from(companies).where(eq(companies.id, 1));
    const [staffCompany] = await portal.db
      .insert(companies)
      .values({ resellerId: demo!.resellerId, name: 'Demo Reseller Staff', kind: 'staff' })
      .returning();
    await createUser(portal, staffCompany!.id, 'owner@staff.example', { staffRole: 'owner' });
    const staff = await portal.newPage();
    await portal.signIn(staff.page, 'owner@staff.example', PASSWORD);
    await staff.page.getByRole('link', { name: 'Activity' }).click();
    await staff.page.waitForURL(/\/reseller\/activity$/);
    // The filters of the Activity screen itself: while its lazy code loads, the companies list stays on screen,
    // and its "Demo Company" row and "Suspend Demo Company" button also carry "Company" in their names.
    const filters = staff.page.getByRole('search', { name: 'Filter activity' });
    // Its Action filter's name also holds its options' text ("Company administration granted"): match the start.
    await filters.getByRole('combobox', { name: /^Company/ }).selectOption({ label: demo!.name });
    await filters.getByLabel('Action').selectOption({ label: 'Company administration granted' });
    const staffRows = staff.page.getByRole('region', { name: 'Activity' }).locator('tbody tr');
    await expect.poll(() => staffRows.count()).toBe(1);
    expect(await staffRows.first().textContent()).toContain(demo!.name);
    await screenshot(staff.page, 'reseller-activity');
    await staff.context.close();
  });
});

const WAIT = { timeout: 30_000 };
const fromUrl = (page: Page) => new URL(page.url()).searchParams.get('from');

describe("the activity date filters, in the user's date format", () => {
  it('shows and reads the default format "26 Nov 2026", says what does not read, and never shows mm/dd/yyyy', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    await page.goto(`${portal.url}/activity`);
    const filters = page.getByRole('search', { name: 'Filter activity' });
    const from = filters.getByLabel('From');
    const to = filters.getByLabel('To');
    await expect.poll(() => from.getAttribute('placeholder'), WAIT).toBe('26 Nov 2026');
    expect(await to.getAttribute('placeholder')).toBe('26 Nov 2026');
    // Text fields, not the browser's date input (whose "mm/dd/yyyy" the user did not choose).
    expect(await page.locator('input[type="date"]').count()).toBe(0);
    expect(await page.content()).not.toMatch(/mm\/dd\/yyyy/i);

    await from.fill('1 Feb 2030');
    await page.waitForURL(/from=2030-02-01/, WAIT);
    await to.fill('1 jan 2030');
    await page.waitForURL(/to=2030-01-01/, WAIT);
    await expect.poll(() => page.getByRole('alert').first().textContent(), WAIT).toBe(ACTIVITY_TEXT.datesOrder);
    // Left, a day typed another way is written back in the user's format.
    expect(await to.inputValue()).toBe('1 jan 2030');
    await to.press('Tab');
    await expect.poll(() => to.inputValue(), WAIT).toBe('1 Jan 2030');

    // Not a day: said under the field once it is left; the filter keeps its day.
    await from.fill('31 Feb 2030');
    await from.press('Tab');
    await expect.poll(() => filters.getByText('Enter a date like 26 Nov 2026').isVisible(), WAIT).toBe(true);
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    expect(fromUrl(page)).toBe('2030-02-01');
    await from.fill('1 Dec 2029');
    await page.waitForURL(/from=2029-12-01/, WAIT);
    await expect.poll(() => filters.getByText('Enter a date like 26 Nov 2026').count(), WAIT).toBe(0);
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: ACTIVITY_TEXT.datesOrder }).count(), WAIT)
      .toBe(0);

    // The address keeps ISO days; a reload shows them in the user's format.
    await page.reload();
    await expect.poll(() => from.inputValue(), WAIT).toBe('1 Dec 2029');
    expect(await to.inputValue()).toBe('1 Jan 2030');
    await page.getByRole('button', { name: ACTIVITY_TEXT.clearFilters }).click();
    await expect.poll(() => from.inputValue(), WAIT).toBe('');
    expect(await to.inputValue()).toBe('');
    await context.close();
  });

  it('reads ISO days for a user who chose ISO, and the page fits and passes axe at both sizes, light and dark', async () => {
    const [admin] = await portal.db.select().from(users).where(eq(users.email, 'admin@example.com'));
    await portal.db.update(users).set({ dateFormat: 'iso' }).where(eq(users.id, admin!.id));
    // Signed in once the format is ISO (the sign-in brings it); each look switched in place, the page loaded anew.
    let context: BrowserContext | undefined;
    try {
      const opened = await signedInPage(portal);
      context = opened.context;
      const page = opened.page;
      for (const look of LOOKS) {
        const { viewport, colorScheme: scheme } = look;
        await setLook(page, look);
        await page.goto(`${portal.url}/activity`);
        const filters = page.getByRole('search', { name: 'Filter activity' });
        const from = filters.getByLabel('From');
        await expect.poll(() => from.getAttribute('placeholder'), WAIT).toBe('2026-11-26');
        await from.fill('2030-02-01');
        await page.waitForURL(/from=2030-02-01/, WAIT);
        // The default's spelling is not this user's format: said, with the format they chose.
        const to = filters.getByLabel('To');
        await to.fill('1 Jan 2030');
        await to.press('Tab');
        await expect.poll(() => filters.getByText('Enter a date like 2026-11-26').isVisible(), WAIT).toBe(true);
        expect(new URL(page.url()).searchParams.get('to')).toBeNull();
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
        ).toBeLessThanOrEqual(0);
        expect(await axeViolations(page, 'main')).toEqual([]);
        await screenshot(page, `activity-dates-${viewport.width}-${scheme}`);
      }
    } finally {
      await context?.close();
      await portal.db.update(users).set({ dateFormat: 'day-month' }).where(eq(users.id, admin!.id));
    }
  });
});
