/**
 * Backups that outlive their VM (issue 24 items 2 and 4; decision 0021) in Chromium on the simulator: the delete
 * dialogs ask whether to keep a VM's backups (the list's row menu and the VM page: unticked by default; ticked, the
 * delete keeps them), the company's Backups screen lists the kept one as "deleted VM: name", restores it as a new
 * VM (the server's quota refusal shown in the dialog, then the new VM in the list, Running) and deletes it; the VM
 * page's Backups card restores as a new VM too; the list's bulk delete keeps backups when asked. Every new or
 * changed screen in every look (1440x900 and 390x844, light and dark): nothing wider than the viewport, axe clean,
 * screenshots kept-backups-*.png; focus back on the trigger after each dialog.
 */
import { eq } from 'drizzle-orm';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { VM_BULK_TEXT } from '@portal/contract/virtual-machines';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import { companies } from '../apps/api/src/db/schema.ts';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import { DESKTOP, everyLook, LOOKS, overflowing, PHONE, signedInPage } from './support/looks.ts';
import { waitForStatus } from './support/seed.ts';
import { axeViolations } from './support/axe.ts';

let portal: Portal;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;
let keepId = 0;
let cardId = 0;
const WAIT = { timeout: 30_000 };

async function created(name: string) {
  const id = (await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!;
  await waitForStatus(admin, id, 'Running', 60_000);
  return id;
}
/** A backup of the VM taken through the API, once ready and the VM free again (polled: also used in beforeAll). */
async function backedUp(vmId: number, name: string) {
  const id = (await admin.call(routes.backups.takeBackup, { params: { id: vmId }, body: { name } })).data.id;
  for (let i = 0; i < 600; i++) {
    const { backups } = (await admin.call(routes.backups.listBackups, { params: { id: vmId } })).data;
    const pending = (await admin.call(routes.vms.details, { params: { id: vmId } })).data.pendingOperation;
    if (backups.find((b) => b.id === id)?.state === 'ready' && pending === null) return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`backup ${name} is not ready`);
}
const companyBackups = async () => (await admin.call(routes.backups.listCompanyBackups)).data.backups;
const vmIdNamed = async (name: string) =>
  (await admin.call(routes.vms.list, { query: { search: name } })).data.data.find((v) => v.name === name)?.id;
const focused = (trigger: Locator) => trigger.evaluate((el) => el === document.activeElement);
const table = (page: Page) => page.getByRole('region', { name: 'Virtual Machines' });

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50' } });
  admin = await signIn(portal);
  catalog = await seededCatalog(admin);
  [keepId, cardId] = await Promise.all([created('keep-demo'), created('keep-card')]);
  await backedUp(keepId, 'before delete');
});
afterAll(async () => {
  await portal?.stop();
});

