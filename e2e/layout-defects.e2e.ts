/**
 * Issue 25 defect 9, measured in Chromium (element boxes, not looks): the "Search team members..." placeholder fits
 * its box; "Download Private Key" stays on one line and the action grid's buttons are one height; the collapsed
 * sidebar's logo fills its box instead of a speck; "Add domain" stays in line with its field when the field's error
 * shows; the demo logo's dark wordmark reads on the dark sign-in card. Screenshots of each, light and dark.
 */
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contrastRatio } from '@portal/contract/brand-colors';
import { SIDEBAR_STORAGE_KEY } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';
import { BRANDING_TEXT } from '@portal/contract/reseller-branding';
import {
  companies,
  configurations,
  providers,
  regions,
  resellerDomains,
  resellers,
  virtualMachines,
} from '../apps/api/src/db/schema.ts';
import { createTeam, createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { axeViolations } from './support/axe.ts';
import { setLook, signedInOnce } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 30_000 };
const OWNER = 'owner@layout.example';
const DEMO_HOST = 'northwind.example.test';
/** The seeded demo logo's wordmark colour (seed.ts DEMO_LOGO). */
const WORDMARK = '#1e3a8a';
let portal: Portal;
let teamId: number;
let vmId: number;

beforeAll(async () => {
  portal = await startPortal({ browserArgs: [`--host-resolver-rules=MAP ${DEMO_HOST} 127.0.0.1`] });
  const [company] = await portal.db.select().from(companies).where(eq(companies.id, 1));
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Layout staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER, { staffRole: 'owner' });
  await portal.db
    .insert(resellerDomains)
    .values({ host: DEMO_HOST, resellerId: company!.resellerId, verifiedAt: new Date() });
  teamId = (await createTeam(portal, 1, 'Layout team', [{ userId: 1, roleId: 1 }])).id;
  const [config] = await portal.db.select().from(configurations).limit(1);
  const [region] = await portal.db.select().from(regions).limit(1);
  const [provider] = await portal.db.select().from(providers).limit(1);
  const [vm] = await portal.db
    .insert(virtualMachines)
    .values({
      companyId: 1,
      teamId,
      name: 'layout-vm',
      status: 'Stopped',
      configurationId: config!.id,
      regionId: region!.id,
      image: 'Debian 12',
      providerId: provider!.id,
    })
    .returning();
  vmId = vm!.id;
});
afterAll(async () => {
  await admin.close();
  await portal?.stop();
});

async function signedIn(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light', email?: string) {
  const context = await portal.browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await portal.signIn(page, email, email ? PASSWORD : undefined);
  return { context, page };
}

/**
 * The admin's one signed-in context for the tests that only look (each look switched in place, the page loaded
 * anew).
 */
