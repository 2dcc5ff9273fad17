/**
 * Step-up before deleting a VM, in Chromium (issue 26 item 2; docs/two-factor.md "Step-up"): a session signed in
 * just now deletes without being asked (the spec's delete flow, unchanged); once its proof is older than 5 minutes
 * (set back in the database here) the delete confirmation asks "Confirm it is you" inline, refuses a wrong password
 * and deletes after the right one. Desktop and phone, light and dark: nothing wider than the viewport, axe clean on
 * the dialog, screenshots step-up-<viewport>-<scheme>.png. A user with a passkey (Chromium's DevTools virtual
 * authenticator, on http://localhost: WebAuthn takes a domain) is offered "Use my passkey" first, and deletes a VM
 * from a stale session with it alone; screenshots step-up-passkey-<viewport>-<scheme>.png.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { STEP_UP_TEXT } from '@portal/contract/step-up-text';
import { sessions } from '../apps/api/src/db/schema.ts';
import { ADMIN } from '../apps/api/test/harness.ts';
import { createUser, insertVm, PASSWORD } from '../apps/api/test/fixtures.ts';
import { codeFrom } from '../apps/api/test/smtp-catcher.ts';
import { PASSKEY_TEXT } from '@portal/contract/passkeys';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, everyLook, LOOKS, setLook, type ColorScheme } from './support/looks.ts';
import { withVirtualAuthenticator } from './support/webauthn.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const WAIT = { timeout: 30_000 };
let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

async function open(browser: Browser, viewport: typeof DESKTOP, colorScheme: ColorScheme) {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { page, close: () => context.close() };
}

/** Elements of the page reaching past the viewport's sides. */
const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (getComputedStyle(el).position === 'fixed' && r.right <= 0) continue;
      if (r.right > width + 1 || r.left < -1) out.push(`${el.tagName.toLowerCase()} ${Math.round(r.right)}`);
    }
    return out;
  });

async function deleteFromDetails(page: Page, vmId: number, name: string, base = portal.url.replace(/\/$/, '')) {
  await page.goto(`${base}/virtualMachineDetails/${vmId}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText(`Delete ${name}?`).waitFor(WAIT);
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  return dialog;
}

describe('step-up before deleting a VM', () => {
  it('fresh sign-in: no prompt; stale: the dialog asks, refuses a wrong password, deletes after the right one', async () => {
    // One sign-in, the looks switched in place: the first look's proof is the sign-in's, each later one's the step-up
    // the look before ended with (as fresh: no prompt either).
    const { page, close } = await open(portal.browser, DESKTOP, 'light');
    await portal.signIn(page);
    for (const look of LOOKS) {
      const tag = look.name;
      await setLook(page, look);

      // Just signed in (or stepped up): the spec's flow, no prompt.
      const fresh = await insertVm(portal, { companyId: 1, teamId: null, name: `fresh-${tag}`, status: 'Stopped' });
      await deleteFromDetails(page, fresh.id, fresh.name);
      await page.getByText(TEXT.vmDeleted).waitFor(WAIT);
      expect(await page.getByText(STEP_UP_TEXT.title).count()).toBe(0);

      // The proof is 10 minutes old: the same dialog asks for it.
      await portal.db.update(sessions).set({ steppedUpAt: new Date(Date.now() - 10 * 60_000) });
      const stale = await insertVm(portal, { companyId: 1, teamId: null, name: `stale-${tag}`, status: 'Stopped' });
      const dialog = await deleteFromDetails(page, stale.id, stale.name);
      await dialog.getByText(STEP_UP_TEXT.body).waitFor(WAIT);
      const field = dialog.getByLabel(STEP_UP_TEXT.passwordLabel);
      await field.fill('not the password');
      await dialog.getByRole('button', { name: STEP_UP_TEXT.confirm }).click();
      await dialog.getByText(STEP_UP_TEXT.wrong).waitFor(WAIT);
      expect(await overflowing(page), `${tag}: wider than the viewport`).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}step-up-${tag}.png`, fullPage: true });
      expect(await axeViolations(page, '[role="dialog"]'), `${tag}: axe`).toEqual([]);

      await field.fill(ADMIN.password);
      await field.press('Enter');
      await page.getByText(TEXT.vmDeleted).waitFor(WAIT);
      await page.waitForURL(/\/virtualMachines$/, WAIT);
    }
    await close();
  });
});

describe('step-up with a passkey', () => {
  let context: BrowserContext | undefined;
  afterAll(async () => context?.close());

  it('a stale session deletes a VM after "Use my passkey"', async () => {
    const base = portal.url.replace('127.0.0.1', 'localhost').replace(/\/$/, '');
    const email = 'step-up-passkey-browser@example.com';
    await createUser(portal, 1, email, { isCompanyAdmin: true });
    context = await portal.browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const { cdp, authenticatorId } = await withVirtualAuthenticator(page);

    // Signed in by the mailed code, on localhost; a passkey added on the Security page.
    const before = portal.smtp.messages.length;
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Login' }).click();
    await page.waitForURL(/\/mfa/, WAIT);
    const mail = await portal.smtp.waitFor(
      email,
      (m) => portal.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
    );
    await page.getByLabel('Verification code').fill(codeFrom(mail));
    await page.getByRole('button', { name: 'Authenticate' }).click();
    await page.waitForURL((u) => !/\/(mfa|login)/.test(u.pathname), WAIT);
    await page.goto(`${base}/security`);
    const section = page.getByRole('region', { name: PASSKEY_TEXT.heading });
    await section.getByLabel(PASSKEY_TEXT.nameLabel).fill('Work laptop');
    await section.getByRole('button', { name: PASSKEY_TEXT.add }).click();
    await section.getByTestId('passkey-list').getByText('Work laptop').waitFor(WAIT);
    const counterBefore = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount;

    // The proof is 10 minutes old: the delete asks, offering the passkey first.
    await portal.db.update(sessions).set({ steppedUpAt: new Date(Date.now() - 10 * 60_000) });
    const vm = await insertVm(portal, { companyId: 1, teamId: null, name: 'stale-passkey', status: 'Stopped' });
    const dialog = await deleteFromDetails(page, vm.id, vm.name, base);
    const usePasskey = dialog.getByRole('button', { name: STEP_UP_TEXT.usePasskey });
    await usePasskey.waitFor(WAIT);
    await dialog.getByLabel(STEP_UP_TEXT.passwordLabel).waitFor(WAIT);
    await everyLook(page, 'step-up-passkey', { within: '[role="dialog"]', overflow: overflowing });

    await usePasskey.click();
    await page.getByText(TEXT.vmDeleted).waitFor(WAIT);
    await page.waitForURL(/\/virtualMachines$/, WAIT);
    const counterAfter = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!.signCount;
    expect(counterAfter).toBeGreaterThan(counterBefore);
  });
});
