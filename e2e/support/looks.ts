/**
 * The looks every screen is checked in (issue 25's rule): 1440x900 and 390x844, light and dark; and the checks made in
 * each: nothing wider than the viewport, axe clean (support/axe.ts, which waits for CSS transitions itself), a
 * screenshot. One copy for the suites that used to carry their own.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations } from './axe.ts';
import { SCREENSHOTS, type Portal } from './portal.ts';

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };
export type ColorScheme = 'light' | 'dark';
export type Viewport = { width: number; height: number };

export const LOOKS = [
  { name: 'desktop-light', viewport: DESKTOP, colorScheme: 'light' },
  { name: 'desktop-dark', viewport: DESKTOP, colorScheme: 'dark' },
  { name: 'phone-light', viewport: PHONE, colorScheme: 'light' },
  { name: 'phone-dark', viewport: PHONE, colorScheme: 'dark' },
] as const;
export type Look = { name?: string; viewport: Viewport; colorScheme: ColorScheme };

const WAIT = { timeout: 30_000 };

/** A new context in a look, its page (waits of 30 s), signed in through the screens (as the admin unless told). */
export async function signedInPage(
  portal: Portal,
  viewport: Viewport = DESKTOP,
  colorScheme: ColorScheme = 'light',
  email?: string,
  password?: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await portal.browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  await portal.signIn(page, email, password);
  return { context, page };
}

/**
 * A signed-in context opened once and shared by a file's tests (`get` opens it on first use, `close` in afterAll):
 * a sign-in costs Chromium several times a page load, and a test that only needs to be signed in to look at screens
 * does not need one of its own. Tests of sessions, sign-in and out, stored state or another user keep their own.
 */
export function signedInOnce(open: () => Promise<{ context: BrowserContext; page: Page }>) {
  let opened: Promise<{ context: BrowserContext; page: Page }> | undefined;
  return {
    get: () =>
      (opened ??= open().catch((err: unknown) => {
        opened = undefined;
        throw err;
      })),
    async close() {
      const was = opened;
      opened = undefined;
      await was?.then(({ context }) => context.close()).catch(() => undefined);
    },
  };
}

/** The page switched to `look` in place (viewport, colour scheme), once the portal follows the scheme. */
export async function setLook(page: Page, look: Look) {
  await page.setViewportSize(look.viewport);
  await page.emulateMedia({ colorScheme: look.colorScheme });
  await expect
    .poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')), WAIT)
    .toBe(look.colorScheme === 'dark');
}

/**
 * Which elements reaching past the viewport's right edge `overflowing` lets pass: those inside an ancestor that
 * scrolls sideways (overflow-x auto or scroll, up to <html>: 'scrolls'), or that scrolls or clips (auto, scroll or
 * hidden, below <body>: 'clips'), or none ('none'). Fixed elements always pass (a closed drawer off-screen).
 */
export type Excuse = 'scrolls' | 'clips' | 'none';

/** The page scrolling sideways, and up to 10 elements reaching past the right edge of the viewport, as lines. */
export function overflowing(page: Page, excuse: Excuse = 'scrolls'): Promise<string[]> {
  return page.evaluate((excuse) => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`page scrolls sideways (${document.documentElement.scrollWidth} > ${width})`);
    const excused = (el: Element): boolean => {
      if (excuse === 'none') return false;
      const clips = excuse === 'clips';
      for (let e = el.parentElement; e && !(clips && e === document.body); e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if (o === 'auto' || o === 'scroll' || (clips && o === 'hidden')) return true;
      }
      return false;
    };
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > width + 1 && !excused(el) && getComputedStyle(el).position !== 'fixed') {
        out.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.className).slice(0, 60)} right=${Math.round(r.right)}`,
        );
      }
    }
    return out.slice(0, 10);
  }, excuse);
}

/** The page scrolling sideways (the document wider than the viewport), as a line; nothing when it does not. */
export const pageOverflow = (page: Page): Promise<string[]> =>
  page.evaluate(() => {
    const over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
    return over > 0 ? [`page scrolls sideways by ${over}px`] : [];
  });

/**
 * A screen as it is now: a full-page screenshot `<file>-<name>.png`, nothing wider than the viewport
 * (`overflowing` with `excuse`), axe clean within `within` (the whole page when not given).
 */
export async function checkScreen(
  page: Page,
  file: string,
  name: string,
  { within, excuse }: { within?: string; excuse?: Excuse } = {},
) {
  await page.screenshot({ path: `${SCREENSHOTS}${file}-${name}.png`, fullPage: true });
  expect(await overflowing(page, excuse), `${name}: wider than the viewport`).toEqual([]);
  expect(await axeViolations(page, within), `${name}: axe violations`).toEqual([]);
}

/**
 * The page in every look, switched in place (viewport, colour scheme; the portal's `dark` class followed): nothing
 * wider than the viewport (`overflow`, by default the page not scrolling sideways), axe clean within `within`, a
 * screenshot `<name>-<look>.png` each. It ends at desktop, light.
 */
export async function everyLook(
  page: Page,
  name: string,
  { within, overflow = pageOverflow }: { within?: string; overflow?: (page: Page) => Promise<string[]> } = {},
) {
  for (const look of LOOKS) {
    await setLook(page, look);
    await expect.poll(() => overflow(page), WAIT).toEqual([]);
    expect(await axeViolations(page, within), `${name} ${look.name}`).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}${name}-${look.name}.png`, fullPage: true });
  }
  await page.setViewportSize(DESKTOP);
  await page.emulateMedia({ colorScheme: 'light' });
}