const admin = signedInOnce(() => signedIn());
async function adminPage(viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light') {
  const { page } = await admin.get();
  await setLook(page, { viewport, colorScheme });
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

describe('issue 25 defect 9: layout', () => {
  it('the team members search shows its whole placeholder', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await adminPage(viewport);
      await page.goto(`${portal.url}/team?id=${teamId}`);
      const search = page.getByPlaceholder(TEXT.searchTeamMembers);
      await expect.poll(() => search.isVisible(), WAIT).toBe(true);
      // A placeholder has no scrollWidth: the same text as a value lays out in the same inner box (which, in a
      // search input, also holds the clear button), and must not overflow it. Set without events, then put back.
      const [scroll, client] = await search.evaluate((input: HTMLInputElement) => {
        input.value = input.placeholder;
        const box = [input.scrollWidth, input.clientWidth];
        input.value = '';
        return box;
      });
      expect(scroll).toBeLessThanOrEqual(client!);
      await shot(page, `layout-team-search-${viewport.width}`);
    }
  });

  it('"Download Private Key" stays on one line and the action buttons are one height', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const page = await adminPage(DESKTOP, scheme);
      await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
      const download = page.getByRole('button', { name: 'Download Private Key' });
      await expect.poll(() => download.isVisible(), WAIT).toBe(true);
      const console = page.getByRole('button', { name: 'Console' });
      const [d, c] = [(await download.boundingBox())!, (await console.boundingBox())!];
      // One line: as tall as the Console button (two lines made it ~20 px taller and the row uneven).
      expect(Math.abs(d.height - c.height)).toBeLessThanOrEqual(1);
      expect(await download.evaluate((b) => b.scrollWidth <= b.clientWidth)).toBe(true);
      const lineHeight = await download.evaluate((b) => parseFloat(getComputedStyle(b).lineHeight));
      expect(d.height).toBeLessThan(2 * lineHeight + 8);
      await shot(page, `layout-vm-actions-${scheme}`);
    }
  });

  it('the collapsed sidebar shows the logo at a readable size, not a speck', async () => {
    const { context, page } = await signedIn(DESKTOP);
    await page.evaluate((key) => localStorage.setItem(key, 'true'), SIDEBAR_STORAGE_KEY);
    await page.reload();
    const logo = page.locator('nav[aria-label="Main"]').getByAltText(TEXT.companyLogoAlt);
    await expect
      .poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), WAIT)
      .toBe(true);
    // The height the picture is drawn at inside its box (object-fit contain shrinks a wide logo to its width).
    const drawn = await logo.evaluate((img: HTMLImageElement) => {
      const s = getComputedStyle(img);
      const w = img.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      const h = img.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
      return s.objectFit === 'contain' ? Math.min(h, (w * img.naturalHeight) / img.naturalWidth) : h;
    });
    expect(drawn).toBeGreaterThanOrEqual(24);
    await shot(page, 'layout-sidebar-collapsed');
    await page.evaluate((key) => localStorage.removeItem(key), SIDEBAR_STORAGE_KEY);
    await context.close();
  });

  it('"Add domain" stays in line with its field when the field shows an error', async () => {
    // One sign-in, the scheme switched in place, the page loaded anew.
    const { context, page } = await signedIn(DESKTOP, 'light', OWNER);
    for (const scheme of ['light', 'dark'] as const) {
      await setLook(page, { viewport: DESKTOP, colorScheme: scheme });
      await page.goto(`${portal.url}/reseller/branding`);
      const field = page.getByLabel('New domain');
      await expect.poll(() => field.isVisible(), WAIT).toBe(true);
      await field.fill('not a host');
      const button = page.getByRole('button', { name: 'Add domain' });
      await button.click();
      await expect.poll(() => page.getByText(BRANDING_TEXT.hostFormat).isVisible(), WAIT).toBe(true);
      const [f, b] = [(await field.boundingBox())!, (await button.boundingBox())!];
      expect(Math.abs(f.y - b.y)).toBeLessThanOrEqual(2);
      expect(await axeViolations(page, 'main')).toEqual([]);
      await shot(page, `layout-add-domain-error-${scheme}`);
    }
    await context.close();
  });

  it('the demo logo reads on the dark sign-in card', async () => {
    const [demo] = await portal.db.select().from(resellers).where(eq(resellers.externalId, 'demo-reseller'));
    expect(demo!.logoUrl).toContain('data:image/svg+xml');
    for (const viewport of [DESKTOP, PHONE]) {
      const context = await portal.browser.newContext({ viewport, colorScheme: 'dark' });
      const page = await context.newPage();
      // The demo reseller's own domain: its sign-in page shows its logo.
      await page.goto(`${portal.url.replace('127.0.0.1', DEMO_HOST)}/login`);
      const logo = page.getByAltText(TEXT.companyLogoAlt);
      await expect
        .poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), WAIT)
        .toBe(true);
      expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
      // What the wordmark is drawn on: the image's own background, else the card's.
      const behind = await logo.evaluate((img) => {
        let el: Element | null = img;
        while (el) {
          const bg = getComputedStyle(el).backgroundColor;
          if (bg && bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
          el = el.parentElement;
        }
        return 'rgb(255, 255, 255)';
      });
      const hex = `#${behind
        .match(/\d+/g)!
        .slice(0, 3)
        .map((n) => Number(n).toString(16).padStart(2, '0'))
        .join('')}`;
      expect(contrastRatio(WORDMARK, hex)).toBeGreaterThanOrEqual(4.5);
      await shot(page, `layout-login-logo-dark-${viewport.width}`);
      await context.close();
    }
  });
});
