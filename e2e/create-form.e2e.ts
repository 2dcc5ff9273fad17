/**
 * Issue 25 item 3 in Chromium: the create form's image and size cards. The spec's chain and texts stay (country,
 * region, then the Image and Configuration choices, the provider, copies, team); images show what they are, sizes their
 * cores, RAM, disk and the reseller's prices as its catalog holds them; a size no provider runs in the region, or that
 * placement would refuse there, is disabled with why; copies start at 1; the cost summary is the price times the
 * copies; arrow keys move through the cards; desktop and phone, light and dark: nothing wider than the viewport, axe
 * clean, screenshots.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { SIZE_TEXT, TEXT } from '@portal/contract/messages';
import {
  companies,
  configurationPrices,
  configurations,
  hosts,
  providerOfferings,
  providers,
  regions,
  resellers,
  users,
  virtualMachines,
} from '../apps/api/src/db/schema.ts';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, PHONE, overflowing, setLook, signedInOnce, signedInPage } from './support/looks.ts';
import { card, cardGroup, chooseCard } from './support/create-form.ts';
import { ADMIN, SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

/** The reseller's catalog (numeric(12,2) monthly, numeric(12,5) hourly), in euros. */
const PRICES: Record<string, [string, string]> = {
  micro: ['5.00', '0.00685'],
  extraSmall: ['10.00', '0.01370'],
  small: ['24.50', '0.03356'],
  medium: ['40.00', '0.05479'],
  large: ['90.00', '0.12329'],
  extraLarge: ['160.00', '0.21918'],
};

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '400', VM_RUNNER_POLL_MS: '50' } });
  const db = portal.db;
  const [me] = await db
    .select({ resellerId: companies.resellerId })
    .from(users)
    .innerJoin(companies, eq(companies.id, users.companyId))
    .where(eq(users.email, ADMIN.email));
  const resellerId = me!.resellerId;
  await db.update(resellers).set({ currency: 'EUR' }).where(eq(resellers.id, resellerId));
  const sizes = await db.select().from(configurations);
  await db.insert(configurationPrices).values(
    sizes.map((s) => ({
      resellerId,
      configurationId: s.id,
      monthlyPrice: PRICES[s.key]![0],
      hourlyPrice: PRICES[s.key]![1],
    })),
  );
  // Frankfurt (the seeded providers leave it): one provider runs Micro to Small with no hosts to fill; another runs
  // Medium and Large only on its one registered host of 8 CPUs, which the operator has disabled (so it takes nothing
  // now, and the host monitor neither asks it nor rewrites the region's images). Medium has no room there now, Large
  // (12 cores) is larger than the host can ever hold, and Extra Large runs nowhere in Frankfurt.
  const frankfurt = (await db.select().from(regions).where(eq(regions.name, 'Frankfurt')))[0]!;
  await db.delete(providerOfferings).where(eq(providerOfferings.regionId, frankfurt.id));
  const [simulated, metal] = await db
    .insert(providers)
    .values([
      { name: 'Frankfurt Cloud', driver: 'simulator', settings: { site: 'fra-1' } },
      { name: 'Frankfurt Metal', driver: 'simulator', settings: { site: 'fra-2' } },
    ])
    .returning();
  const id = (key: string) => sizes.find((s) => s.key === key)!.id;
  await db.insert(providerOfferings).values([
    ...['micro', 'extraSmall', 'small'].map((key) => ({
      providerId: simulated!.id,
      regionId: frankfurt.id,
      configurationId: id(key),
    })),
    ...['medium', 'large'].map((key) => ({ providerId: metal!.id, regionId: frankfurt.id, configurationId: id(key) })),
  ]);
  await db.insert(hosts).values({
    name: 'fra-metal-1',
    uri: 'qemu+tcp://127.0.0.1:1/system',
    providerId: metal!.id,
    regionId: frankfurt.id,
    cpus: 8,
    ramGb: 64,
    diskGb: 2000,
    cpuOvercommit: 1,
    lastSeenAt: new Date(),
    enabled: false,
  });
});
afterAll(async () => {
  await admin.close();
  await portal?.stop();
});

/** The admin's one signed-in context: each test loads the form anew, in its look (switched in place). */
const admin = signedInOnce(() => signedInPage(portal, DESKTOP, 'light'));

