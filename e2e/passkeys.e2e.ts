/**
 * Passkeys in Chromium (issue 26 item 1; docs/two-factor.md "Passkeys"), with the DevTools virtual authenticator
 * (CTAP2, internal, resident keys, user verification): a user adds a passkey on the Security page, signs out,
 * signs in with it (offered first, no mail sent), adds an authenticator app and switches to it at the next
 * sign-in, sees the passkey used, and removes it with the password. The Security
 * page with a passkey, the sign-in's passkey step and the removal dialog at 1440x900 and 390x844, light and dark:
 * nothing wider than the viewport, axe clean; screenshots of each.
 *
 * The portal is opened as http://localhost:<port>: WebAuthn takes a domain as the relying party, never an IP
 * address, and localhost is a secure context without TLS.
 */
import { generateSync } from 'otplib';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { PASSKEY_TEXT as P } from '@portal/contract/passkeys';
import { TOTP_PERIOD_SECONDS, TWO_FACTOR_TEXT as T } from '@portal/contract/two-factor';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { codeFrom } from '../apps/api/test/smtp-catcher.ts';
import { DESKTOP, everyLook } from './support/looks.ts';
import { withVirtualAuthenticator } from './support/webauthn.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

const WAIT = { timeout: 30_000 };
const step = (ms = Date.now()) => Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS);
const codeFor = (secret: string, s: number) => generateSync({ secret, epoch: s * TOTP_PERIOD_SECONDS });
const EMAIL = 'passkey-browser@example.com';
let portal: Portal;
let base: string;

beforeAll(async () => {
  portal = await startPortal();
  base = portal.url.replace('127.0.0.1', 'localhost').replace(/\/$/, '');
});
afterAll(async () => {
  await portal?.stop();
});

async function passwordStep(page: Page) {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await page.waitForURL(/\/mfa/, WAIT);
}

async function signOut(page: Page) {
  await page.getByRole('link', { name: 'Logout' }).click();
  await expect.poll(() => page.getByText(TEXT.logoutSuccessful).isVisible(), WAIT).toBe(true);
}

