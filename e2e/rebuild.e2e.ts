/**
 * Rebuild (reinstall, issue 23 item 6) in Chromium on the simulator: the VM page's Rebuild opens a dialog with the
 * region's images, the stored keys and a user-data field; Rebuild stays disabled until the VM's name is typed exactly;
 * a script that is neither cloud-config nor #! is refused under its field; once confirmed the VM shows the new image
 * and the chosen key, and keeps its name and addresses. Screenshots at 1440x900 and 390x844; axe finds nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { REBUILD_TEXT, VM_ACTIONS } from '@portal/contract/vm-lifecycle';
import { signIn, type TestClient } from '../apps/api/test/harness.ts';
import { seededCatalog } from '../apps/api/test/vm-catalog.ts';
import { ed25519KeyLine } from '../apps/api/test/ssh-key-lines.ts';
import { axeViolations } from './support/axe.ts';
import { DESKTOP, signedInOnce, signedInPage } from './support/looks.ts';
import { SCREENSHOTS, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
let admin: TestClient;
let vmId = 0;
const NAME = 'rebuild-demo';

beforeAll(async () => {
  portal = await startPortal({ env: { SIMULATOR_STEP_MS: '50', VM_RUNNER_POLL_MS: '50' } });
  admin = await signIn(portal);
  const catalog = await seededCatalog(admin);
  await admin.call(routes.sshKeys.add, { body: { name: 'rebuild key', publicKey: ed25519KeyLine('me@rebuild') } });
  vmId = (await admin.call(routes.vms.create, { body: catalog.createBody(NAME) })).data.ids[0]!;
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

async function openDialog(page: Page) {
  await page.goto(`${portal.url}/virtualMachineDetails/${vmId}`);
  const button = page.locator('[data-action="rebuild"]').getByRole('button', { name: VM_ACTIONS.rebuild.label });
  await expect.poll(() => button.isEnabled()).toBe(true);
  await button.click();
  const dialog = page.getByRole('dialog', { name: REBUILD_TEXT.title(NAME) });
  await expect.poll(() => dialog.isVisible()).toBe(true);
  return dialog;
}

async function shot(page: Page, name: string) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${SCREENSHOTS}rebuild-${name}.png`, fullPage: true });
  expect(await axeViolations(page, 'body'), `${name}: axe violations`).toEqual([]);
}

describe('rebuild', () => {
  it('asks for the VM name typed exactly, then reinstalls with the chosen image and key', async () => {
    const { page } = await browserAdmin.get();
    const before = (await admin.call(routes.vms.details, { params: { id: vmId } })).data;
    const dialog = await openDialog(page);
    expect(await dialog.getByText(REBUILD_TEXT.warning).isVisible()).toBe(true);
    const submit = dialog.getByRole('button', { name: VM_ACTIONS.rebuild.label });
    const image = dialog.getByLabel(REBUILD_TEXT.imageLabel);
    await expect.poll(() => image.locator('option').count()).toBeGreaterThan(2);
    expect(await image.inputValue()).toBe('Debian 12');
    await expect
      .poll(() => dialog.getByTestId('rebuild-image-about').textContent())
      .toBe('Debian 12 · user root · at least 2 GB disk');
    await image.selectOption({ label: 'Ubuntu 24.04 LTS' });
    // The rebuilt machine logs in as the new image's user (decision 0018), and the dialog says so.
    await expect
      .poll(() => dialog.getByTestId('rebuild-image-about').textContent())
      .toBe('Ubuntu 24.04 · user ubuntu · at least 4 GB disk');
    await dialog.getByRole('checkbox', { name: /rebuild key/ }).check();
    // A wrong name, a name differing in case, or none: Rebuild stays disabled.
    const typed = dialog.getByLabel(REBUILD_TEXT.confirmLabel(NAME));
    expect(await submit.isDisabled()).toBe(true);
    await typed.fill('rebuild-dem');
    expect(await submit.isDisabled()).toBe(true);
    await typed.fill(NAME.toUpperCase());
    expect(await submit.isDisabled()).toBe(true);
    await typed.fill(NAME);
    // A user-data that is no cloud-config nor script is refused under its field.
    await dialog.getByLabel(SSH_KEY_TEXT.userDataLabel).fill('echo hello');
    await expect.poll(() => dialog.getByText(SSH_KEY_TEXT.userDataFormat).isVisible()).toBe(true);
    expect(await submit.isDisabled()).toBe(true);
    await dialog.getByLabel(SSH_KEY_TEXT.userDataLabel).fill('#!/bin/sh\ntouch /root/rebuilt\n');
    expect(await submit.isEnabled()).toBe(true);
    await shot(page, 'desktop');

    await submit.click();
    await expect.poll(() => page.getByText(VM_ACTIONS.rebuild.accepted).isVisible()).toBe(true);
    expect(await dialog.isVisible()).toBe(false);
    await expect
      .poll(async () => (await admin.call(routes.vms.details, { params: { id: vmId } })).data, { timeout: 15_000 })
      .toMatchObject({ status: 'Running', pendingOperation: null, virtualMachine: { image: 'Ubuntu 24.04 LTS' } });
    const after = (await admin.call(routes.vms.details, { params: { id: vmId } })).data;
    expect(after.virtualMachine).toMatchObject({ id: vmId, name: NAME, network: before.virtualMachine.network });
    expect(after.access.keys.map((k) => k.name)).toEqual([SSH_KEY_TEXT.portalKey, 'rebuild key']);
    expect(after.access.sshUsername).toBe('ubuntu');
    // The page follows: the new image and the key it was rebuilt with.
    await expect.poll(() => page.getByText('Ubuntu 24.04 LTS').first().isVisible()).toBe(true);
  });

  it('the dialog fits a phone and Cancel leaves the VM as it was', async () => {
    const { page } = await browserAdmin.get();
    await page.setViewportSize({ width: 390, height: 844 });
    const dialog = await openDialog(page);
    await dialog.getByLabel(REBUILD_TEXT.confirmLabel(NAME)).fill(NAME);
    // Nothing sticks out of the screen's width.
    const box = await dialog.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await shot(page, 'phone');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    const vm = (await admin.call(routes.vms.details, { params: { id: vmId } })).data;
    expect([vm.virtualMachine.image, vm.pendingOperation]).toEqual(['Ubuntu 24.04 LTS', null]);
  });
});