/** Waits (generously: CI's cores are loaded) for what the user sees. */
const shown = (l: Locator) => expect.poll(() => l.isVisible(), { timeout: 30_000 }).toBe(true);
const hasText = (l: Locator, text: string) => expect.poll(() => l.textContent(), { timeout: 30_000 }).toBe(text);
const containsText = (l: Locator, text: string) =>
  expect.poll(() => l.textContent(), { timeout: 30_000 }).toContain(text);

/** What a size card says of its price: the catalog's amounts in euros, not rounded. */
const euro = (amount: string) =>
  `€${Number(amount).toLocaleString('en-US', {
    minimumFractionDigits: Math.max(2, amount.replace(/0+$/, '').split('.')[1]?.length ?? 0),
  })}`;

async function toFrankfurt(page: Page, name: string) {
  await page.goto(`${portal.url}/createVirtualMachine`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Country').selectOption({ label: 'Germany' });
  await page.getByLabel('Region').selectOption({ label: 'Frankfurt' });
}

describe('issue 25 item 3: the create form as cards, with prices and a cost summary', () => {
  it('shows images and sizes as cards with the catalog prices, refuses what cannot be placed, sums the cost', async () => {
    const { page } = await admin.get();
    await page.goto(`${portal.url}/createVirtualMachine`);
    // Before a region there are no image cards, and copies already say 1.
    await shown(page.getByText('Choose a region to see its images.'));
    expect(await page.getByLabel('Number of copies').inputValue()).toBe('1');

    await toFrankfurt(page, 'cards-demo');
    const images = cardGroup(page, 'Image');
    await shown(images);
    expect(await images.getByRole('radio').count()).toBe(4);
    await hasText(
      page.locator('[data-card="Debian 12"]').getByTestId('image-about'),
      'Debian 12 · user root · at least 2 GB disk',
    );
    await hasText(
      page.locator('[data-card="Windows Server 2022"]').getByTestId('image-about'),
      'Not described · user root',
    );
    await shown(page.getByText('Choose an image to see the sizes and their prices.'));

    await chooseCard(page, 'Image', 'Debian 12');
    expect(await card(page, 'Image', 'Debian 12').isChecked()).toBe(true);
    const sizes = cardGroup(page, 'Configuration');
    await shown(sizes);

    // Every size with the catalog's prices, as the catalog holds them.
    const rows = await portal.db.select().from(configurations);
    for (const size of rows) {
      const box = page.locator(`[data-card="${size.id}"]`);
      await containsText(box, `${size.cpu} cores · ${size.ram} GB RAM · ${size.disk} GB disk`);
      const [monthly, hourly] = PRICES[size.key]!;
      await hasText(box.getByTestId('size-price'), `${euro(monthly)} per month${euro(hourly)} per hour`);
    }
    expect(euro('0.00685')).toBe('€0.00685');
    expect(euro('0.01370')).toBe('€0.0137');

    // Medium has no room in Frankfurt now, Large is larger than its host, Extra Large runs nowhere there: all three
    // disabled, each saying why.
    expect(await card(page, 'Configuration', 'Medium').isDisabled()).toBe(true);
    await containsText(
      page.locator(`[data-card="${rows.find((r) => r.key === 'medium')!.id}"]`),
      SIZE_TEXT.cardNoRoom('Frankfurt'),
    );
    expect(await card(page, 'Configuration', 'Large').isDisabled()).toBe(true);
    await containsText(
      page.locator(`[data-card="${rows.find((r) => r.key === 'large')!.id}"]`),
      SIZE_TEXT.cardTooLarge('Frankfurt'),
    );
    expect(await card(page, 'Configuration', 'Extra Large').isDisabled()).toBe(true);
    await containsText(page.locator(`[data-card="${rows.find((r) => r.key === 'extraLarge')!.id}"]`), TEXT.noProvider);
    // The card's reason is what a screen reader hears with it.
    expect(await card(page, 'Configuration', 'Large').getAttribute('aria-describedby')).toBeTruthy();
    expect(await card(page, 'Configuration', 'Micro').isEnabled()).toBe(true);

    // No summary before a size; Micro at the default 1 copy, then 3.
    expect(await page.getByTestId('cost-summary').count()).toBe(0);
    await chooseCard(page, 'Configuration', 'Micro');
    await shown(page.getByText('Provider: Frankfurt Cloud'));
    expect(await page.getByLabel('Number of copies').inputValue()).toBe('1');
    expect(await page.getByLabel('Team (optional)').isEnabled()).toBe(true);
    await hasText(page.getByTestId('cost-month'), '€5.00');
    await hasText(page.getByTestId('cost-hour'), '€0.00685');
    await page.getByLabel('Number of copies').fill('3');
    await hasText(page.getByTestId('cost-month'), '€15.00');
    await hasText(page.getByTestId('cost-hour'), '€0.02055');
    await containsText(page.getByTestId('cost-summary'), '3 × Micro');
    // Out of range: no sum.
    await page.getByLabel('Number of copies').fill('11');
    await hasText(page.getByTestId('cost-month'), '—');

    // Keyboard: the group is one tab stop; arrows move and choose, passing over the disabled sizes.
    await card(page, 'Configuration', 'Micro').focus();
    await page.keyboard.press('ArrowRight');
    expect(await card(page, 'Configuration', 'Extra Small').isChecked()).toBe(true);
    // Choosing a size clears the copies back to 1 (SPEC point 4: configuration clears the instance count).
    expect(await page.getByLabel('Number of copies').inputValue()).toBe('1');
    await hasText(page.getByTestId('cost-month'), '€10.00');
    await page.keyboard.press('ArrowRight');
    expect(await card(page, 'Configuration', 'Small').isChecked()).toBe(true);
    await page.keyboard.press('ArrowRight');
    // Medium, Large and Extra Large are disabled: the arrow wraps to Micro.
    expect(await card(page, 'Configuration', 'Micro').isChecked()).toBe(true);
    await page.keyboard.press('ArrowLeft');
    expect(await card(page, 'Configuration', 'Small').isChecked()).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}create-form-desktop-keyboard.png`, fullPage: true });

    // Two copies of Micro are made, and the list shows them.
    await chooseCard(page, 'Configuration', 'Small');
    await page.getByLabel('Number of copies').fill('2');
    await hasText(page.getByTestId('cost-month'), '€49.00');
    await hasText(page.getByTestId('cost-hour'), '€0.06712');
    await chooseCard(page, 'Configuration', 'Micro');
    await page.getByLabel('Number of copies').fill('2');
    await hasText(page.getByTestId('cost-month'), '€10.00');
    await hasText(page.getByTestId('cost-hour'), '€0.0137');
    await page.getByRole('button', { name: 'Create Virtual Machine' }).click();
    await page.waitForURL(/\/virtualMachines$/, { timeout: 30_000 });
    const made = await portal.db
      .select({ name: virtualMachines.name })
      .from(virtualMachines)
      .where(eq(virtualMachines.image, 'Debian 12'));
    expect(made.map((v) => v.name).sort()).toEqual(['cards-demo-1', 'cards-demo-2']);
  });

  for (const [label, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`at ${viewport.width}x${viewport.height} in ${scheme}: nothing wider than the viewport, axe clean`, async () => {
        const { page } = await admin.get();
        await setLook(page, { viewport, colorScheme: scheme });
        await page.goto(`${portal.url}/createVirtualMachine`);
        await page.getByLabel('Name').fill('look');
        await page.getByLabel('Country').selectOption({ label: 'United States' });
        await page.getByLabel('Region').selectOption({ label: 'US East' });
        await chooseCard(page, 'Image', 'Ubuntu 24.04 LTS');
        await shown(cardGroup(page, 'Configuration'));
        await chooseCard(page, 'Configuration', 'Extra Small');
        await hasText(page.getByTestId('cost-month'), '€10.00');
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(scheme === 'dark');
        await page.screenshot({ path: `${SCREENSHOTS}create-form-${label}-${scheme}.png`, fullPage: true });
        // The form scrolls inside the page: the summary as the user sees it once scrolled to.
        await page.getByTestId('cost-summary').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SCREENSHOTS}create-form-${label}-${scheme}-summary.png` });
        expect(await overflowing(page), 'wider than the viewport').toEqual([]);
        expect(await axeViolations(page, 'main'), 'axe violations').toEqual([]);
      });
    }
  }
});
