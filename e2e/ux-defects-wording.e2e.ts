/**
 * Issue 25, defects 3, 5, 6 and 10 in Chromium: a VM whose size the reseller no longer offers is not told it has
 * "the largest configuration"; a region whose images are all withdrawn says so on the create form; the simulator's
 * console offers no graphical console it cannot open, and logs no error; offline, a screen whose code cannot load
 * offers Reload and a list that cannot refresh says so with Try again; "Error logging in: ...", /login without a
 * 401, Suspend red on the company page, focus back on the page after a dialog whose trigger is gone.
 * Screenshots of the changed screens at 1440x900 and 390x844, axe with no violations.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, ConsoleMessage, Page, Response, WebSocket } from 'playwright-core';
import { TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import {
  companies,
  configurationPrices,
  configurations,
  countries,
  imageWithdrawals,
  images,
  providerOfferings,
  regions,
} from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { signIn } from '../apps/api/test/harness.ts';
import { axeViolations } from './support/axe.ts';
import { signedInOnce } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const OWNER_EMAIL = 'owner@fabrikam-cloud.example';

let portal: Portal;
let smallVmId = 0;
let microVmId = 0;
let customerId = 0;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '200', VM_RUNNER_POLL_MS: '50' } });
  const admin = await signIn(portal);
  const sizes = await portal.db.select().from(configurations);
  const size = (key: string) => sizes.find((c) => c.key === key)!;
  const [region] = await portal.db.select().from(regions).where(eq(regions.name, 'US East'));
  // Two running simulator VMs, a Micro and a Small, on a provider that offers both in US East.
  const [offering] = await portal.db
    .select()
    .from(providerOfferings)
    .where(and(eq(providerOfferings.regionId, region!.id), eq(providerOfferings.configurationId, size('small').id)));
  const ids: number[] = [];
  for (const [name, key] of [
    ['ux25-small', 'small'],
    ['ux25-micro', 'micro'],
  ] as const) {
    const created = await admin.call(routes.vms.create, {
      body: {
        regionId: region!.id,
        image: 'Debian 12',
        configurationId: size(key).id,
        providerId: offering!.providerId,
        name,
        numberOfInstances: 1,
      },
    });
    expect(created.status, created.message).toBe(200);
    ids.push(created.data.ids[0] as number);
  }
  [smallVmId, microVmId] = ids as [number, number];
  const deadline = Date.now() + 60_000;
  for (const id of ids) {
    while ((await admin.call(routes.vms.details, { params: { id } })).data?.status !== 'Running') {
      if (Date.now() > deadline) throw new Error(`VM ${id} did not start`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  // The reseller prices only Micro: every other size is no longer offered to its customers.
  const [company] = await portal.db.select().from(companies).where(eq(companies.id, 1));
  const resellerId = company!.resellerId;
  await portal.db
    .insert(configurationPrices)
    .values({ resellerId, configurationId: size('micro').id, monthlyPrice: '5.00', hourlyPrice: '0.00700' });
  // A country with one region whose every image is withdrawn.
  const [country] = await portal.db.select().from(countries).where(eq(countries.id, region!.countryId));
  const [bare] = await portal.db.insert(regions).values({ countryId: country!.id, name: 'Bare region' }).returning();
  await portal.db.insert(images).values({ regionId: bare!.id, name: 'Debian 12' });
  await portal.db.insert(imageWithdrawals).values({ resellerId, regionId: bare!.id, image: 'Debian 12' });
  // The reseller's staff (an owner) and a customer company to look at.
  const [staff] = await portal.db
    .insert(companies)
    .values({ resellerId, name: 'Fabrikam staff', kind: 'staff' })
    .returning();
  await createUser(portal, staff!.id, OWNER_EMAIL, { firstName: 'Olga', lastName: 'Owner', staffRole: 'owner' });
  const [customer] = await portal.db.insert(companies).values({ resellerId, name: 'Tailspin Toys' }).returning();
  customerId = customer!.id;
  await createUser(portal, 1, 'leaving@example.com', { firstName: 'Lea', lastName: 'Leaving' });
}, 120_000);
afterAll(async () => {
  await browserAdmin.close();
  await portal?.stop();
});

async function context(viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  const ctx = await portal.browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  return { context: ctx, page };
}

/**
 * The admin's one signed-in context, for the tests that only look or act as the admin (a sign-in costs Chromium far
 * more than a page load); its page at `viewport`. The offline tests keep their own (the context's network and cache).
 */
