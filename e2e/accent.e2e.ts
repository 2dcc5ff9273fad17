/**
 * The accent colour in the customer portal (issue 25 item 8): the reseller's owner sets an accent through the API
 * (PUT /reseller/branding), and a customer of that reseller sees it, light and dark, at 1440x900 and 390x844: the
 * primary button is the accent, its focus ring the accent (dark: its tint), the active navigation item the accent
 * (desktop), links the accent's AA text shade (light) or dark mode's tint (dark), as brand-colors.ts computes them.
 * Nothing is wider than the viewport and axe finds nothing on the page (contrast included).
 * A pale accent (#f5d90a): the text on it is near-black (brand-colors.ts textOn), on the sign-in page of the brand's
 * domain and on /account (the primary button, the active item), light and dark, 1440x900 and 390x844, axe clean.
 */
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEXT } from '@portal/contract/account';
import { NEAR_BLACK, accentVariables } from '@portal/contract/brand-colors';
import { companies, resellerDomains, resellers } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { setLook, signedInOnce } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const OWNER = 'owner@accent.example';
const ACCENT = '#0f766e';
const PALE = '#f5d90a';
/** The demo reseller's domain: its sign-in page wears the brand (docs/branding.md). */
const HOST = 'accent.example.test';
const WAIT = { timeout: 30_000 };
const SIZES = [
  [{ width: 1440, height: 900 }, 'light'],
  [{ width: 1440, height: 900 }, 'dark'],
  [{ width: 390, height: 844 }, 'light'],
  [{ width: 390, height: 844 }, 'dark'],
] as const;
let portal: Portal;