describe('kept backups', () => {
  it('a VM deleted with its backups kept leaves them on the Backups screen: restored as a new VM, then deleted', async () => {
    const { context, page } = await signedInPage(portal);

    // The list's row menu: the delete dialog asks, unticked; Cancel gives focus back to the menu button.
    await page.goto(`${portal.url}/virtualMachines?q=keep-demo`);
    const menuButton = table(page).getByRole('button', { name: 'Actions for keep-demo', exact: true });
    await menuButton.click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const rowDialog = page.getByRole('dialog', { name: TEXT.deleteTitle('keep-demo') });
    const rowKeep = rowDialog.getByLabel(BACKUP_SCREEN_TEXT.keepOnDelete);
    await expect.poll(() => rowKeep.isVisible(), WAIT).toBe(true);
    expect(await rowKeep.isChecked()).toBe(false);
    expect(await rowDialog.getByText(BACKUP_SCREEN_TEXT.hasBackups(1)).isVisible()).toBe(true);
    // The spec's texts stay, word for word.
    expect(await rowDialog.getByText(TEXT.deleteBody('virtual machine')).isVisible()).toBe(true);
    expect(await rowDialog.getByText(TEXT.cannotBeReversed).isVisible()).toBe(true);
    await rowDialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => focused(menuButton), WAIT).toBe(true);

    // The VM page's delete: ticked, the delete keeps the backup.
    await page.goto(`${portal.url}/virtualMachineDetails/${keepId}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: TEXT.deleteTitle('keep-demo') });
    const keep = dialog.getByLabel(BACKUP_SCREEN_TEXT.keepOnDelete);
    await expect.poll(() => keep.isVisible(), WAIT).toBe(true);
    expect(await keep.isChecked()).toBe(false);
    await keep.check();
    await everyLook(page, 'kept-backups-delete-dialog', { within: '[role="dialog"]' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/virtualMachines$/, WAIT);
    await expect
      .poll(async () => (await companyBackups()).find((b) => b.name === 'before delete')?.vmId, WAIT)
      .toBeNull();

    // The Backups screen, from the navigation: the kept backup of the deleted VM.
    await page.getByRole('link', { name: BACKUP_SCREEN_TEXT.title, exact: true }).click();
    await page.waitForURL(/\/backups$/, WAIT);
    const row = page.getByRole('row').filter({ has: page.locator('[data-backup="before delete"]') });
    await expect.poll(() => row.textContent(), WAIT).toContain(BACKUP_SCREEN_TEXT.deletedVm('keep-demo'));
    expect(await row.locator('[data-label="state"]').first().textContent()).toBe('Ready');
    await everyLook(page, 'kept-backups-screen');
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      expect(await overflowing(page, 'none'), `${viewport.width}: wider than the viewport`).toEqual([]);
    }
    await page.setViewportSize(DESKTOP);

    // Restore as a new VM: refused over the company's quota (the server's words in the dialog), then made.
    const [demo] = await portal.db.select().from(companies).where(eq(companies.externalId, 'demo-company'));
    await portal.db.update(companies).set({ maxVms: 1 }).where(eq(companies.id, demo!.id));
    const restore = row.getByRole('button', { name: `${BACKUP_SCREEN_TEXT.restoreAsNew} from before delete` });
    await restore.click();
    const asNew = page.getByRole('dialog', { name: BACKUP_TEXT.restoreAsNewTitle });
    const name = asNew.getByLabel(BACKUP_SCREEN_TEXT.newVmName);
    expect(await name.inputValue()).toBe('keep-demo-restored');
    await asNew.getByRole('button', { name: BACKUP_SCREEN_TEXT.restoreAsNew }).click();
    await expect.poll(() => asNew.getByText('This company may run at most 1').isVisible(), WAIT).toBe(true);
    await everyLook(page, 'kept-backups-restore-refused', { within: '[role="dialog"]' });
    await portal.db.update(companies).set({ maxVms: null }).where(eq(companies.id, demo!.id));
    await asNew.getByRole('button', { name: BACKUP_SCREEN_TEXT.restoreAsNew }).click();
    await expect.poll(() => page.getByText(BACKUP_TEXT.restoringAsNew).isVisible(), WAIT).toBe(true);
    await expect.poll(() => asNew.count(), WAIT).toBe(0);
    await expect.poll(() => focused(restore), WAIT).toBe(true);

    // The new VM: in the list, and running.
    await expect.poll(() => vmIdNamed('keep-demo-restored'), WAIT).toBeGreaterThan(0);
    const restoredId = (await vmIdNamed('keep-demo-restored'))!;
    await waitForStatus(admin, restoredId, 'Running', 60_000);
    await page.goto(`${portal.url}/virtualMachines?q=keep-demo-restored`);
    const restoredRow = table(page).getByRole('row').filter({ hasText: 'keep-demo-restored' });
    await expect.poll(() => restoredRow.textContent(), WAIT).toContain('Running');

    // Delete the kept backup: Cancel gives focus back; confirmed, the screen is empty.
    await page.goto(`${portal.url}/backups`);
    const del = row.getByRole('button', { name: `${BACKUP_ACTIONS.backupDelete.label} before delete` });
    await expect.poll(() => row.locator('[data-label="state"]').first().textContent(), WAIT).toBe('Ready');
    await del.click();
    const confirm = page.getByRole('dialog', { name: BACKUP_TEXT.deleteTitle });
    await expect.poll(() => confirm.getByText(BACKUP_TEXT.deleteText('before delete')).isVisible(), WAIT).toBe(true);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => focused(del), WAIT).toBe(true);
    await del.click();
    await confirm.getByRole('button', { name: BACKUP_ACTIONS.backupDelete.label }).click();
    await expect.poll(() => page.getByText(BACKUP_SCREEN_TEXT.empty).isVisible(), WAIT).toBe(true);
    expect((await companyBackups()).some((b) => b.name === 'before delete')).toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}kept-backups-empty.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
  });

  it("the VM page's Backups card restores as a new VM; the list's bulk delete keeps backups when asked", async () => {
    await backedUp(cardId, 'card backup');
    const { context, page } = await signedInPage(portal);
    await page.goto(`${portal.url}/virtualMachineDetails/${cardId}`);
    const card = page.getByRole('region', { name: BACKUP_TEXT.title });
    const trigger = card.getByRole('button', { name: `${BACKUP_SCREEN_TEXT.restoreAsNew} from card backup` });
    await expect.poll(() => trigger.isEnabled(), WAIT).toBe(true);
    await card.scrollIntoViewIfNeeded();
    await everyLook(page, 'kept-backups-card');
    for (const look of LOOKS.filter((l) => l.colorScheme === 'light')) {
      await page.setViewportSize(look.viewport);
      await card.scrollIntoViewIfNeeded();
      const box = await card.boundingBox();
      expect(box!.x + box!.width, look.name).toBeLessThanOrEqual(look.viewport.width);
      await card.screenshot({ path: `${SCREENSHOTS}kept-backups-card-${look.name}.png` });
    }
    await page.setViewportSize(DESKTOP);
    await trigger.click();
    const asNew = page.getByRole('dialog', { name: BACKUP_TEXT.restoreAsNewTitle });
    await asNew.getByLabel(BACKUP_SCREEN_TEXT.newVmName).fill('keep-card-copy');
    await asNew.getByRole('button', { name: BACKUP_SCREEN_TEXT.restoreAsNew }).click();
    await expect.poll(() => page.getByText(BACKUP_TEXT.restoringAsNew).isVisible(), WAIT).toBe(true);
    await expect.poll(() => focused(trigger), WAIT).toBe(true);
    await expect.poll(() => vmIdNamed('keep-card-copy'), WAIT).toBeGreaterThan(0);
    await waitForStatus(admin, (await vmIdNamed('keep-card-copy'))!, 'Running', 60_000);
    await expect.poll(() => trigger.isEnabled(), WAIT).toBe(true);

    // The bulk delete: one choice for all, unticked; ticked, the deleted VM's backup stays.
    await page.goto(`${portal.url}/virtualMachines?q=keep-card`);
    await table(page).getByRole('checkbox', { name: 'Select keep-card', exact: true }).check();
    const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
    await bar.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: VM_BULK_TEXT.confirmTitle('Delete', 1) });
    const keep = confirm.getByLabel(BACKUP_SCREEN_TEXT.keepOnBulkDelete);
    expect(await keep.isChecked()).toBe(false);
    await confirm.getByLabel(VM_BULK_TEXT.typeToConfirm).fill('delete');
    await keep.check();
    await everyLook(page, 'kept-backups-bulk-dialog', { within: '[role="dialog"]' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    const summary = page.getByRole('dialog', { name: VM_BULK_TEXT.summaryTitle });
    await expect.poll(() => summary.getByTestId('bulk-summary').textContent(), WAIT).toBe('1 deleted');
    await expect
      .poll(async () => (await companyBackups()).find((b) => b.name === 'card backup')?.vmId, WAIT)
      .toBeNull();
    await context.close();
  });
});
