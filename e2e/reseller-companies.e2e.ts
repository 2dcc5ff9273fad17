/**
 * The reseller area's companies in Chromium (issue 13): owner staff sign in at the same screens and land on
 * /reseller/companies; create a company with its first administrator, who follows the mailed invitation; suspend
 * the company, and its administrator's sign-in shows the suspended message; the Staff screen lists the owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { COMPANIES_TEXT } from '@portal/contract/reseller-companies';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { linkFrom } from '../apps/api/test/smtp-catcher.ts';
import { ensureStaffCompany } from '../apps/api/src/modules/reseller-companies/staff.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
  await createUser(portal, (await ensureStaffCompany(portal.db, 1))!, 'owner@northwind.example', {
    staffRole: 'owner',
  });
});
afterAll(async () => {
  await portal?.stop();
});

describe('reseller companies', () => {
  it('creates a company whose invited admin confirms, then suspends it and the admin is refused', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page, 'owner@northwind.example', PASSWORD);
    await page.waitForURL(/\/reseller\/companies/);
    await expect.poll(() => page.getByRole('row', { name: /Demo Company/ }).isVisible()).toBe(true);

    await page.getByRole('button', { name: COMPANIES_TEXT.createButton }).click();
    const dialog = page.getByRole('dialog', { name: COMPANIES_TEXT.createTitle });
    await dialog.getByLabel('Company name').fill('Globex Corp');
    await dialog.getByLabel('Email').fill('hank@globex.example');
    await dialog.getByLabel('First Name').fill('Hank');
    await dialog.getByLabel('Last Name').fill('Scorpio');
    await dialog.getByRole('button', { name: COMPANIES_TEXT.createSubmit }).click();
    await expect.poll(() => page.getByText(COMPANIES_TEXT.created('hank@globex.example')).isVisible()).toBe(true);
    const row = page.getByRole('row', { name: /Globex Corp/ });
    await expect.poll(() => row.isVisible()).toBe(true);
    await screenshot(page, 'reseller-companies');

    // The invitation, followed in another browser.
    const mail = await portal.smtp.waitFor('hank@globex.example', (m) => /invited/i.test(m.subject));
    const invitee = await portal.newPage();
    await invitee.page.goto(linkFrom(mail).toString());
    await invitee.page.getByLabel('First Name').fill('Hank');
    await invitee.page.getByLabel('Last Name').fill('Scorpio');
    await invitee.page.getByLabel('New Password').fill('Globex-Password-1!');
    await invitee.page.getByLabel('Confirm Password').fill('Globex-Password-1!');
    await invitee.page.getByRole('button', { name: 'Confirm Email' }).click();
    await expect.poll(() => invitee.page.getByText(TEXT.emailConfirmed).isVisible()).toBe(true);

    // The read-only company view shows the confirmed administrator.
    await row.click();
    await page.waitForURL(/\/reseller\/company\?id=\d+/);
    await expect.poll(() => page.getByRole('heading', { name: 'Globex Corp' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('cell', { name: 'hank@globex.example' }).isVisible()).toBe(true);
    await screenshot(page, 'reseller-company');

    // Suspend from the company view.
    await page.getByRole('button', { name: COMPANIES_TEXT.suspend }).click();
    const confirm = page.getByRole('dialog', { name: COMPANIES_TEXT.suspendTitle('Globex Corp') });
    await confirm.getByLabel('Reason (optional)').fill('Trial ended');
    await confirm.getByRole('button', { name: COMPANIES_TEXT.suspend }).click();
    await expect.poll(() => page.getByText(COMPANIES_TEXT.suspended).first().isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: COMPANIES_TEXT.resume }).isVisible()).toBe(true);
    // The Staff screen lists the owner (who cannot change their own role).
    await page.getByRole('link', { name: 'Staff' }).click();
    await page.waitForURL(/\/reseller\/staff/);
    await expect.poll(() => page.getByRole('cell', { name: 'owner@northwind.example' }).isVisible()).toBe(true);
    await screenshot(page, 'reseller-staff');
    await context.close();

    // The new administrator's sign-in is refused with the reseller's message.
    await invitee.page.goto(`${portal.url.replace(/\/$/, '')}/login`);
    await invitee.page.getByLabel('Email').fill('hank@globex.example');
    await invitee.page.getByLabel('Password', { exact: true }).fill('Globex-Password-1!');
    await invitee.page.getByRole('button', { name: 'Login' }).click();
    await expect
      .poll(() => invitee.page.getByText("Your company's account is suspended. Contact your provider.").isVisible())
      .toBe(true);
    await invitee.context.close();
  });
});
