/**
 * The account page in Chromium (issue 25 item 7; docs/account.md): reached from the navigation's "Account"; a
 * password change in one browser signs the user out in another (that one lands on /login, this one stays); the
 * theme chosen there survives signing out (the next sign-in applies it again); the date format changes a date
 * shown elsewhere (the activity log) at once; "Sign out everywhere else". The page at 1440x900 and 390x844, light
 * and dark: nothing wider than the viewport, axe clean, screenshots account-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ACCOUNT_TEXT as T } from '@portal/contract/account';
import { API_MESSAGES, TEXT } from '@portal/contract/messages';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, LOOKS, setLook, type ColorScheme } from './support/looks.ts';
import { ADMIN, SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

// Generous: the suite runs on two loaded cores.
const WAIT = { timeout: 30_000, interval: 100 };

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

async function open(
  browser: Browser,
  viewport = DESKTOP,
  colorScheme: ColorScheme = 'light',
): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { page, close: () => context.close() };
}

async function goToAccount(page: Page) {
  await page.goto(`${portal.url}/account`);
  await expect.poll(() => page.getByRole('heading', { name: T.sessionsHeading }).isVisible(), WAIT).toBe(true);
}

const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains('dark'));

/** Elements of the page reaching past the viewport's sides (a page that would scroll or cut sideways). */
const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (getComputedStyle(el).position === 'fixed' && r.right <= 0) continue;
      if (r.right > width + 1 || r.left < -1) {
        out.push(
          `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)} ${Math.round(r.left)}..${Math.round(r.right)}`,
        );
      }
    }
    return out;
  });

