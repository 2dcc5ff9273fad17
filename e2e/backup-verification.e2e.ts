/**
 * Backup verification on the VM page's Backups card (issue 24 item 3; decision 0024) in Chromium on the simulator: a
 * proven backup reads "Verified at <date>", one whose verification failed (a VM named …fail-verify…) reads
 * "Verification failed: why" and never "Verified". Every look (1440x900 and 390x844, light and dark): nothing wider
 * than the screen, axe clean, screenshots backup-verification-<look>.png and backup-verification-card-{verified,failed}-<look>.png.
 * Verify now (decision 0026), on the card and on the company's Backups screen (/backups): the row reads "Verifying…"
 * while the verification runs (a …slow-verify… VM's copy takes 7.5 s to prove here: the screen's refetch after the
 * click lands well within it), its button is disabled meanwhile, then a new "Verified at …"; screenshots
 * backup-verify-now-card-verifying-desktop-light.png, backup-verify-now-card-done-<look>.png,
 * backup-verify-now-{vm,list}-<look>.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import type { Locator, Page } from 'playwright-core';
import { everyLook, LOOKS, signedInOnce, signedInPage } from './support/looks.ts';

let portal: Portal;
let admin: TestClient;
const WAIT = { timeout: 30_000 };

beforeAll(async () => {
  portal = await startPortal({
    env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50', BACKUP_VERIFY_INTERVAL_MS: '100' },
  });
  admin = await signIn(portal);
});
afterAll(async () => {
  await browserAdmin.close();
  await portal?.stop();
});

/**
 * The admin's one signed-in context for both tests (they only look and verify): a sign-in costs far more than a
 * page load.
 */
const browserAdmin = signedInOnce(() => signedInPage(portal));

/** A running VM with one backup whose verification has ended. */
async function vmWithVerifiedBackup(name: string, backupName = 'nightly') {
  const catalog = await seededCatalog(admin);
  const id = (await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!;
  await expect
    .poll(async () => (await admin.call(routes.vms.details, { params: { id } })).data.status, WAIT)
    .toBe('Running');
  const taken = await admin.call(routes.backups.takeBackup, { params: { id }, body: { name: backupName } });
  expect(taken.status, taken.message).toBe(200);
  await expect
    .poll(async () => {
      const b = (await admin.call(routes.backups.listBackups, { params: { id } })).data.backups[0];
      return b?.verifiedAt !== null || b?.verificationError !== null;
    }, WAIT)
    .toBe(true);
  return id;
}

describe('backup verification on the Backups card', () => {
  it('shows "Verified at …" for a proven backup and "Verification failed: why" for a failed one, in every look', async () => {
    const good = await vmWithVerifiedBackup('verified-demo');
    const bad = await vmWithVerifiedBackup('demo-fail-verify');
    const { page } = await browserAdmin.get();

    await page.goto(`${portal.url}/virtualMachineDetails/${good}`);
    let card = page.getByRole('region', { name: BACKUP_TEXT.title });
    let line = card.locator('[data-backup="nightly"] [data-label="verification"]');
    await expect.poll(() => line.textContent(), WAIT).toMatch(/^Verified at \S/);
    await cardShots(page, card, line, 'verified');

    await page.goto(`${portal.url}/virtualMachineDetails/${bad}`);
    card = page.getByRole('region', { name: BACKUP_TEXT.title });
    line = card.locator('[data-backup="nightly"] [data-label="verification"]');
    await expect.poll(() => line.textContent(), WAIT).toMatch(/^Verification failed: The copy did not boot/);
    expect(await card.getByText(/Verified at/).count()).toBe(0);

    await card.scrollIntoViewIfNeeded();
    await everyLook(page, 'backup-verification');
    await cardShots(page, card, line, 'failed');
  });
});

describe('Verify now', () => {
  it('verifies a backup again from the VM page and from /backups: "Verifying…" while it runs, then "Verified at …"', async () => {
    const id = await vmWithVerifiedBackup('verify-now-slow-verify', 'weekly');
    const { page } = await browserAdmin.get();
    await page.goto(`${portal.url}/virtualMachineDetails/${id}`);
    const card = page.getByRole('region', { name: BACKUP_TEXT.title });
    const row = card.locator('[data-backup="weekly"]');
    const line = row.locator('[data-label="verification"]');
    await expect.poll(() => line.textContent(), WAIT).toMatch(/^Verified at \S/);
    const button = row.getByRole('button', { name: `${BACKUP_ACTIONS.backupVerify.label}: weekly` });
    await expect.poll(() => button.isEnabled(), WAIT).toBe(true);
    await button.click();
    await expect.poll(() => page.getByText(BACKUP_ACTIONS.backupVerify.accepted).count(), WAIT).toBeGreaterThan(0);
    await expect.poll(() => line.textContent(), WAIT).toBe(BACKUP_SCREEN_TEXT.verifying);
    expect(await button.isDisabled()).toBe(true);
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: `${SCREENSHOTS}backup-verify-now-card-verifying-desktop-light.png` });
    // Proven again: a new time, the button offered again.
    await expect.poll(() => line.textContent(), WAIT).toMatch(/^Verified at \S/);
    await expect.poll(() => button.isEnabled(), WAIT).toBe(true);
    await cardShots(page, card, line, 'done', 'backup-verify-now-card');
    await everyLook(page, 'backup-verify-now-vm');

    // The company's Backups screen: the same by the backup's id (the row's Verification column, on a desktop).
    await page.goto(`${portal.url}/backups`);
    const listButton = page.getByRole('button', { name: `${BACKUP_ACTIONS.backupVerify.label}: weekly` });
    await expect.poll(() => listButton.isEnabled(), WAIT).toBe(true);
    const tableRow = page.getByRole('row').filter({ has: page.locator('[data-backup="weekly"]') });
    const status = tableRow.locator('[data-label="verification"]').last();
    await expect.poll(() => status.textContent(), WAIT).toMatch(/^Verified at \S/);
    await listButton.click();
    await expect.poll(() => status.textContent(), WAIT).toBe(BACKUP_SCREEN_TEXT.verifying);
    expect(await listButton.isDisabled()).toBe(true);
    await expect.poll(() => status.textContent(), WAIT).toMatch(/^Verified at \S/);
    await everyLook(page, 'backup-verify-now-list');
  });
});

/** The card in every look (the phone's full-page shot stops at the page's scroll box): the line within the screen. */
async function cardShots(page: Page, card: Locator, line: Locator, name: string, prefix = 'backup-verification-card') {
  for (const look of LOOKS) {
    await page.setViewportSize(look.viewport);
    await page.emulateMedia({ colorScheme: look.colorScheme });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')), WAIT)
      .toBe(look.colorScheme === 'dark');
    await card.scrollIntoViewIfNeeded();
    const box = await card.boundingBox();
    expect(box!.x + box!.width, look.name).toBeLessThanOrEqual(look.viewport.width);
    const lineBox = await line.boundingBox();
    expect(lineBox!.x + lineBox!.width, look.name).toBeLessThanOrEqual(look.viewport.width);
    await card.screenshot({ path: `${SCREENSHOTS}${prefix}-${name}-${look.name}.png` });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'light' });
}
