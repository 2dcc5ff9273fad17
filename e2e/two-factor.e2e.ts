/**
 * Authenticator apps in Chromium (issue 26 item 1; docs/two-factor.md): a user sets one up on the Security page
 * (the key read from the page, a code computed here with otplib, the recovery codes shown once), signs out, and
 * signs in with the app's code instead of a mailed one; then "Email me a code instead" gives the spec's screen and
 * the mailed code signs in. Screenshots of the set-up, the codes, the sign-in step and the page once on; axe finds
 * nothing in the Security page's main area.
 */
import { generateSync } from 'otplib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS, TWO_FACTOR_TEXT as T } from '@portal/contract/two-factor';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { codeFrom } from '../apps/api/test/smtp-catcher.ts';
import { axeViolations } from './support/axe.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

const EMAIL = 'totp-browser@example.com';
const step = (ms = Date.now()) => Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS);
const codeFor = (secret: string, s: number) => generateSync({ secret, epoch: s * TOTP_PERIOD_SECONDS });

async function passwordStep(page: Page) {
  await page.goto(`${portal.url.replace(/\/$/, '')}/login`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/mfa/);
}

async function signOut(page: Page) {
  await page.getByRole('link', { name: 'Logout' }).click();
  await expect.poll(() => page.getByText(TEXT.logoutSuccessful).isVisible()).toBe(true);
}

describe('authenticator app', () => {
  it('is set up on the Security page and then signs in instead of a mailed code', async () => {
    await createUser(portal, 1, EMAIL);
    const { context, page } = await portal.newPage();
    await portal.signIn(page, EMAIL, PASSWORD);

    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL(/\/security$/);
    await expect.poll(() => page.getByText(T.disabled).isVisible()).toBe(true);
    await page.getByRole('button', { name: T.start }).click();
    const secretText = page.getByTestId('totp-secret');
    await expect.poll(() => secretText.isVisible()).toBe(true);
    const secret = (await secretText.innerText()).trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.getByRole('img', { name: 'QR code for your authenticator app' }).isVisible()).toBe(true);
    await screenshot(page, 'two-factor-setup');

    // A wrong code first: refused with the server's words, still off.
    const codeField = page.getByLabel(T.codeLabel);
    const confirmStep = step();
    await codeField.fill(codeFor(secret, confirmStep + 5));
    await page.getByRole('button', { name: T.confirm }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toBe(T.wrongCode);
    await codeField.fill(codeFor(secret, confirmStep));
    await page.getByRole('button', { name: T.confirm }).click();
    const codes = page.getByTestId('recovery-codes').getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(RECOVERY_CODE_COUNT);
    await screenshot(page, 'two-factor-recovery-codes');
    await page.getByRole('button', { name: T.done }).click();
    await expect.poll(() => page.getByText(T.enabled).isVisible()).toBe(true);
    expect(await page.getByTestId('recovery-left').innerText()).toBe(T.recoveryLeft(RECOVERY_CODE_COUNT));
    await page.waitForTimeout(300);
    await screenshot(page, 'two-factor-on');
    expect(await axeViolations(page, 'main')).toEqual([]);
    // On a phone nothing runs off the side.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'two-factor-on-phone');
    await page.setViewportSize({ width: 1360, height: 860 });
    await signOut(page);

    // Sign in again: the app's code is asked for, no mail goes out.
    const mailsBefore = portal.smtp.messages.length;
    await passwordStep(page);
    await expect.poll(() => page.getByRole('heading', { name: T.signInHeading }).isVisible()).toBe(true);
    await screenshot(page, 'two-factor-sign-in');
    // The confirming code's step is spent: the next step's code is new (and within the window while now is
    // that step or one either side of it).
    await page.getByLabel('Authenticator code').fill(codeFor(secret, Math.max(confirmStep + 1, step())));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname));
    expect(portal.smtp.messages.slice(mailsBefore).filter((m) => m.to.includes(EMAIL))).toHaveLength(0);
    await signOut(page);

    // The emailed code stays the fallback: the spec's screen and texts.
    await passwordStep(page);
    await page.getByRole('button', { name: T.emailInstead }).click();
    await expect.poll(() => page.getByRole('heading', { name: TEXT.mfaHeading }).isVisible()).toBe(true);
    const mail = await portal.smtp.waitFor(
      EMAIL,
      (m) => portal.smtp.messages.indexOf(m) >= mailsBefore && /verification code/.test(m.subject),
    );
    await page.getByLabel('Verification code').fill(codeFrom(mail));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname));
    await context.close();
  });
});