describe('account page', () => {
  it('a password change here signs the other browser out; this one stays', async () => {
    const user = await createUser(portal, 1, 'account-e2e-password@example.com');
    const here = await open(portal.browser);
    const there = await open(portal.browser);
    await portal.signIn(here.page, user.email, PASSWORD);
    await portal.signIn(there.page, user.email, PASSWORD);

    // Reached from the navigation.
    await here.page.getByRole('link', { name: 'Account', exact: true }).first().click();
    await here.page.waitForURL(/\/account$/, { timeout: 30_000 });
    const sessions = here.page.getByTestId('account-session');
    await expect.poll(() => sessions.count(), WAIT).toBe(2);
    expect(await here.page.locator('[data-testid="account-session"][data-current="true"]').count()).toBe(1);
    expect(await here.page.getByText(T.thisSession).isVisible()).toBe(true);

    // A wrong current password: the server's message, nothing changes.
    const form = here.page.getByRole('region', { name: T.passwordHeading });
    await form.getByLabel(T.currentPassword, { exact: true }).fill('Not-The-Password-1!');
    await form.getByLabel(T.newPassword, { exact: true }).fill('Brand-New-Password-7!');
    await form.getByLabel(T.confirmPassword, { exact: true }).fill('Brand-New-Password-7!');
    await form.getByRole('button', { name: T.changePassword }).click();
    await expect
      .poll(() => form.getByRole('alert').filter({ hasText: API_MESSAGES.currentPasswordWrong }).isVisible(), WAIT)
      .toBe(true);

    await form.getByLabel(T.currentPassword, { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: T.changePassword }).click();
    await expect.poll(() => here.page.getByText(API_MESSAGES.passwordUpdated).first().isVisible(), WAIT).toBe(true);
    await expect.poll(() => sessions.count(), WAIT).toBe(1);

    // The other browser's next request is refused: it lands on the sign-in page.
    await there.page.goto(`${portal.url}/account`);
    await there.page.waitForURL(/\/login/, { timeout: 30_000 });
    // This one is still signed in.
    await here.page.reload();
    await expect.poll(() => sessions.count(), WAIT).toBe(1);
    expect(here.page.url()).toMatch(/\/account$/);
    await here.close();
    await there.close();
  });

  it('"Sign out everywhere else" ends the other session after a confirmation', async () => {
    const user = await createUser(portal, 1, 'account-e2e-revoke@example.com');
    const here = await open(portal.browser);
    const there = await open(portal.browser);
    await portal.signIn(here.page, user.email, PASSWORD);
    await portal.signIn(there.page, user.email, PASSWORD);
    await goToAccount(here.page);
    await expect.poll(() => here.page.getByTestId('account-session').count(), WAIT).toBe(2);
    const trigger = here.page.getByRole('button', { name: T.signOutOthers });
    await trigger.click();
    const dialog = here.page.getByRole('dialog');
    await expect.poll(() => dialog.getByText(T.signOutOthersConfirm).isVisible(), WAIT).toBe(true);
    await dialog.getByRole('button', { name: T.signOutOthers }).click();
    await expect.poll(() => here.page.getByText(T.signedOutOthers(1)).first().isVisible(), WAIT).toBe(true);
    await expect.poll(() => here.page.getByTestId('account-session').count(), WAIT).toBe(1);
    await there.page.goto(`${portal.url}/account`);
    await there.page.waitForURL(/\/login/, { timeout: 30_000 });
    await here.close();
    await there.close();
  });

  it('the theme chosen survives signing out; the date format changes a date shown elsewhere at once', async () => {
    const { page, close } = await open(portal.browser);
    await portal.signIn(page, ADMIN.email, ADMIN.password);
    await goToAccount(page);
    expect(await isDark(page)).toBe(false);
    const prefs = page.getByRole('region', { name: T.preferencesHeading });
    await prefs.getByRole('radio', { name: 'Dark' }).check();
    await expect.poll(() => isDark(page), WAIT).toBe(true);
    await expect.poll(() => page.getByText(T.preferencesSaved).first().isVisible(), WAIT).toBe(true);

    // The activity log writes its dates the spec's way ("26 Nov 2026 14:05")...
    await page.goto(`${portal.url}/activity`);
    const when = page.locator('main table tbody tr').first();
    await expect
      .poll(async () => (await when.innerText()).match(/\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}/) !== null, WAIT)
      .toBe(true);
    // ... and in ISO once chosen.
    await goToAccount(page);
    await prefs.getByRole('radio', { name: /ISO/ }).check();
    await page.getByRole('link', { name: 'Activity', exact: true }).first().click();
    await page.waitForURL(/\/activity/, { timeout: 30_000 });
    await expect
      .poll(async () => (await when.innerText()).match(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}/) !== null, WAIT)
      .toBe(true);

    // Signing out forgets local storage (the spec's logout); the next sign-in applies the server's choices again.
    await page.goto(`${portal.url}/logout`);
    await expect.poll(() => page.getByText(TEXT.logoutSuccessful).isVisible(), WAIT).toBe(true);
    await page.goto(`${portal.url}/login`);
    await expect.poll(() => isDark(page), WAIT).toBe(false);
    await portal.signIn(page, ADMIN.email, ADMIN.password);
    await expect.poll(() => isDark(page), WAIT).toBe(true);
    await goToAccount(page);
    expect(await prefs.getByRole('radio', { name: 'Dark' }).isChecked()).toBe(true);
    expect(await prefs.getByRole('radio', { name: /ISO/ }).isChecked()).toBe(true);
    // Back to the defaults, so the screenshots below show the spec's format.
    await prefs.getByRole('radio', { name: 'System' }).check();
    await prefs.getByRole('radio', { name: /Day month year/ }).check();
    await expect.poll(() => isDark(page), WAIT).toBe(false);
    await close();
  });

  it('desktop and phone, light and dark: nothing wider than the viewport, axe clean', async () => {
    const user = await createUser(portal, 1, 'account-e2e-screens@example.com');
    // One sign-in, the looks switched in place; the page loaded anew in each.
    const { page, close } = await open(portal.browser);
    await portal.signIn(page, user.email, PASSWORD);
    for (const look of LOOKS) {
      const { name, colorScheme } = look;
      await setLook(page, look);
      await goToAccount(page);
      await expect.poll(() => page.getByTestId('account-session').count(), WAIT).toBeGreaterThan(0);
      // "System" follows the device: the browser's colour scheme.
      expect(await isDark(page)).toBe(colorScheme === 'dark');
      expect(await overflowing(page), `${name}: wider than the viewport`).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}account-${name}.png`, fullPage: true });
      expect(await axeViolations(page), `${name}: axe violations`).toEqual([]);
    }
    await close();
  });
});
