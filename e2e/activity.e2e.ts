/**
 * Company administration and the activity log in Chromium: a company administrator makes a user an administrator
 * from /user, sees the Admin badge on /users, and finds the change on /activity filtered to that action, then revokes
 * it and finds the revoke there too; reseller staff read their companies' activity on /reseller/activity.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import { companies } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
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
    await filters.getByLabel('Company').selectOption({ label: demo!.name });
    await filters.getByLabel('Action').selectOption({ label: 'Company administration granted' });
    const staffRows = staff.page.getByRole('region', { name: 'Activity' }).locator('tbody tr');
    await expect.poll(() => staffRows.count()).toBe(1);
    expect(await staffRows.first().textContent()).toContain(demo!.name);
    await screenshot(staff.page, 'reseller-activity');
    await staff.context.close();
  });
});