beforeAll(async () => {
  portal = await startPortal({ browserArgs: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
  // The demo customer (admin@example.com, company 1) belongs to the demo reseller; its owner sets the accent.
  const [customer] = await portal.db.select().from(companies).where(eq(companies.id, 1));
  await portal.db
    .insert(resellerDomains)
    .values({ host: HOST, resellerId: customer!.resellerId, verifiedAt: new Date() });
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: customer!.resellerId, name: 'Accent staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
});
afterAll(async () => {
  await owner.close();
  await portal?.stop();
});

/** "#0f766e" → "rgb(15, 118, 110)", as getComputedStyle answers. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

const computed = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

/** The owner, signed in once for both accents. */
const owner = signedInOnce(async () => {
  const opened = await portal.newPage();
  opened.page.setDefaultTimeout(30_000);
  await portal.signIn(opened.page, OWNER, PASSWORD);
  return opened;
});

/** The owner sets the accent through the API, as the branding screen does. */
async function setAccent(accent: string) {
  const { page } = await owner.get();
  const saved = await page.evaluate(
    async ({ api, accent }) => {
      const csrf = document.cookie
        .split('; ')
        .find((c) => c.startsWith('csrf_token='))
        ?.slice('csrf_token='.length);
      const res = await fetch(`${api}/reseller/branding`, {
        method: 'PUT',
        credentials: 'include',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf ?? '' },
        body: JSON.stringify({
          name: 'Tealwave Cloud',
          logoUrl: '',
          tabLogoUrl: '',
          email: '',
          supportEmail: '',
          accentColor: accent,
        }),
      });
      return { status: res.status, body: (await res.json()) as { data?: { accentColor?: string } } };
    },
    { api: portal.apiUrl, accent: accent.toUpperCase() },
  );
  expect(saved, JSON.stringify(saved.body)).toMatchObject({ status: 200 });
  const [reseller] = await portal.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
  expect(reseller!.accentColor).toBe(accent);
}

describe('the accent in the customer portal', () => {
  it('a customer of a reseller with an accent sees it on buttons, focus rings, the active item and links, light and dark', async () => {
    await setAccent(ACCENT);

    const shades = accentVariables(ACCENT);
    // One sign-in (after the accent is set: the profile brings it), the looks switched in place, /account loaded anew.
    const context = await portal.browser.newContext({ viewport: SIZES[0][0], colorScheme: SIZES[0][1] });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    await portal.signIn(page);
    for (const [viewport, scheme] of SIZES) {
      await setLook(page, { viewport, colorScheme: scheme });
      await page.goto(`${portal.url}/account`);
      const button = page.getByRole('button', { name: ACCOUNT_TEXT.changePassword });
      await expect.poll(() => button.isVisible(), WAIT).toBe(true);
      await expect
        .poll(() => page.evaluate(() => document.documentElement.style.getPropertyValue('--color-brand-600')), WAIT)
        .toBe(ACCENT);
      await page.mouse.move(0, 0);
      // The primary button is the accent, in both modes (white text on it: 5.47:1).
      await expect.poll(() => button.evaluate((b) => getComputedStyle(b).backgroundColor), WAIT).toBe(rgb(ACCENT));
      // Links: the accent's AA text shade on the light page, dark mode's tint on the dark one.
      const link = 'main a[href$="/security"]';
      expect(await computed(page, link, 'color')).toBe(
        rgb(scheme === 'dark' ? shades['--color-brand-300']! : shades['--color-brand-700']!),
      );
      // The active navigation item (the sidebar, on the desktop; the phone's menu is closed).
      if (viewport.width > 1000) {
        expect(await computed(page, 'nav[aria-label="Main"] a[aria-current="page"]', 'background-color')).toBe(
          rgb(ACCENT),
        );
      }
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await axeViolations(page, 'main')).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}accent-customer-${viewport.width}-${scheme}.png`, fullPage: true });
      // Its focus ring (keyboard focus) is the accent too (dark mode: the accent's tint, which reads on the dark page).
      await button.focus();
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Tab');
      // (polled: the button's colour transition includes its outline's colour)
      await expect
        .poll(() => button.evaluate((b) => b.matches(':focus-visible') && getComputedStyle(b).outlineColor), WAIT)
        .toBe(rgb(scheme === 'dark' ? shades['--color-brand-300']! : ACCENT));
    }
    await context.close();
  });

  it('a pale accent gets near-black text wherever text sits on it: the sign-in page and /account, light and dark, axe clean', async () => {
    await setAccent(PALE);
    const shades = accentVariables(PALE);
    expect(shades['--color-on-brand-600']).toBe(NEAR_BLACK);
    // One context, the looks switched in place: signed in on the portal's own address in the first (the brand's
    // domain is another host, never signed in), the pages loaded anew in each.
    const context = await portal.browser.newContext({ viewport: SIZES[0][0], colorScheme: SIZES[0][1] });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    for (const [i, [viewport, scheme]] of SIZES.entries()) {
      const tag = `${viewport.width}-${scheme}`;
      if (i > 0) await setLook(page, { viewport, colorScheme: scheme });

      // The sign-in page of the brand's domain: the Login button is the accent with near-black text (white: 1.4:1).
      await page.goto(`${portal.url.replace('127.0.0.1', HOST)}/login`);
      const login = page.getByRole('button', { name: 'Login' });
      await expect.poll(() => login.evaluate((b) => getComputedStyle(b).backgroundColor), WAIT).toBe(rgb(PALE));
      expect(await login.evaluate((b) => getComputedStyle(b).color)).toBe(rgb(NEAR_BLACK));
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}accent-pale-login-${tag}.png`, fullPage: true });

      // Signed in (on the portal's own address, the customer's profile carries the accent): /account's primary button.
      if (i === 0) await portal.signIn(page);
      await page.goto(`${portal.url}/account`);
      const button = page.getByRole('button', { name: ACCOUNT_TEXT.changePassword });
      await expect.poll(() => button.isVisible(), WAIT).toBe(true);
      await page.mouse.move(0, 0);
      await expect.poll(() => button.evaluate((b) => getComputedStyle(b).backgroundColor), WAIT).toBe(rgb(PALE));
      expect(await button.evaluate((b) => getComputedStyle(b).color)).toBe(rgb(NEAR_BLACK));
      // The active navigation item (desktop: the sidebar is open) is the accent with the same text.
      if (viewport.width > 1000) {
        const active = 'nav[aria-label="Main"] a[aria-current="page"]';
        expect(await computed(page, active, 'background-color')).toBe(rgb(PALE));
        expect(await computed(page, active, 'color')).toBe(rgb(NEAR_BLACK));
      }
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBeLessThanOrEqual(0);
      // The whole page (the sidebar's active item included), not only main.
      expect(await axeViolations(page)).toEqual([]);
      await page.screenshot({ path: `${SCREENSHOTS}accent-pale-account-${tag}.png`, fullPage: true });
      // Hovered, the button is the darker 700 and its text the one computed for 700 (white: 4.92:1).
      await button.hover();
      await expect
        .poll(() => button.evaluate((b) => [getComputedStyle(b).backgroundColor, getComputedStyle(b).color]), WAIT)
        .toEqual([rgb(shades['--color-brand-700']!), rgb(shades['--color-on-brand-700']!)]);

      if (viewport.width > 1000 && scheme === 'light') {
        // A toast still shows once signed in (its container loads after sign-in, not on /login: issue 25's weight).
        const profile = page.locator('form').filter({ has: page.getByLabel('First Name') });
        await profile.getByLabel('First Name').fill('Accent');
        await profile.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => page.locator('.Toastify').getByText('Saved').isVisible(), WAIT).toBe(true);
      }
    }
    await context.close();
  });
});
