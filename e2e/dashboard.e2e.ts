/**
 * The dashboard's overview (issue 25 item 5) in Chromium on the simulator driver. With no machine, the first-run
 * prompt "Create your first machine" leads to the create page. With machines: counts by status, each a link to the
 * VM list filtered by it; this month's spend (billing's rule: 10 priced hours of micro at 0.05 = $0.50) equal to
 * GET /virtualMachines/dashboardSummary; the last activity entries for a company administrator (none shown to a
 * member, who cannot read the log). The spec's Teams table and VM Usage card stay below, with their texts. At
 * 1440x900 and 390x844, light and dark: no element wider than the viewport, axe finds nothing; screenshots.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { routes } from '@portal/contract/routes';
import { companies, vmSizePeriods } from '../apps/api/src/db/schema.ts';
import { createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import {
  DESKTOP,
  LOOKS,
  PHONE,
  checkScreen,
  setLook,
  signedInPage,
  type ColorScheme,
  type Viewport,
} from './support/looks.ts';
import { pricedCatalog, waitForStatus } from './support/seed.ts';
import { startPortal, type Portal } from './support/portal.ts';

const WAIT = { timeout: 30_000 };

let portal: Portal;
let admin: TestClient;

beforeAll(async () => {
  portal = await startPortal({
    env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '1000' },
  });
  admin = await signIn(portal);
});
afterAll(async () => {
  await portal?.stop();
});

const newPage = (viewport: Viewport, colorScheme: ColorScheme = 'light', email?: string, password?: string) =>
  signedInPage(portal, viewport, colorScheme, email, password);

const check = (page: Page, name: string) => checkScreen(page, 'dashboard', name, { within: 'main', excuse: 'clips' });

describe('dashboard overview', () => {
  it('offers "Create your first machine" while the company has none', async () => {
    // One sign-in, the looks switched in place (the portal follows the system scheme live).
    const { context, page } = await newPage(DESKTOP);
    const prompt = page.getByRole('region', { name: 'Create your first machine' });
    for (const look of LOOKS) {
      const { name } = look;
      await setLook(page, look);
      await expect.poll(() => prompt.isVisible(), WAIT).toBe(true);
      await expect.poll(() => page.getByTestId('machines-total').textContent(), WAIT).toBe('0 machines');
      await expect.poll(() => page.getByTestId('spend-amount').textContent(), WAIT).toBe('$0.00');
      // The spec's Teams table and VM Usage card are still there, below.
      expect(await page.getByRole('heading', { name: 'Teams', exact: true }).isVisible()).toBe(true);
      expect(await page.getByRole('region', { name: 'VM Usage' }).isVisible()).toBe(true);
      await check(page, `first-run-${name}`);
    }
    await setLook(page, LOOKS[0]);
    await prompt.getByRole('link', { name: 'Create your first machine' }).click();
    await page.waitForURL(/\/createVirtualMachine$/, WAIT);
    await context.close();
  });

  it('counts machines by status with links to the filtered list, shows the spend and recent activity', async () => {
    const { catalog } = await pricedCatalog(portal, admin);
    const ids: number[] = [];
    for (const name of ['dash-a', 'dash-b', 'dash-c'])
      ids.push((await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!);
    for (const id of ids) await waitForStatus(admin, id, 'Running');
    expect((await admin.call(routes.vms.stop, { params: { id: ids[2]! } })).status).toBe(200);
    await waitForStatus(admin, ids[2]!, 'Stopped');
    // dash-a has existed for 10 hours this month (its size period moved back): 10 h x 0.05 = 0.50.
    const now = Date.now();
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const tenHoursAgo = new Date(Math.max(monthStart, now - 10 * 3_600_000));
    await portal.db
      .update(vmSizePeriods)
      .set({ startedAt: tenHoursAgo })
      .where(and(eq(vmSizePeriods.vmId, ids[0]!)));
    const summary = (await admin.call(routes.vms.dashboardSummary)).data;
    expect(summary.statuses).toEqual([
      { status: 'Running', count: 2 },
      { status: 'Stopped', count: 1 },
    ]);

    // A sign-in of its own (it heads the recent activity), the looks switched in place.
    const { context, page } = await newPage(DESKTOP);
    const byStatus = page.getByRole('list', { name: 'Machines by status' });
    for (const look of LOOKS) {
      const { name } = look;
      await setLook(page, look);
      await expect.poll(() => page.getByTestId('machines-total').textContent(), WAIT).toBe('3 machines');
      expect(await page.getByRole('region', { name: 'Create your first machine' }).count()).toBe(0);
      expect(await byStatus.getByRole('link', { name: 'Running 2' }).isVisible()).toBe(true);
      expect(await byStatus.getByRole('link', { name: 'Stopped 1' }).isVisible()).toBe(true);
      // The badges are the VM list's own.
      expect(await byStatus.locator('[data-status="Running"]').count()).toBe(1);
      // The spend is billing's rule, as the API answers it (at least 10 priced hours: $0.50).
      const spend = (await admin.call(routes.vms.dashboardSummary)).data.spend;
      expect(Number(spend.amount)).toBeGreaterThanOrEqual(0.5);
      await expect.poll(() => page.getByTestId('spend-amount').textContent(), WAIT).toBe(`$${spend.amount}`);
      // Recent activity, newest first, at most 5: the sign-in above heads it.
      const activity = page.getByRole('region', { name: 'Recent activity' });
      await expect.poll(() => activity.getByRole('listitem').count(), WAIT).toBe(5);
      expect(await activity.getByRole('listitem').first().textContent()).toContain('Signed in');
      await check(page, `summary-${name}`);
    }
    await setLook(page, LOOKS[0]);
    await byStatus.getByRole('link', { name: 'Stopped 1' }).click();
    await page.waitForURL(/\/virtualMachines\?status=Stopped$/, WAIT);
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'dash-c' }).isVisible(), WAIT).toBe(true);
    expect(await page.getByRole('row').filter({ hasText: 'dash-a' }).count()).toBe(0);
    await context.close();
  });

  it('shows a member no activity card and only the machines they see', async () => {
    const [demo] = await portal.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
    await createUser(portal, demo!.id, 'member@dashboard.test');
    const { context, page } = await newPage(PHONE, 'light', 'member@dashboard.test', PASSWORD);
    const prompt = page.getByRole('region', { name: 'Create your first machine' });
    await expect.poll(() => prompt.isVisible(), WAIT).toBe(true);
    expect(await page.getByRole('region', { name: 'Recent activity' }).count()).toBe(0);
    await check(page, 'member-phone-light');
    await context.close();
  });
});
