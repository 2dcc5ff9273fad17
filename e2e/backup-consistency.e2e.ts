/**
 * A backup's consistency label (issue 24 item 1; decision 0028) in Chromium on the simulator, whose guest "has an
 * agent" when its name says so: a backup of a running VM with an agent reads "application-consistent", one without
 * "crash-consistent" (the label's title says what it means), on the VM page's Backups card and on the company's
 * /backups screen. Both screens in every look (1440x900 and 390x844, light and dark): nothing wider than the
 * viewport, axe clean, screenshots backup-consistency-*.png.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_CONSISTENCY_TEXT } from '@portal/contract/backup-consistency';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { BACKUP_TEXT } from '@portal/contract/backups';
import { routes } from '@portal/contract/routes';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import { DESKTOP, everyLook, PHONE, signedInPage } from './support/looks.ts';
import { waitForStatus } from './support/seed.ts';

let portal: Portal;
let admin: TestClient;
let agentVm = 0;
let plainVm = 0;
const WAIT = { timeout: 30_000 };

async function backedUp(vmId: number, name: string) {
  const id = (await admin.call(routes.backups.takeBackup, { params: { id: vmId }, body: { name } })).data.id;
  for (let i = 0; i < 600; i++) {
    const { backups } = (await admin.call(routes.backups.listBackups, { params: { id: vmId } })).data;
    if (backups.find((b) => b.id === id)?.state === 'ready') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`backup ${name} is not ready`);
}

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50' } });
  admin = await signIn(portal);
  const catalog = await seededCatalog(admin);
  const create = async (name: string) => {
    const id = (await admin.call(routes.vms.create, { body: catalog.createBody(name) })).data.ids[0]!;
    await waitForStatus(admin, id, 'Running', 60_000);
    return id;
  };
  [agentVm, plainVm] = await Promise.all([create('agent-demo'), create('plain-demo')]);
  await Promise.all([backedUp(agentVm, 'Frozen for the copy'), backedUp(plainVm, 'As a power cut')]);
});
afterAll(async () => {
  await portal?.stop();
});

describe('backup consistency', () => {
  it('labels each backup application- or crash-consistent on the VM page and the Backups screen, in every look', async () => {
    const { context, page } = await signedInPage(portal);
    const app = BACKUP_CONSISTENCY_TEXT['application-consistent'];
    const crash = BACKUP_CONSISTENCY_TEXT['crash-consistent'];

    await page.goto(`${portal.url}/virtualMachineDetails/${agentVm}`);
    const card = page.getByRole('region', { name: BACKUP_TEXT.title });
    const label = card.locator('[data-backup="Frozen for the copy"] [data-label="consistency"]');
    await expect.poll(() => label.textContent(), WAIT).toBe(app.label);
    expect(await label.getAttribute('title')).toBe(app.title);
    await card.scrollIntoViewIfNeeded();
    await everyLook(page, 'backup-consistency-card');
    // The card itself on a phone (the page's scrolling main area leaves it out of a full-page screenshot).
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(PHONE);
      await page.emulateMedia({ colorScheme });
      await card.scrollIntoViewIfNeeded();
      const box = await card.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
      await card.screenshot({ path: `${SCREENSHOTS}backup-consistency-card-only-phone-${colorScheme}.png` });
    }
    await page.setViewportSize(DESKTOP);
    await page.emulateMedia({ colorScheme: 'light' });

    await page.goto(`${portal.url}/virtualMachineDetails/${plainVm}`);
    const plain = card.locator('[data-backup="As a power cut"] [data-label="consistency"]');
    await expect.poll(() => plain.textContent(), WAIT).toBe(crash.label);
    expect(await plain.getAttribute('title')).toBe(crash.title);

    await page.goto(`${portal.url}/backups`);
    await expect
      .poll(() => page.getByRole('heading', { name: BACKUP_SCREEN_TEXT.title }).first().isVisible(), WAIT)
      .toBe(true);
    const row = (name: string) => page.locator(`[data-backup="${name}"]`).locator('xpath=ancestor::tr');
    await expect
      .poll(() => row('Frozen for the copy').locator('[data-label="consistency"]:visible').textContent(), WAIT)
      .toBe(app.label);
    expect(await row('As a power cut').locator('[data-label="consistency"]:visible').textContent()).toBe(crash.label);
    await everyLook(page, 'backup-consistency-screen');
    await context.close();
  });
});
