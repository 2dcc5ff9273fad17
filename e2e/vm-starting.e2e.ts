/**
 * Starting with the time so far (issue 23 item 4): while a new VM's guest boots, the list and the VM page show
 * "Starting · N s", counted up in the browser without a reload, then Running. A VM booting for 72 s reads
 * "Starting · 1 min 12 s". Screenshots at 1440x900 and 390x844. The busy badge pulses, unless the user asked for
 * reduced motion.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { routes } from '@portal/contract/routes';
import { virtualMachines } from '../apps/api/src/db/schema.ts';
import { insertVm } from '../apps/api/test/fixtures.ts';
import { signIn } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { axeViolations } from './support/axe.ts';
import { signedInOnce } from './support/looks.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
beforeAll(async () => {
  // A simulated action of 12 s: the machine is made in the first half, its guest boots (Starting) in the second.
  portal = await startPortal({
    env: { SIMULATOR_STEP_MS: '12000', VM_RUNNER_POLL_MS: '50', VM_RECONCILE_INTERVAL_MS: '1000' },
  });
});
afterAll(async () => {
  await admin.close();
  await portal?.stop();
});

/** The admin's one signed-in context: each test loads its pages anew (the width and motion switched in place). */
const admin = signedInOnce(async () => {
  const opened = await portal.newPage();
  await opened.page.setViewportSize({ width: 1440, height: 900 });
  await portal.signIn(opened.page);
  return opened;
});

/** The status badge of the VM named `name` in the list, or of the VM page. */
const listBadge = (page: Page, name: string) => page.getByRole('row', { name, exact: true }).locator('[data-status]');
const pageBadge = (page: Page) => page.locator('dd[data-label="Status"] [data-status]');
const seconds = (text: string | null) => Number(/· (\d+) s$/.exec(text ?? '')?.[1] ?? Number.NaN);

it('shows a booting VM as Starting with the time so far, ticking, in the list and on its page, then Running', async () => {
  const api = await signIn(portal);
  const { createBody } = await seededCatalog(api);
  const id = (await api.call(routes.vms.create, { body: createBody('sunrise') })).data.ids[0]!;

  const { page } = await admin.get();
  await page.goto(`${portal.url}/virtualMachines`);
  const badge = listBadge(page, 'sunrise');
  await expect.poll(() => badge.getAttribute('data-status'), { timeout: 20_000 }).toBe('Starting');
  await expect.poll(async () => seconds(await badge.textContent()), { timeout: 5000 }).toBeGreaterThanOrEqual(0);
  const first = seconds(await badge.textContent());
  // It counts on by itself (no reload, no new answer from the server).
  await expect.poll(async () => seconds(await badge.textContent()), { timeout: 5000 }).toBeGreaterThan(first);
  expect(await badge.textContent()).toMatch(/^Starting · \d+ s$/);
  expect(await badge.getAttribute('title')).toBe('Powered on; waiting for the system to answer');
  await screenshot(page, 'vm-starting-list-1440');

  await page.goto(`${portal.url}/virtualMachineDetails/${id}`);
  await expect.poll(async () => (await pageBadge(page).textContent()) ?? '').toMatch(/^Starting · \d+ s$/);
  await screenshot(page, 'vm-starting-details-1440');
  // The guest answers: Running, the time gone.
  await expect.poll(() => pageBadge(page).textContent(), { timeout: 20_000 }).toBe('Running');
});

it('reads "1 min 12 s" for a guest booting for 72 s, at both widths, with no accessibility violation', async () => {
  const vm = await insertVm(portal, { companyId: 1, teamId: null, name: 'slow-boot', status: 'Starting' });
  for (const [width, height] of [
    [1440, 900],
    [390, 844],
  ] as const) {
    const { page } = await admin.get();
    await page.setViewportSize({ width, height });
    // Booting for 72 s when the page opens.
    await portal.db
      .update(virtualMachines)
      .set({ bootingSince: new Date(Date.now() - 72_000) })
      .where(eq(virtualMachines.id, vm.id));
    await page.goto(`${portal.url}/virtualMachines`);
    await expect
      .poll(async () => (await listBadge(page, 'slow-boot').textContent()) ?? '')
      .toMatch(/^Starting · 1 min 1[2-9] s$/);
    await screenshot(page, `vm-starting-minutes-list-${width}`);
    await page.goto(`${portal.url}/virtualMachineDetails/${vm.id}`);
    await expect.poll(async () => (await pageBadge(page).textContent()) ?? '').toMatch(/^Starting · 1 min 1[2-9] s$/);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, `vm-starting-minutes-details-${width}`);
  }
});

it('pulses the busy badge, and keeps it still for a user who asked their system for reduced motion', async () => {
  await insertVm(portal, { companyId: 1, teamId: null, name: 'pulsing', status: 'Starting' });
  const running = (page: Page) =>
    listBadge(page, 'pulsing').evaluate(
      (badge) => badge.getAnimations({ subtree: true }).filter((a) => a.playState === 'running').length,
    );
  const { page } = await admin.get();
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const reducedMotion of ['no-preference', 'reduce'] as const) {
    // The user's system preference, emulated before the page loads (as a browser started with it would be).
    await page.emulateMedia({ reducedMotion });
    await page.goto(`${portal.url}/virtualMachines`);
    await expect.poll(async () => (await listBadge(page, 'pulsing').textContent()) ?? '').toMatch(/^Starting/);
    if (reducedMotion === 'reduce') expect(await running(page)).toBe(0);
    else await expect.poll(() => running(page)).toBe(1);
  }
  await page.emulateMedia({ reducedMotion: null });
});
