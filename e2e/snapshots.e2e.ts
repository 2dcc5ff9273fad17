/**
 * The VM page's Snapshots card (issue 24 item 1) in Chromium on the simulator: an empty card, a bad name refused under
 * its field, a snapshot taken by name (listed with its size, "with memory" and Ready), a revert behind a confirmation
 * that says what is lost, a delete behind its own; the count against the limit. Screenshots at 1440x900 and 390x844
 * (nothing wider than the screen); axe finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SNAPSHOTS } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { SNAPSHOT_NAME_RULE } from '@portal/contract/snapshots';
import { SNAPSHOT_ACTIONS, SNAPSHOT_TEXT } from '@portal/contract/vm-lifecycle';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, signedInOnce, signedInPage } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
let admin: TestClient;
let vmId = 0;

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50' } });
  admin = await signIn(portal);
  const catalog = await seededCatalog(admin);
  vmId = (await admin.call(routes.vms.create, { body: catalog.createBody('snapshot-demo') })).data.ids[0]!;
  for (let i = 0; i < 200; i++) {
    if ((await admin.call(routes.vms.details, { params: { id: vmId } })).data.status === 'Running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await browserAdmin.close();
  await portal?.stop();
});

/**
 * One signed-in context for both tests (a sign-in costs Chromium far more than a page load): a desktop, then a
 * phone.
 */
const browserAdmin = signedInOnce(() => signedInPage(portal, DESKTOP));

async function shot(page: Page, name: string, withCard = true) {
  // The page scrolls inside its layout: the card is brought into view, and shot on its own too (not behind a dialog).
  const card = page.locator(`section[aria-label="${SNAPSHOT_TEXT.title}"]`);
  if (withCard) await card.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SCREENSHOTS}snapshots-${name}.png`, fullPage: true });
  if (withCard) await card.screenshot({ path: `${SCREENSHOTS}snapshots-${name}-card.png` });
  expect(await axeViolations(page, 'body'), `${name}: axe violations`).toEqual([]);
}

const listed = async () => (await admin.call(routes.snapshots.listSnapshots, { params: { id: vmId } })).data;

describe('snapshots card', () => {
  it('takes, reverts and deletes snapshots from the VM page', async () => {
    const { page } = await browserAdmin.get();
    await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
    const card = page.getByRole('region', { name: SNAPSHOT_TEXT.title });
    await expect.poll(() => card.getByText(SNAPSHOT_TEXT.empty).isVisible()).toBe(true);
    expect(await card.getByTestId('snapshot-count').textContent()).toBe(`0 of ${SNAPSHOTS.defaultPerVm}`);

    const name = card.getByLabel(SNAPSHOT_TEXT.nameLabel);
    const takeButton = card.getByRole('button', { name: SNAPSHOT_ACTIONS.snapshot.label });
    await name.fill('bad/name');
    await takeButton.click();
    await expect.poll(() => card.getByText(SNAPSHOT_NAME_RULE).isVisible()).toBe(true);
    expect((await listed()).snapshots).toEqual([]);

    await name.fill('before upgrade');
    await takeButton.click();
    await expect.poll(() => page.getByText(SNAPSHOT_ACTIONS.snapshot.accepted).isVisible()).toBe(true);
    const row = card.locator('[data-snapshot="before upgrade"]');
    await expect.poll(() => row.locator('[data-label="state"]').textContent(), { timeout: 15_000 }).toBe('Ready');
    expect(await row.textContent()).toContain('with memory');
    expect(await row.locator('[data-label="size"]').textContent()).toMatch(/^\d+(\.\d)? (MB|GB)$/);
    expect(await card.getByTestId('snapshot-count').textContent()).toBe(`1 of ${SNAPSHOTS.defaultPerVm}`);
    await shot(page, 'desktop');

    // Revert: confirmed, with what is lost said.
    await row.getByRole('button', { name: `${SNAPSHOT_ACTIONS.snapshotRevert.label} to before upgrade` }).click();
    const dialog = page.getByRole('dialog', { name: SNAPSHOT_TEXT.revertTitle });
    await expect.poll(() => dialog.getByText(SNAPSHOT_TEXT.revertText('before upgrade')).isVisible()).toBe(true);
    await shot(page, 'revert-dialog', false);
    await dialog.getByRole('button', { name: SNAPSHOT_ACTIONS.snapshotRevert.label }).click();
    await expect.poll(() => page.getByText(SNAPSHOT_ACTIONS.snapshotRevert.accepted).isVisible()).toBe(true);
    await expect
      .poll(async () => (await admin.call(routes.vms.details, { params: { id: vmId } })).data, { timeout: 15_000 })
      .toMatchObject({ status: 'Running', pendingOperation: null });

    // Delete: confirmed too; the card is empty again.
    await expect.poll(() => row.locator('[data-label="state"]').textContent(), { timeout: 15_000 }).toBe('Ready');
    await row.getByRole('button', { name: `${SNAPSHOT_ACTIONS.snapshotDelete.label} before upgrade` }).click();
    const del = page.getByRole('dialog', { name: SNAPSHOT_TEXT.deleteTitle });
    await del.getByRole('button', { name: SNAPSHOT_ACTIONS.snapshotDelete.label }).click();
    await expect.poll(() => card.getByText(SNAPSHOT_TEXT.empty).isVisible(), { timeout: 15_000 }).toBe(true);
    expect((await listed()).snapshots).toEqual([]);
  });

  it('fits a phone', async () => {
    await admin.call(routes.snapshots.takeSnapshot, { params: { id: vmId }, body: { name: 'phone check' } });
    await expect.poll(async () => (await listed()).snapshots[0]?.state, { timeout: 15_000 }).toBe('ready');
    const { page } = await browserAdmin.get();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
    const card = page.getByRole('region', { name: SNAPSHOT_TEXT.title });
    await expect.poll(() => card.locator('[data-snapshot="phone check"]').isVisible()).toBe(true);
    await card.scrollIntoViewIfNeeded();
    const box = await card.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'phone');
  });
});
