/**
 * Branding that looks like the reseller (issue 25 item 8, defect 7) in Chromium: the owner uploads a logo (a PNG
 * named .svg and claimed as SVG: the server reads its bytes) and the reseller's own shell shows it at once, as does
 * the sign-in page of its domain; saving the name and an accent refreshes the shell's title and colours without a
 * reload; a typed logo URL that does not load is refused before saving; a pale accent is warned of what its text
 * colour cannot fix (the accent as an icon or focus ring on the light page), with its ratio. The branding screen at
 * 1440x900 and 390x844, light and dark: nothing wider than the viewport, axe clean.
 */
import { eq } from 'drizzle-orm';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '@portal/contract/messages';
import { BRANDING_TEXT } from '@portal/contract/reseller-branding';
import { companies, resellerDomains, resellers } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { pngOf } from '../apps/api/test/png.ts';
import { axeViolations } from './support/axe.ts';
import { setLook, signedInOnce } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const HOST = 'brand.example.test';
const OWNER = 'owner@brand-assets.example';
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 30_000 };
let portal: Portal;
let hostUrl: string;

beforeAll(async () => {
  portal = await startPortal({ browserArgs: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
  hostUrl = portal.url.replace('127.0.0.1', HOST);
  const [reseller] = await portal.db
    .update(resellers)
    .set({ name: 'Tealwave Cloud', logoUrl: null, tabLogoUrl: null })
    .where(eq(resellers.externalId, 'demo-reseller'))
    .returning();
  await portal.db.insert(resellerDomains).values({ host: HOST, resellerId: reseller!.id, verifiedAt: new Date() });
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: reseller!.id, name: 'Tealwave staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
});
afterAll(async () => {
  await owner.close();
  await portal?.stop();
});

async function signedInOwner(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light') {
  const context = await portal.browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await portal.signIn(page, OWNER, PASSWORD);
  return { context, page };
}

/** The branding screen loaded anew in `page` (the profile read afresh by its session check). */
async function branding(page: Page) {
  await page.goto(`${portal.url}/reseller/branding`);
  await expect.poll(() => page.getByLabel('Name (tab title)').inputValue(), WAIT).not.toBe('');
  return page;
}

/**
 * The owner's one signed-in context for the tests that look and edit (a sign-in costs Chromium far more than a page
 * load); its branding screen in a look, switched in place.
 */
const owner = signedInOnce(() => signedInOwner());
async function ownerPage(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light') {
  const { page } = await owner.get();
  await setLook(page, { viewport, colorScheme });
  return branding(page);
}

/** No element of the page is wider than the viewport (the page does not scroll sideways). */
const pageOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

const sidebarLogo = (page: Page) => page.locator('nav[aria-label="Main"]').getByAltText(TEXT.companyLogoAlt);

describe('branding that looks like the reseller', () => {
  it('an uploaded logo shows in the shell at once and on the sign-in page of the brand; the saved name and accent too', async () => {
    const page = await ownerPage();
    expect(await sidebarLogo(page).count()).toBe(0);

    // A PNG sent as "logo.svg" with an SVG type: the server reads the bytes and takes it as the PNG it is.
    await page.getByLabel('Upload logo').setInputFiles({
      name: 'logo.svg',
      mimeType: 'image/svg+xml',
      buffer: pngOf(240, 64, '#0f766e'),
    });
    await expect.poll(() => page.getByText(BRANDING_TEXT.logoUploaded).isVisible(), WAIT).toBe(true);
    // The shell shows it without a reload (defect 7), and it loaded (no broken-image box).
    await expect
      .poll(() => sidebarLogo(page).getAttribute('src'), WAIT)
      .toMatch(/\/resellers\/\d+\/brand\/logo\?v=[0-9a-f]{16}$/);
    await expect
      .poll(() => sidebarLogo(page).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), WAIT)
      .toBe(240);
    await expect.poll(() => page.getByLabel('Logo URL').inputValue(), WAIT).toMatch(/\/brand\/logo\?v=/);

    // Tab icon upload: the tab follows at once.
    await page.getByLabel('Upload tab icon').setInputFiles({
      name: 'icon.png',
      mimeType: 'image/png',
      buffer: pngOf(32, 32, '#dc2626'),
    });
    await expect.poll(() => page.getByText(BRANDING_TEXT.iconUploaded).isVisible(), WAIT).toBe(true);
    await expect.poll(() => page.locator('link[rel~="icon"]').getAttribute('href'), WAIT).toMatch(/\/brand\/icon\?v=/);

    // An HTML file passed off as a PNG is refused with the server's message, and nothing changes.
    await page.getByLabel('Upload logo').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from('<!doctype html><script>alert(1)</script>'),
    });
    await expect
      .poll(() => page.getByRole('alert').filter({ hasText: BRANDING_TEXT.uploadNotImage }).isVisible(), WAIT)
      .toBe(true);

    // Name and accent saved: the tab title and the portal's colour change without a reload (defect 7).
    await page.getByLabel('Name (tab title)').fill('Tealwave');
    await page.getByLabel('Accent colour', { exact: true }).fill('#0f766e');
    await expect.poll(() => page.getByTestId('accent-checks').isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId('accent-warning').count()).toBe(0);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText(BRANDING_TEXT.saved).isVisible(), WAIT).toBe(true);
    await expect.poll(() => page.title(), WAIT).toBe('Tealwave');
    await expect
      .poll(() => page.evaluate(() => document.documentElement.style.getPropertyValue('--color-brand-600')), WAIT)
      .toBe('#0f766e');
    // The Save button is drawn in the accent now (the pointer moved off it: hovered, it is the darker shade).
    await page.mouse.move(0, 0);
    await expect
      .poll(() => page.getByRole('button', { name: 'Save' }).evaluate((b) => getComputedStyle(b).backgroundColor))
      .toBe('rgb(15, 118, 110)');
    await page.screenshot({ path: `${SCREENSHOTS}branding-assets-saved.png`, fullPage: true });

    // The sign-in page of the brand's domain: its logo (served by the portal, same origin), title and accent.
    const visitor = await portal.browser.newContext({ viewport: DESKTOP });
    const login = await visitor.newPage();
    await login.goto(`${hostUrl}/login`);
    const loginLogo = login.getByAltText(TEXT.companyLogoAlt);
    await expect.poll(() => loginLogo.getAttribute('src'), WAIT).toMatch(/\/brand\/logo\?v=/);
    await expect
      .poll(() => loginLogo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), WAIT)
      .toBe(240);
    await expect.poll(() => login.title(), WAIT).toBe('Tealwave');
    await expect
      .poll(() => login.getByRole('button', { name: 'Login' }).evaluate((b) => getComputedStyle(b).backgroundColor))
      .toBe('rgb(15, 118, 110)');
    await login.screenshot({ path: `${SCREENSHOTS}branding-assets-login.png`, fullPage: true });
    await visitor.close();
  });

  it('refuses a logo URL that does not load, warns of an accent with poor contrast, and a dead logo falls back to the name', async () => {
    const page = await ownerPage();
    let saves = 0;
    const counted = (req: Request) => {
      if (req.method() === 'PUT' && /\/reseller\/branding$/.test(req.url())) saves++;
    };
    page.on('request', counted);
    await page.getByLabel('Logo URL').fill(`${portal.url}/no-such-logo.png`);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText(BRANDING_TEXT.logoDoesNotLoad).isVisible(), WAIT).toBe(true);
    expect(saves).toBe(0);

    // A pale yellow: the text on it is near-black (11.65:1, white would be 1.53:1), so buttons read; what remains
    // is the accent itself on the light page (icons, focus rings: 1.46:1 against the 3:1 they need), warned.
    await page.getByLabel('Logo URL').fill('');
    await page.getByLabel('Accent colour', { exact: true }).fill('#facc15');
    const warning = page.getByTestId('accent-warning');
    await expect.poll(() => warning.isVisible(), WAIT).toBe(true);
    expect(await page.getByTestId('accent-checks').textContent()).toContain(
      '11.65:1Near-black text on the accent (buttons, the active item; light and dark)',
    );
    expect(await warning.textContent()).toContain(
      'the accent on the light background (icons, focus rings, checkboxes) is 1.46:1, below the 3:1 needed',
    );
    expect(await warning.textContent()).not.toContain('text on the accent');
    expect(await warning.textContent()).toContain('Buttons and links stay readable');
    await page.screenshot({ path: `${SCREENSHOTS}branding-assets-contrast-warning.png`, fullPage: true });
    page.off('request', counted);

    // A logo that stops loading after it was saved (its host went away): the shell shows the brand's name instead.
    await portal.db
      .update(resellers)
      .set({ logoUrl: `${portal.url}/gone-logo.png` })
      .where(eq(resellers.externalId, 'demo-reseller'));
    // A new sign-in reads the profile afresh.
    const second = await signedInOwner();
    await branding(second.page);
    const fallback = second.page.locator('nav[aria-label="Main"]').getByTestId('brand-logo-fallback');
    await expect.poll(() => fallback.textContent(), WAIT).toBe('Tealwave');
    expect(await sidebarLogo(second.page).count()).toBe(0);
    await second.context.close();
  });

  it('the branding screen fits and passes axe at 1440x900 and 390x844, light and dark', async () => {
    for (const [viewport, scheme] of [
      [DESKTOP, 'light'],
      [DESKTOP, 'dark'],
      [PHONE, 'light'],
      [PHONE, 'dark'],
    ] as const) {
      const page = await ownerPage(viewport, scheme);
      await page.getByLabel('Accent colour', { exact: true }).fill('#0f766e');
      await expect.poll(() => page.getByTestId('accent-checks').isVisible(), WAIT).toBe(true);
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      expect(await axeViolations(page, 'main')).toEqual([]);
      await page.screenshot({
        path: `${SCREENSHOTS}branding-assets-${viewport.width}-${scheme}.png`,
        fullPage: true,
      });
    }
  });
});
