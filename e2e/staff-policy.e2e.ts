/**
 * A reseller owner requires an authenticator app or a passkey of its staff, in Chromium (issue 26 item 2;
 * docs/two-factor.md "Reseller staff policy"): the reseller area links to its Security page; the owner sets up their
 * app there and turns the staff policy on through a confirmation; a support member without a factor signs in with
 * the emailed code and is held on /reseller/security with the policy's message until their app is on. 1440x900 light
 * and 390x844 dark: nothing wider than the viewport, axe clean, screenshots staff-policy-*.png.
 */
import { eq } from 'drizzle-orm';
import { generateSync } from 'otplib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_POLICY_TEXT as P, RESELLER_POLICY_TEXT as S } from '@portal/contract/company-policy';
import { TOTP_PERIOD_SECONDS, TWO_FACTOR_TEXT as T } from '@portal/contract/two-factor';
import { companies } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const WAIT = { timeout: 30_000 };
let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await portal?.stop();
});

const codeFor = (secret: string) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS });

async function setUpApp(page: Page): Promise<void> {
  await page.getByRole('button', { name: T.start }).click();
  const secretText = page.getByTestId('totp-secret');
  await secretText.waitFor(WAIT);
  const secret = (await secretText.innerText()).trim();
  await page.getByLabel(T.codeLabel).fill(codeFor(secret));
  await page.getByRole('button', { name: T.confirm }).click();
  await page.getByRole('button', { name: T.done }).click();
  await page.getByText(T.enabled).waitFor(WAIT);
}

/** Elements of the page reaching past the viewport's sides (the closed drawer, fixed off-screen, aside). */
const overflowing = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || el.closest('.Toastify')) continue; // toasts slide in from the side
      if (getComputedStyle(el).position === 'fixed' && r.right <= 0) continue;
      if (r.right > width + 1 || r.left < -1)
        out.push(`${el.tagName.toLowerCase()}.${String(el.className).slice(0, 40)}`);
    }
    return out;
  });

describe("a reseller owner's staff policy", () => {
  it('the owner turns it on from the reseller area; staff without a factor are held to the set-up', async () => {
    const [company] = await portal.db.select().from(companies).where(eq(companies.id, 1));
    const [staff] = await portal.db
      .insert(companies)
      .values({ resellerId: company!.resellerId, name: 'Policy staff', kind: 'staff' })
      .returning();
    await createUser(portal, staff!.id, 'staff-policy-owner@example.com', { staffRole: 'owner' });
    await createUser(portal, staff!.id, 'staff-policy-support@example.com', { staffRole: 'support' });

    const owner = await portal.newPage();
    await owner.page.setViewportSize({ width: 1440, height: 900 });
    await portal.signIn(owner.page, 'staff-policy-owner@example.com', PASSWORD);
    await owner.page.waitForURL(/\/reseller\//, WAIT);
    await owner.page.getByRole('link', { name: 'Security' }).first().click();
    await owner.page.waitForURL(/\/reseller\/security$/, WAIT);
    await setUpApp(owner.page);
    const toggle = owner.page.getByRole('switch', { name: S.requireLabel });
    await toggle.click();
    await owner.page.getByText(S.confirmOnBody).waitFor(WAIT);
    await owner.page.getByRole('button', { name: S.confirmOn, exact: true }).click();
    await owner.page.getByText(S.onMessage).waitFor(WAIT);
    await expect.poll(() => toggle.isChecked(), WAIT).toBe(true);
    expect(await overflowing(owner.page)).toEqual([]);
    await owner.page.screenshot({ path: `${SCREENSHOTS}staff-policy-owner-desktop-light.png`, fullPage: true });
    expect(await axeViolations(owner.page, 'main')).toEqual([]);
    await owner.context.close();

    const context = await portal.browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await portal.signIn(page, 'staff-policy-support@example.com', PASSWORD);
    await page.waitForURL(/\/reseller\/security$/, WAIT);
    // In the reseller's words, not the company's.
    await page.getByText(S.setUpRequired).waitFor(WAIT);
    expect(await page.getByText(P.setUpRequired).count()).toBe(0);
    // The switch is the owner's: support sees it, disabled.
    expect(await page.getByRole('switch', { name: S.requireLabel }).isDisabled()).toBe(true);
    expect(await overflowing(page)).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}staff-policy-held-phone-dark.png`, fullPage: true });
    expect(await axeViolations(page, 'main')).toEqual([]);
    // Another screen of the reseller area sends them back.
    await page.goto(`${portal.url.replace(/\/$/, '')}/reseller/companies`);
    await page.waitForURL(/\/reseller\/security$/, WAIT);
    await setUpApp(page);
    await page.goto(`${portal.url.replace(/\/$/, '')}/reseller/companies`);
    await page.getByRole('heading', { name: 'Companies', level: 1 }).waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe('/reseller/companies');
    await context.close();
  });
});
