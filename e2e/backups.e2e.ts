/**
 * The VM page's Backups card (issue 24 item 2; decision 0021) in Chromium on the simulator: an empty card, a bad name
 * refused under its field, a backup taken without a name (named after its time, listed with its size and Ready, the
 * VM still Running), a restore behind a confirmation that says what is lost, a delete behind its own; the count
 * against the limit. Every look (1440x900 and 390x844, light and dark): nothing wider than the screen, axe clean,
 * screenshots backups-<look>.png and backups-card-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUPS } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { BACKUP_NAME_RULE, BACKUP_TEXT } from '@portal/contract/backups';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import { everyLook, signedInPage } from './support/looks.ts';

let portal: Portal;
let admin: TestClient;
let vmId = 0;
const WAIT = { timeout: 30_000 };

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50' } });
  admin = await signIn(portal);
  const catalog = await seededCatalog(admin);
  vmId = (await admin.call(routes.vms.create, { body: catalog.createBody('backup-demo') })).data.ids[0]!;
  for (let i = 0; i < 600; i++) {
    if ((await admin.call(routes.vms.details, { params: { id: vmId } })).data.status === 'Running') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await portal?.stop();
});

const listed = async () => (await admin.call(routes.backups.listBackups, { params: { id: vmId } })).data;
const details = async () => (await admin.call(routes.vms.details, { params: { id: vmId } })).data;

describe('backups card', () => {
  it('takes, restores and deletes backups from the VM page, in every look', async () => {
    const { context, page } = await signedInPage(portal);
    await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
    const card = page.getByRole('region', { name: BACKUP_TEXT.title });
    await expect.poll(() => card.getByText(BACKUP_TEXT.empty).isVisible(), WAIT).toBe(true);
    expect(await card.getByTestId('backup-count').textContent()).toBe(`0 of ${BACKUPS.defaultPerVm}`);

    const name = card.getByLabel(BACKUP_TEXT.nameLabel);
    const takeButton = card.getByRole('button', { name: BACKUP_ACTIONS.backup.label });
    await name.fill('bad/name');
    await takeButton.click();
    await expect.poll(() => card.getByText(BACKUP_NAME_RULE).isVisible(), WAIT).toBe(true);
    expect((await listed()).backups).toEqual([]);

    // No name: the server names it after its time.
    await name.fill('');
    await takeButton.click();
    await expect.poll(() => page.getByText(BACKUP_ACTIONS.backup.accepted).isVisible(), WAIT).toBe(true);
    await expect.poll(async () => (await listed()).backups[0]?.state, WAIT).toBe('ready');
    const [taken] = (await listed()).backups;
    expect(taken!.name).toMatch(/^Backup \d{4}-\d\d-\d\d \d\d:\d\d$/);
    const row = card.locator(`[data-backup="${taken!.name}"]`);
    await expect.poll(() => row.locator('[data-label="state"]').textContent(), WAIT).toBe('Ready');
    expect(await row.locator('[data-label="size"]').textContent()).toMatch(/^\d+(\.\d)? (MB|GB)$/);
    expect(await card.getByTestId('backup-count').textContent()).toBe(`1 of ${BACKUPS.defaultPerVm}`);
    // The VM kept running throughout.
    expect((await details()).status).toBe('Running');

    await card.scrollIntoViewIfNeeded();
    await everyLook(page, 'backups');
    for (const [look, viewport] of [
      ['desktop', { width: 1440, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await card.scrollIntoViewIfNeeded();
      const box = await card.boundingBox();
      expect(box!.x + box!.width, look).toBeLessThanOrEqual(viewport.width);
      await card.screenshot({ path: `${SCREENSHOTS}backups-card-${look}.png` });
    }
    await page.setViewportSize({ width: 1440, height: 900 });

    // Restore: confirmed, with what is lost said; the VM shows Restoring, then Running.
    await row.getByRole('button', { name: `${BACKUP_ACTIONS.backupRestore.label} from ${taken!.name}` }).click();
    const dialog = page.getByRole('dialog', { name: BACKUP_TEXT.restoreTitle });
    await expect.poll(() => dialog.getByText(BACKUP_TEXT.restoreText(taken!.name)).isVisible(), WAIT).toBe(true);
    await everyLook(page, 'backups-restore-dialog', { within: '[role="dialog"]' });
    await dialog.getByRole('button', { name: BACKUP_ACTIONS.backupRestore.label }).click();
    await expect.poll(() => page.getByText(BACKUP_ACTIONS.backupRestore.accepted).isVisible(), WAIT).toBe(true);
    await expect.poll(details, WAIT).toMatchObject({ status: 'Running', pendingOperation: null });

    // Delete: confirmed too; the card is empty again.
    await expect.poll(() => row.locator('[data-label="state"]').textContent(), WAIT).toBe('Ready');
    await row.getByRole('button', { name: `${BACKUP_ACTIONS.backupDelete.label} ${taken!.name}` }).click();
    const del = page.getByRole('dialog', { name: BACKUP_TEXT.deleteTitle });
    await del.getByRole('button', { name: BACKUP_ACTIONS.backupDelete.label }).click();
    await expect.poll(() => card.getByText(BACKUP_TEXT.empty).isVisible(), WAIT).toBe(true);
    expect((await listed()).backups).toEqual([]);
    await context.close();
  });
});