describe('passkeys', () => {
  let context: BrowserContext | undefined;
  afterAll(async () => context?.close());

  it('are added on the Security page, sign in instead of a mailed code, and are removed with the password', async () => {
    await createUser(portal, 1, EMAIL);
    context = await portal.browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const { cdp, authenticatorId } = await withVirtualAuthenticator(page);

    // First sign-in by the mailed code, as every user without a strong factor.
    const before = portal.smtp.messages.length;
    await passwordStep(page);
    const mail = await portal.smtp.waitFor(
      EMAIL,
      (m) => portal.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
    );
    await page.getByLabel('Verification code').fill(codeFrom(mail));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname), WAIT);

    // Add one on the Security page.
    await page.goto(`${base}/security`);
    const section = page.getByRole('region', { name: P.heading });
    await expect.poll(() => section.getByText(P.none).isVisible(), WAIT).toBe(true);
    await section.getByRole('button', { name: P.add }).click();
    await expect.poll(() => section.getByText(P.nameRequired).isVisible(), WAIT).toBe(true);
    await section.getByLabel(P.nameLabel).fill('Work laptop');
    await section.getByRole('button', { name: P.add }).click();
    const list = section.getByTestId('passkey-list');
    await expect.poll(() => list.getByText('Work laptop').isVisible(), WAIT).toBe(true);
    await expect
      .poll(() => list.getByText(`${P.lastUsed} ${P.neverUsed}`, { exact: false }).isVisible(), WAIT)
      .toBe(true);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.rpId).toBe('localhost');
    await everyLook(page, 'passkeys-security', { within: 'main' });
    await signOut(page);

    // Sign in again: the passkey is offered first and no mail goes out.
    const mailsBefore = portal.smtp.messages.length;
    await passwordStep(page);
    await expect.poll(() => page.getByRole('heading', { name: P.signInHeading }).isVisible(), WAIT).toBe(true);
    // The emailed code stays the fallback (the company does not require a strong factor).
    expect(await page.getByRole('button', { name: T.emailInstead }).isVisible()).toBe(true);
    await everyLook(page, 'passkeys-sign-in', { within: 'body' });
    await page.getByRole('button', { name: P.signInButton }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname), WAIT);
    expect(portal.smtp.messages.slice(mailsBefore).filter((m) => m.to.includes(EMAIL))).toHaveLength(0);
    const { credentials: after } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);

    // An authenticator app beside it: the passkey is still offered first, and the user may switch to the app.
    await page.goto(`${base}/security`);
    await page.getByRole('button', { name: T.start }).click();
    const secretText = page.getByTestId('totp-secret');
    await expect.poll(() => secretText.isVisible(), WAIT).toBe(true);
    const secret = (await secretText.innerText()).trim();
    const confirmStep = step();
    await page.getByLabel(T.codeLabel, { exact: true }).fill(codeFor(secret, confirmStep));
    await page.getByRole('button', { name: T.confirm }).click();
    await page.getByRole('button', { name: T.done }).click();
    await expect.poll(() => page.getByText(T.enabled).isVisible(), WAIT).toBe(true);
    await signOut(page);
    await passwordStep(page);
    await expect.poll(() => page.getByRole('heading', { name: P.signInHeading }).isVisible(), WAIT).toBe(true);
    await page.getByRole('button', { name: P.useAuthenticator }).click();
    await expect.poll(() => page.getByRole('heading', { name: T.signInHeading }).isVisible(), WAIT).toBe(true);
    expect(await page.getByRole('button', { name: P.usePasskey }).isVisible()).toBe(true);
    await screenshot(page, 'passkeys-switched-to-app');
    // The confirming code's step is spent: the next step's code (in the window while now is that step or next to it).
    await page.getByLabel('Authenticator code').fill(codeFor(secret, Math.max(confirmStep + 1, step())));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname), WAIT);

    // Used: the list says when; remove it with the password (a wrong one refused first).
    await page.goto(`${base}/security`);
    await expect.poll(() => list.getByText(`${P.lastUsed} ${P.neverUsed}`, { exact: false }).count(), WAIT).toBe(0);
    await expect.poll(() => list.getByText('Work laptop').isVisible(), WAIT).toBe(true);
    await list.getByRole('button', { name: `${P.remove} Work laptop` }).click();
    const dialog = page.getByRole('dialog', { name: P.removeTitle('Work laptop') });
    await expect.poll(() => dialog.isVisible(), WAIT).toBe(true);
    await dialog.getByLabel(P.passwordLabel).fill('not-the-password');
    await dialog.getByRole('button', { name: P.remove }).click();
    await expect.poll(() => dialog.getByText(P.wrongPassword).isVisible(), WAIT).toBe(true);
    await dialog.getByLabel(P.passwordLabel).fill(PASSWORD);
    await everyLook(page, 'passkeys-remove', { within: '[role="dialog"]' });
    await dialog.getByRole('button', { name: P.remove }).click();
    await expect.poll(() => section.getByText(P.none).isVisible(), WAIT).toBe(true);
    await expect.poll(() => dialog.isVisible(), WAIT).toBe(false);
    await signOut(page);

    // Removed: the sign-in asks for the app's code again, and its fallback is the spec's emailed code.
    await passwordStep(page);
    await expect.poll(() => page.getByRole('heading', { name: T.signInHeading }).isVisible(), WAIT).toBe(true);
    expect(await page.getByRole('button', { name: P.usePasskey }).count()).toBe(0);
    await page.getByRole('button', { name: T.emailInstead }).click();
    await expect.poll(() => page.getByRole('heading', { name: TEXT.mfaHeading }).isVisible(), WAIT).toBe(true);
  });
});