const browserAdmin = signedInOnce(async () => {
  const opened = await context();
  await portal.signIn(opened.page);
  return opened;
});
async function adminPage(viewport = DESKTOP): Promise<Page> {
  const { page } = await browserAdmin.get();
  await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme: 'light' });
  return page;
}

async function shot(page: Page, name: string) {
  await page.waitForTimeout(200);
  // Colour and opacity transitions (a list dimmed while it refreshes) end before axe measures contrast: a list that
  // fails at once (offline, issue 25 item 6) shows its message while the dimming still fades out.
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition)), null, {
    timeout: 10_000,
  });
  await page.screenshot({ path: `${SCREENSHOTS}ux25w-${name}.png`, fullPage: true });
  expect(await axeViolations(page), `${name}: axe violations`).toEqual([]);
}

/** Elements reaching past the right edge of the viewport (the page must not scroll sideways). */
function wider(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width) out.push(`page ${document.documentElement.scrollWidth}px`);
    for (const el of Array.from(document.body.querySelectorAll('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && r.right > width + 1)
        out.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').slice(0, 30)}" right=${Math.round(r.right)}`);
    }
    return out.slice(0, 10);
  });
}

describe('wording and sign-in (defect 10)', () => {
  it('/login asks for no session it cannot have (no 401, no console error), and a wrong password reads "Error logging in: ..."', async () => {
    const { context: ctx, page } = await context();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    await page.goto(`${portal.url}/login`);
    await page.getByRole('button', { name: 'Login' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(errors).toEqual([]);

    await page.getByLabel('Email').fill('admin@example.com');
    await page.getByLabel('Password', { exact: true }).fill('Wrong-Password-1!');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByText('Error logging in: Invalid email or password').waitFor();
    expect(await page.getByText('Error logging in.:').count()).toBe(0);
    await shot(page, 'login-error');
    await ctx.close();
  });

  it('Suspend is red on the company page as in its dialog; focus returns to it on Cancel', async () => {
    // One sign-in, the width switched in place.
    const { context: ctx, page } = await context();
    await portal.signIn(page, OWNER_EMAIL, PASSWORD);
    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.goto(`${portal.url}/reseller/company?id=${customerId}`);
      const suspend = page.getByRole('button', { name: 'Suspend', exact: true });
      await suspend.waitFor();
      expect(await suspend.getAttribute('class')).toContain('bg-red-600');
      await shot(page, `company-suspend-${label}`);
      await suspend.click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.getByRole('button', { name: 'Suspend' }).getAttribute('class')).toContain('bg-red-600');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Suspend');
    }
    await ctx.close();
  });

  it('after deleting a user from its row, focus is on the page, not <body>', async () => {
    // The shared session's first use: signed in just now, the delete asks no step-up.
    const page = await adminPage();
    await page.goto(`${portal.url}/users`);
    await page.getByRole('button', { name: 'Delete Lea Leaving' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Delete Lea Leaving' }).count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});

describe('catalog gaps (defect 3)', () => {
  it('a Small VM whose size is not offered is not told it has the largest configuration', async () => {
    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await adminPage(viewport);
      await page.goto(`${portal.url}/virtualMachineDetails/${smallVmId}`);
      await page.getByRole('button', { name: 'Upgrade' }).click();
      const dialog = page.getByRole('dialog', { name: 'Upgrade VM' });
      await dialog.getByText('No larger size is offered for this VM.', { exact: false }).waitFor();
      expect(await dialog.getByText('largest configuration').count()).toBe(0);
      await shot(page, `upgrade-none-offered-${label}`);
    }
  });

  it('the create form says why the Image list is empty', async () => {
    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const page = await adminPage(viewport);
      await page.goto(`${portal.url}/createVirtualMachine`);
      await page.getByLabel('Name').fill('web-1');
      await page.getByLabel('Country').selectOption({ label: 'United States' });
      await page.getByLabel('Region').selectOption({ label: 'Bare region' });
      await page.getByText('No images are offered in this region. Choose another region.').waitFor();
      await shot(page, `create-no-images-${label}`);
    }
  });
});

describe('console on the simulator (defect 5)', () => {
  it('opens the serial console, says there is no graphical one, and logs no error, at both sizes in light and dark', async () => {
    const page = await adminPage();
    const errors: string[] = [];
    const onConsole = (m: ConsoleMessage) => m.type() === 'error' && errors.push(m.text());
    const onResponse = (r: Response) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`);
    const onWebSocket = (ws: WebSocket) => ws.on('socketerror', (e) => errors.push(`websocket ${ws.url()}: ${e}`));
    page.on('console', onConsole);
    page.on('response', onResponse);
    page.on('websocket', onWebSocket);
    const connected = () =>
      expect.poll(() => page.getByRole('status').first().textContent(), { timeout: 30_000 }).toBe('Connected');
    for (const [label, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const tag = `${label}-${scheme}`;
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${portal.url}/virtualMachineConsole/${microVmId}`);
        // The machine's text console, connected: the simulator's login prompt, never the page's failure text.
        await connected();
        expect(await page.getByRole('tab', { name: 'Serial' }).getAttribute('aria-selected')).toBe('true');
        await expect
          .poll(() => page.getByTestId('serial-terminal').locator('.xterm-rows').innerText(), { timeout: 30_000 })
          .toContain('ux25-micro login:');
        expect(await page.getByText(TEXT.consoleFailed).count()).toBe(0);
        await shot(page, `console-serial-${tag}`);
        expect(await wider(page), tag).toEqual([]);
        // The Graphical tab says there is none, and offers the serial console back.
        await page.getByRole('tab', { name: 'Graphical' }).click();
        await page
          .getByText('This machine has no graphical console. Use its serial console.')
          .waitFor({ timeout: 30_000 });
        expect(await page.getByText(TEXT.consoleFailed).count()).toBe(0);
        await shot(page, `console-no-graphical-${tag}`);
        expect(await wider(page), tag).toEqual([]);
        await page.getByRole('button', { name: 'Open the serial console' }).click();
        await connected();
      }
    }
    expect(errors).toEqual([]);
    page.off('console', onConsole);
    page.off('response', onResponse);
    page.off('websocket', onWebSocket);
  }, 180_000);
});

describe('network loss (defect 6)', () => {
  it('a screen whose code cannot load offers Reload; a list that cannot refresh says so with Try again', async () => {
    const { context: ctx, page } = await context();
    await portal.signIn(page);
    await page.goto(`${portal.url}/users`);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor();

    await ctx.setOffline(true);
    // The list, already shown, refreshed: a message and Try again, not a spinner for ever.
    await page.getByRole('button', { name: 'Refresh' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Error fetching users' });
    await alert.waitFor({ timeout: 10_000 });
    await shot(page, 'offline-list');
    // Another screen, whose code is not loaded yet: the app's own page with Reload, not the router's raw error.
    await page.getByRole('link', { name: 'Support' }).click();
    await page.getByRole('heading', { name: 'This page could not be loaded' }).waitFor();
    expect(await page.getByText('Failed to fetch dynamically imported module').count()).toBe(0);
    expect(await page.getByText('Unexpected Application Error!').count()).toBe(0);
    await shot(page, 'offline-chunk');

    await ctx.setOffline(false);
    await page.getByRole('button', { name: 'Reload' }).click();
    await page.getByRole('heading', { name: 'Support', exact: true }).waitFor();
    await page.goto(`${portal.url}/users`);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor();
    await ctx.close();
  });

  // Since issue 25 item 6 the list reloads by itself once the network is back (the reconnect refreshes what is
  // shown), so Try again is pressed while still offline: it asks again and ends in the message again, never a
  // spinner; Try again with the network back is e2e/failure-states' slow-read test.
  it('Try again offline says so again; once the network is back the list reloads', async () => {
    const { context: ctx, page } = await context(PHONE);
    await portal.signIn(page);
    await page.goto(`${portal.url}/users`);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor();
    await ctx.setOffline(true);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: 'Try again' }).waitFor({ timeout: 10_000 });
    await shot(page, 'offline-list-phone');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Try again' }).waitFor({ timeout: 10_000 });
    await ctx.setOffline(false);
    await page.getByRole('row', { name: /Ada Admin/ }).waitFor({ timeout: 30_000 });
    await ctx.close();
  });
});
