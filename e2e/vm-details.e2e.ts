/**
 * The VM page's sections and month (issue 25 item 4) in Chromium on the simulator driver: the section bar
 * (Overview, Graphs, Snapshots, Settings) moves keyboard focus to each section; the status is the VM list's badge
 * (the machine is stopped, so no sample adds to its stored traffic);
 * "This month so far" shows the cost by billing's rule (10 priced hours of micro at 0.05 = $0.50, as
 * GET /virtualMachines/monthToDate answers) and the month's traffic; the graphs offer 90 days, which reach history
 * that 30 days do not. At 1440x900 and 390x844, light and dark: no element wider than the viewport, axe finds
 * nothing; screenshots.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { GRAPH_TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { vmMetricHours, vmSizePeriods, vmTrafficMonths } from '../apps/api/src/db/schema.ts';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { DESKTOP, LOOKS, checkScreen, setLook, signedInOnce, signedInPage } from './support/looks.ts';
import { pricedCatalog, waitForStatus } from './support/seed.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

const WAIT = { timeout: 30_000 };
const HOUR = 3_600_000;

let portal: Portal;
let admin: TestClient;
let vmId = 0;

beforeAll(async () => {
  portal = await startPortal({
    env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '1000' },
  });
  admin = await signIn(portal);
  const { demo, catalog } = await pricedCatalog(portal, admin);
  vmId = (await admin.call(routes.vms.create, { body: catalog.createBody('details-vm') })).data.ids[0]!;
  await waitForStatus(admin, vmId, 'Running');
  // Stopped, so the engine's samples add no traffic to what is stored below.
  expect((await admin.call(routes.vms.stop, { params: { id: vmId } })).status).toBe(200);
  await waitForStatus(admin, vmId, 'Stopped');
  // It has existed for 10 hours this month (its size period moved back; billed 10 h x 0.05 = 0.50) and moved bytes.
  const now = Date.now();
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  await portal.db
    .update(vmSizePeriods)
    .set({ startedAt: new Date(Math.max(monthStart, now - 10 * HOUR)) })
    .where(eq(vmSizePeriods.vmId, vmId));
  await portal.db
    .insert(vmTrafficMonths)
    .values({ vmId, companyId: demo.id, month: new Date(monthStart), rxBytes: 5_242_880, txBytes: 1_536 })
    .onConflictDoUpdate({
      target: [vmTrafficMonths.vmId, vmTrafficMonths.month],
      set: { rxBytes: 5_242_880, txBytes: 1_536 },
    });
  // History: 12 hours two months ago (only 90 days reach them) and the last 24 hours.
  const lastHour = Math.floor(now / HOUR) * HOUR - HOUR;
  const hours = [];
  for (let k = 0; k < 12; k++) hours.push(lastHour - 60 * 24 * HOUR + k * HOUR);
  for (let k = 1; k <= 24; k++) hours.push(lastHour - k * HOUR);
  await portal.db.insert(vmMetricHours).values(
    hours.map((t) => ({
      vmId,
      hour: new Date(t),
      seconds: 3600,
      cpuNs: 3600 * 1e9,
      cpuCapacityNs: 3600 * 2e9,
      memorySamples: 1,
      memoryBytesSum: 1024 ** 3,
      diskReadBytes: 3600 * 1000,
      diskWriteBytes: 3600 * 2000,
      netRxBytes: 3600 * 3000,
      netTxBytes: 3600 * 500,
    })),
  );
});
afterAll(async () => {
  await browserAdmin.close();
  await portal?.stop();
});

/** The admin's one signed-in context: these tests only look (each look switched in place, the page loaded anew). */
const browserAdmin = signedInOnce(() => signedInPage(portal, DESKTOP, 'light'));

const check = (page: Page, name: string) => checkScreen(page, 'vm-details', name, { within: 'main', excuse: 'clips' });

