/**
 * The accent colour in the customer portal (issue 25 item 8): the reseller's owner sets an accent through the API
 * (PUT /reseller/branding), and a customer of that reseller sees it, light and dark, at 1440x900 and 390x844: the
 * primary button is the accent, its focus ring the accent (dark: its tint), the active navigation item the accent
 * (desktop), links the accent's AA text shade (light) or dark mode's tint (dark), as brand-colors.ts computes them.
 * Nothing is wider than the viewport and axe finds nothing on the page (contrast included).
 */
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_TEXT } from '@portal/contract/account';
import { accentVariables } from '@portal/contract/brand-colors';
import { companies, resellers } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const OWNER = 'owner@accent.example';
const ACCENT = '#0f766e';
const WAIT = { timeout: 30_000 };
let portal: Portal;

beforeAll(async () => {
  portal = await startPortal();
  // The demo customer (admin@example.com, company 1) belongs to the demo reseller; its owner sets the accent.
  const [customer] = await portal.db.select().from(companies).where(eq(companies.id, 1));
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: customer!.resellerId, name: 'Accent staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
});
afterAll(async () => {
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

describe('the accent in the customer portal', () => {
  it('a customer of a reseller with an accent sees it on buttons, focus rings, the active item and links, light and dark', async () => {
    // The owner sets the accent through the API, as the branding screen does.
    const owner = await portal.newPage();
    owner.page.setDefaultTimeout(30_000);
    await portal.signIn(owner.page, OWNER, PASSWORD);
    const saved = await owner.page.evaluate(
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
      { api: portal.apiUrl, accent: ACCENT.toUpperCase() },
    );
    expect(saved, JSON.stringify(saved.body)).toMatchObject({ status: 200 });
    await owner.context.close();
    const [reseller] = await portal.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
    expect(reseller!.accentColor).toBe(ACCENT);

    const shades = accentVariables(ACCENT);
    for (const [viewport, scheme] of [
      [{ width: 1440, height: 900 }, 'light'],
      [{ width: 1440, height: 900 }, 'dark'],
      [{ width: 390, height: 844 }, 'light'],
      [{ width: 390, height: 844 }, 'dark'],
    ] as const) {
      const context = await portal.browser.newContext({ viewport, colorScheme: scheme });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      await portal.signIn(page);
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
      await context.close();
    }
  });
});
