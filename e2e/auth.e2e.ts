/** Sign-in and the auth screens in Chromium against the real server and a real SMTP peer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { INVITE_TOKEN_TTL_MS } from '@portal/contract/constants';
import { TEXT, VALIDATION } from '@portal/contract/messages';
import { users } from '../apps/api/src/db/schema.ts';
import { hashPassword } from '../apps/api/src/lib/passwords.ts';
import { createOneTimeTokens } from '../apps/api/src/modules/auth/one-time-tokens.ts';
import { cryptoRandom } from '../apps/api/src/lib/crypto.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { codeFrom, linkFrom } from '../apps/api/test/smtp-catcher.ts';
import { ADMIN, screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
const SECRET = 'test-secret-that-is-long-enough-0123456789';

beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

async function addUser(email: string, password: string | null, extra: Partial<typeof users.$inferInsert> = {}) {
  const [row] = await portal.db
    .insert(users)
    .values({
      companyId: 1,
      email,
      firstName: 'Eve',
      lastName: 'Example',
      passwordHash: password ? await hashPassword(password) : null,
      emailConfirmedAt: password ? new Date() : null,
      ...extra,
    })
    .returning();
  return row!;
}

const path = (page: Page) => new URL(page.url()).pathname;

describe('sign-in', () => {
  it('signs in with the mailed code and shows the shell with branding', async () => {
    const { context, page } = await portal.newPage();
    await page.goto(`${portal.url}/login`);
    await expect.poll(() => page.getByRole('heading', { name: /welcome/i }).isVisible()).toBe(true);
    // Before anyone signs in: the acronym title, the default icon, no logo.
    expect(await page.title()).toBe('VMP');
    const defaultIcon = await page.locator('link[rel~="icon"]').getAttribute('href');
    expect(await page.getByAltText(TEXT.companyLogoAlt).count()).toBe(0);
    await screenshot(page, 'login');
    await portal.signIn(page);
    expect(path(page)).toBe('/');
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    // Branding from the user's record: tab title, tab icon, logo.
    await expect.poll(() => page.title()).toBe('Northwind Hosting');
    const icon = await page.locator('link[rel~="icon"]').getAttribute('href');
    expect(icon).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(icon).not.toBe(defaultIcon);
    const logo = page.getByAltText(TEXT.companyLogoAlt);
    expect(await logo.getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    // Names at the bottom of the navigation, five links and Logout.
    // (In the navigation: the dashboard's recent activity names people too.)
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Main' }).getByText('Ada Admin').isVisible())
      .toBe(true);
    for (const name of ['Dashboard', 'Virtual Machines', 'Teams', 'Users', 'Support', 'Logout']) {
      expect(await page.getByRole('link', { name }).count(), name).toBeGreaterThan(0);
    }
    await screenshot(page, 'dashboard-shell');
    // Signed in, the login screen passes through the MFA screen, which sends the user on to the dashboard.
    const visited: string[] = [];
    page.on('framenavigated', (frame) => {
      // (A document load and the router's replace both report /login.)
      if (frame === page.mainFrame() && visited.at(-1) !== path(page)) visited.push(path(page));
    });
    await page.goto(`${portal.url}/login`);
    await page.waitForURL((u) => u.pathname === '/');
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    expect(visited).toEqual(['/login', '/mfa', '/']);
    await context.close();
  });

  it('shows the validation messages of the login and MFA forms, and a wrong code', async () => {
    const { context, page } = await portal.newPage();
    await page.goto(`${portal.url}/login`);
    await page.getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => page.getByText(VALIDATION.emailRequired).isVisible()).toBe(true);
    expect(await page.getByText(VALIDATION.passwordRequired).isVisible()).toBe(true);
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => page.getByText(VALIDATION.emailFormat).isVisible()).toBe(true);

    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill('Wrong-Password-1!');
    await page.getByRole('button', { name: 'Login' }).click();
    await expect.poll(() => page.getByText(/Invalid email or password/).isVisible()).toBe(true);
    expect(path(page)).toBe('/login');

    const before = portal.smtp.messages.length;
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/mfa/);
    await expect.poll(() => page.getByText(TEXT.mfaHeading).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await expect.poll(() => page.getByText(VALIDATION.mfaRequired).isVisible()).toBe(true);
    const mail = await portal.smtp.waitFor(ADMIN.email, (m) => portal.smtp.messages.indexOf(m) >= before);
    const code = codeFrom(mail);
    await page.getByLabel(/code/i).fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await expect.poll(() => page.getByText(TEXT.invalidMfaCode).isVisible()).toBe(true);
    await screenshot(page, 'mfa-invalid');
    await page.getByLabel(/code/i).fill(code);
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await context.close();
  });

  it('sends a protected route to /login when signed out, and shows the fallback for unknown routes', async () => {
    const { context, page } = await portal.newPage();
    await page.goto(`${portal.url}/virtualMachines`);
    await page.waitForURL(/\/login/);
    await page.goto(`${portal.url}/no/such/page`);
    await expect.poll(() => page.getByText(TEXT.unexpectedError).isVisible()).toBe(true);
    await context.close();
  });

  it('keeps the session across a browser restart only with remember-me', async () => {
    for (const rememberMe of [true, false]) {
      const { context, page } = await portal.newPage();
      await portal.signIn(page, ADMIN.email, ADMIN.password, { rememberMe });
      const state = await context.storageState();
      await context.close();
      // A restart drops cookies without an expiry (browser-session cookies).
      const restarted = await portal.browser.newContext({
        storageState: { ...state, cookies: state.cookies.filter((c) => c.expires > 0) },
      });
      const again = await restarted.newPage();
      await again.goto(`${portal.url}/`);
      if (rememberMe) {
        await expect
          .poll(() => again.getByRole('heading', { name: 'Dashboard' }).isVisible(), { timeout: 10_000 })
          .toBe(true);
        expect(path(again)).toBe('/');
      } else {
        await again.waitForURL(/\/login/);
      }
      await restarted.close();
    }
  });

  it('logs out on the server and persists the collapsed navigation across reloads', async () => {
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    await page.getByRole('button', { name: TEXT.collapseSidebar }).click();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('sidebar-collapsed'))).toBe('true');
    await page.reload();
    await expect.poll(() => page.getByRole('button', { name: TEXT.expandSidebar }).isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByText('Ada Admin').isVisible()).toBe(false);
    await screenshot(page, 'nav-collapsed');
    await page.getByRole('button', { name: TEXT.expandSidebar }).click();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('sidebar-collapsed'))).toBe('false');

    await page.getByRole('link', { name: 'Logout' }).click();
    await expect.poll(() => page.getByText(TEXT.logoutSuccessful).isVisible()).toBe(true);
    await screenshot(page, 'logout');
    await page.getByRole('button', { name: 'Return to Login' }).click();
    await page.waitForURL(/\/login/);
    // The server session is gone: a protected page sends us back to login.
    await page.goto(`${portal.url}/users`);
    await page.waitForURL(/\/login/);
    await context.close();
  });
});

describe('passwords and invitations', () => {
  it('resets a forgotten password through the mailed link', async () => {
    const email = 'forgot-ui@example.com';
    await addUser(email, 'Old-Password-123!');
    const { context, page } = await portal.newPage();
    await page.goto(`${portal.url}/login`);
    await page.getByRole('link', { name: /forgot password/i }).click();
    await page.waitForURL(/\/forgotPassword/);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByText(VALIDATION.forgotEmailRequired).isVisible()).toBe(true);
    await page.getByLabel(/email/i).fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => page.getByText(TEXT.forgotSent).isVisible()).toBe(true);
    expect(await page.getByText(TEXT.forgotSentBody).isVisible()).toBe(true);
    expect(await page.getByText(TEXT.forgotContact).isVisible()).toBe(true);
    await screenshot(page, 'forgot-sent');

    const mail = await portal.smtp.waitFor(email, (m) => /reset/i.test(m.subject));
    const link = linkFrom(mail);
    await page.goto(link.toString());
    await page.getByLabel('New Password').fill('New-Password-456!');
    await page.getByLabel('Confirm Password').fill('New-Password-999!');
    await page.getByRole('button', { name: /reset/i }).click();
    await expect.poll(() => page.getByText(VALIDATION.passwordMismatch).isVisible()).toBe(true);
    await page.getByLabel('Confirm Password').fill('New-Password-456!');
    await screenshot(page, 'reset-checklist');
    await page.getByRole('button', { name: /reset/i }).click();
    await expect.poll(() => page.getByText(TEXT.passwordReset).isVisible()).toBe(true);
    await context.close();

    const fresh = await portal.newPage();
    await portal.signIn(fresh.page, email, 'New-Password-456!');
    expect(path(fresh.page)).toBe('/');
    await fresh.context.close();
  });

  it('confirms an invitation from its link and signs the new user in', async () => {
    const invited = await addUser('invited-ui@example.com', null, { firstName: '', lastName: '' });
    const tokens = createOneTimeTokens({ db: portal.db, secret: SECRET, clock: systemClock, random: cryptoRandom });
    const key = await tokens.issue(invited.id, 'confirm_email', INVITE_TOKEN_TTL_MS);
    const { context, page } = await portal.newPage();

    await page.goto(`${portal.url}/confirmNewUser?id=${invited.id}`);
    await expect.poll(() => page.getByText(VALIDATION.missingResetToken).isVisible()).toBe(true);

    await page.goto(`${portal.url}/confirmNewUser?token=${encodeURIComponent(key)}&id=${invited.id}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Confirm Email' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Confirm Email' }).click();
    await expect.poll(() => page.getByText(VALIDATION.firstNameRequired).isVisible()).toBe(true);
    expect(await page.getByText(VALIDATION.lastNameRequired).isVisible()).toBe(true);
    await page.getByLabel('First Name').fill('Ivy');
    await page.getByLabel('Last Name').fill('Invited');
    await page.getByLabel('New Password').fill('Invited-Pass-123!');
    await page.getByLabel('Confirm Password').fill('Invited-Pass-123!');
    for (const item of [
      'Minimum 12 characters',
      'Special character',
      'Contains number',
      'Uppercase letter',
      'Lowercase letter',
      'Password confirmed',
    ]) {
      expect(await page.getByText(item).isVisible(), item).toBe(true);
    }
    await screenshot(page, 'confirm-email');
    await page.getByRole('button', { name: 'Confirm Email' }).click();
    await expect.poll(() => page.getByText(TEXT.emailConfirmed).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Go to Login' }).click();
    await page.waitForURL(/\/login/);
    await portal.signIn(page, 'invited-ui@example.com', 'Invited-Pass-123!');
    await expect.poll(() => page.getByText('Ivy Invited').isVisible()).toBe(true);
    await context.close();
  });

  it('sends a user who must reset their password to /resetPassword after the code', async () => {
    const email = 'forced-ui@example.com';
    await addUser(email, 'Temporary-Pass-1!', { forcePasswordReset: true });
    const { context, page } = await portal.newPage();
    const before = portal.smtp.messages.length;
    await page.goto(`${portal.url}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('Temporary-Pass-1!');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/mfa/);
    const mail = await portal.smtp.waitFor(email, (m) => portal.smtp.messages.indexOf(m) >= before);
    await page.getByLabel(/code/i).fill(codeFrom(mail));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL(/\/resetPassword/);
    await page.getByLabel('New Password').fill('short');
    await page.getByLabel('Confirm Password').fill('short');
    await page.getByRole('button', { name: /reset/i }).click();
    await expect.poll(() => page.getByText(VALIDATION.passwordMin).isVisible()).toBe(true);
    await page.getByLabel('New Password').fill('Permanent-Pass-1!');
    await page.getByLabel('Confirm Password').fill('Permanent-Pass-1!');
    await page.getByRole('button', { name: /reset/i }).click();
    await expect.poll(() => page.getByText(TEXT.passwordReset).isVisible()).toBe(true);
    await page.getByRole('button', { name: /dashboard/i }).click();
    await page.waitForURL((u) => u.pathname === '/');
    await expect.poll(() => page.getByRole('heading', { name: 'Dashboard' }).isVisible()).toBe(true);
    await context.close();
  });
});