const graphs = (page: Page) => page.getByRole('region', { name: GRAPH_TEXT.title });
const points = async (page: Page) =>
  Number(
    (await page
      .locator('[data-graph="cpu"]')
      .getAttribute('data-points')
      .catch(() => null)) ?? '0',
  );

describe('VM details', () => {
  it('shows its sections, the status badge, the month so far and 90 days of graphs', async () => {
    const month = (await admin.call(routes.vms.monthToDate, { params: { id: vmId } })).data;
    // 10 hours and counting (the test's own minutes add cents only after 6 of them): $0.50, or a cent or so more.
    expect(month).toMatchObject({ currency: 'USD', traffic: { rxBytes: 5_242_880, txBytes: 1_536 } });
    expect(month.amount).toMatch(/^0\.5\d$/);
    const { page } = await browserAdmin.get();
    for (const look of LOOKS) {
      const { name } = look;
      await setLook(page, look);
      await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
      await expect.poll(() => page.getByRole('heading', { name: 'details-vm' }).isVisible(), WAIT).toBe(true);
      // The status is the list's badge.
      const status = page.locator('[data-label="Status"] [data-status]');
      await expect.poll(() => status.getAttribute('data-status'), WAIT).toBe('Stopped');
      expect(await status.getAttribute('class')).toContain('rounded-full');
      // This month so far: billing's figure and the month's traffic.
      const card = page.getByRole('region', { name: 'This month so far' });
      await expect.poll(() => card.getByTestId('vm-month-cost').textContent(), WAIT).toMatch(/^\$0\.5\d$/);
      expect(await card.getByTestId('vm-month-hours').textContent()).toMatch(/^10\.\d\d hours this month$/);
      expect(await card.getByTestId('vm-month-rx').textContent()).toBe('5.0 MB');
      expect(await card.getByTestId('vm-month-tx').textContent()).toBe('1.5 KB');
      // The Snapshots and SSH access cards load in their sections.
      await expect.poll(() => page.getByRole('region', { name: 'Snapshots' }).isVisible(), WAIT).toBe(true);
      expect(await page.getByRole('region', { name: 'SSH Access' }).isVisible()).toBe(true);
      await check(page, `overview-${name}`);

      // The section bar, by keyboard: Enter on "Settings" moves focus to that section.
      const nav = page.getByRole('navigation', { name: 'Sections' });
      for (const [label, id] of [
        ['Settings', 'settings'],
        ['Snapshots', 'snapshots'],
        ['Graphs', 'graphs'],
        ['Overview', 'overview'],
      ] as const) {
        await nav.getByRole('link', { name: label }).focus();
        await page.keyboard.press('Enter');
        await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe(id);
      }
      expect(new URL(page.url()).pathname).toBe(`/virtualMachineDetails/${vmId}`);

      // 90 days reach the hours of two months ago that 30 days do not.
      const range = graphs(page).getByRole('group', { name: GRAPH_TEXT.rangeLabel });
      await range.getByRole('button', { name: '30d' }).click();
      await expect.poll(() => points(page), WAIT).toBeGreaterThanOrEqual(24);
      const thirty = await points(page);
      expect(thirty).toBeLessThan(30);
      await range.getByRole('button', { name: '90d' }).click();
      await expect.poll(() => range.getByRole('button', { name: '90d' }).getAttribute('aria-pressed')).toBe('true');
      await expect.poll(() => points(page), WAIT).toBe(thirty + 12);
      await graphs(page).scrollIntoViewIfNeeded();
      await check(page, `graphs-90d-${name}`);
    }
    await setLook(page, LOOKS[0]);
  });

  it('loads the action dialogs on demand: Rename opens with the current name', async () => {
    const { page } = await browserAdmin.get();
    await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
    await expect.poll(() => page.getByRole('heading', { name: 'details-vm' }).isVisible(), WAIT).toBe(true);
    await page.getByRole('region', { name: 'Actions' }).getByRole('button', { name: 'Rename' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.isVisible(), WAIT).toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}vm-details-rename-dialog.png` });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count(), WAIT).toBe(0);
  });
});
