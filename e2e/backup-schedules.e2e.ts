/**
 * The VM page's backup schedule (issue 24 item 2; decision 0023) in Chromium on the simulator: none at first, keep
 * beyond the VM's limit refused under its field, a weekly schedule saved (its summary in UTC, the next run through
 * the portal's date formatter), a due slot run by the server's worker for a VM whose takes fail (the card shows the
 * last failure), the schedule removed behind a confirmation; a Viewer of the VM's team sees it read-only. Every look
 * (1440x900 and 390x844, light and dark): nothing wider than the screen, axe clean, screenshots backup-schedule-*.png.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUPS } from '@portal/contract/constants';
import { VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { BACKUP_SCHEDULE_TEXT as T } from '@portal/contract/backup-schedules';
import { vmBackupSchedules } from '../apps/api/src/db/schema.ts';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { createTeam, createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';
import { DESKTOP, everyLook, PHONE, signedInPage } from './support/looks.ts';
import { waitForStatus } from './support/seed.ts';

let portal: Portal;
let admin: TestClient;
let vmId = 0;
let teamVmId = 0;
let viewerEmail = '';
const WAIT = { timeout: 30_000 };
const SIMULATED = 'The simulator could not take the backup (simulated permanent failure)';

beforeAll(async () => {
  portal = await startPortal({
    env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50', BACKUP_SCHEDULE_INTERVAL_MS: '200', BACKUP_VERIFY: 'off' },
  });
  admin = await signIn(portal);
  const catalog = await seededCatalog(admin);
  const viewer = await createUser(portal, 1, 'schedule-viewer@example.com');
  viewerEmail = viewer.email;
  const team = await createTeam(portal, 1, 'Schedule team', [{ userId: viewer.id, roleId: VIEWER_ROLE_ID }]);
  // Its takes fail on the simulator: the card shows why.
  vmId = (await admin.call(routes.vms.create, { body: catalog.createBody('nightly-fail-backup') })).data.ids[0]!;
  teamVmId = (await admin.call(routes.vms.create, { body: { ...catalog.createBody('team-machine'), teamId: team.id } }))
    .data.ids[0]!;
  await waitForStatus(admin, vmId, 'Running');
  await waitForStatus(admin, teamVmId, 'Running');
  const set = await admin.call(routes.backupSchedules.setBackupSchedule, {
    params: { id: teamVmId },
    body: { frequency: 'daily', hour: 2, keep: 2 },
  });
  expect(set.status).toBe(200);
});
afterAll(async () => {
  await portal?.stop();
});

const scheduleOf = async (id: number) =>
  (await admin.call(routes.backupSchedules.getBackupSchedule, { params: { id } })).data.schedule;

describe('backup schedule card', () => {
  it('sets, shows (with the last failure) and removes a schedule, in every look', async () => {
    const { context, page } = await signedInPage(portal);
    await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
    const card = page.getByRole('region', { name: T.title });
    await expect.poll(() => card.getByText(T.none).isVisible(), WAIT).toBe(true);
    await card.scrollIntoViewIfNeeded();
    await expect.poll(() => card.getByText(T.utcNote).isVisible(), WAIT).toBe(true);

    // Keep beyond the VM's limit: refused under the field, nothing saved.
    const keep = card.getByLabel(T.keepLabel);
    await keep.fill(String(BACKUPS.defaultPerVm + 1));
    await card.getByRole('button', { name: T.save }).click();
    await expect.poll(() => card.getByText(T.keepOverLimit(BACKUPS.defaultPerVm)).isVisible(), WAIT).toBe(true);
    expect(await scheduleOf(vmId)).toBeNull();

    // Weekly on Monday at 04:00 UTC, keep 3.
    await card.getByLabel(T.frequencyLabel).selectOption('weekly');
    await card.getByLabel(T.weekdayLabel).selectOption('monday');
    await card.getByLabel(T.hourLabel).selectOption('4');
    await keep.fill('3');
    await card.getByRole('button', { name: T.save }).click();
    await expect.poll(() => page.getByText(T.saved).first().isVisible(), WAIT).toBe(true);
    await expect.poll(() => card.getByText('Weekly on Monday at 04:00 UTC').isVisible(), WAIT).toBe(true);
    const saved = (await scheduleOf(vmId))!;
    expect(saved).toMatchObject({ frequency: 'weekly', weekday: 'monday', hour: 4, keep: 3 });
    const next = card.locator(`dd[data-label="${T.nextRun}"]`);
    expect(await next.textContent()).toMatch(/ 04:00 UTC$/);
    expect(await next.locator('time').getAttribute('datetime')).toBe(new Date(saved.nextRunAt).toISOString());

    // Its slot comes (made due on the server): the worker's take fails, and the card says why.
    await portal.db
      .update(vmBackupSchedules)
      .set({ nextRunAt: new Date(Date.now() - 60_000) })
      .where(eq(vmBackupSchedules.vmId, vmId));
    await expect.poll(async () => (await scheduleOf(vmId))?.lastError, WAIT).toBe(SIMULATED);
    await page.reload();
    await card.scrollIntoViewIfNeeded();
    await expect
      .poll(() => card.getByTestId('backup-schedule-error').textContent(), WAIT)
      .toBe(`${T.lastError}: ${SIMULATED}`);
    await expect.poll(() => card.locator(`dd[data-label="${T.lastRun}"]`).isVisible(), WAIT).toBe(true);

    await everyLook(page, 'backup-schedule');
    for (const [look, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      await card.scrollIntoViewIfNeeded();
      const box = await card.boundingBox();
      expect(box!.x + box!.width, look).toBeLessThanOrEqual(viewport.width);
      await card.screenshot({ path: `${SCREENSHOTS}backup-schedule-card-${look}.png` });
    }
    await page.setViewportSize(DESKTOP);

    // Remove: confirmed; the backups it took stay.
    await card.getByRole('button', { name: T.remove }).click();
    const dialog = page.getByRole('dialog', { name: T.removeTitle });
    await expect.poll(() => dialog.getByText(T.removeText).isVisible(), WAIT).toBe(true);
    await everyLook(page, 'backup-schedule-remove-dialog', { within: '[role="dialog"]' });
    await dialog.getByRole('button', { name: T.remove }).click();
    await expect.poll(() => card.getByText(T.none).isVisible(), WAIT).toBe(true);
    expect(await scheduleOf(vmId)).toBeNull();
    await context.close();
  });

  it('a Viewer sees the schedule read-only', async () => {
    const { context, page } = await signedInPage(portal, DESKTOP, 'dark', viewerEmail, PASSWORD);
    await page.goto(`${portal.url}/virtualMachineDetails/${teamVmId}`);
    const card = page.getByRole('region', { name: T.title });
    await expect.poll(() => card.getByText('Daily at 02:00 UTC').isVisible(), WAIT).toBe(true);
    await card.scrollIntoViewIfNeeded();
    expect(await card.getByRole('button', { name: T.save }).count()).toBe(0);
    expect(await card.getByRole('button', { name: T.remove }).count()).toBe(0);
    await card.screenshot({ path: `${SCREENSHOTS}backup-schedule-viewer-desktop-dark.png` });
    await context.close();
  });
});
