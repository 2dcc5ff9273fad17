/**
 * Quotas in Chromium (issue 22): the reseller's owner sets a company's VM limit on its page and sees usage against
 * it; the company administrator sees a team's usage, its limits and the company's, and sets the team's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTA_TEXT } from '@portal/contract/quotas';
import { createTeam, createUser, PASSWORD } from '../apps/api/test/fixtures.ts';
import { ensureStaffCompany } from '../apps/api/src/modules/reseller-companies/staff.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

let portal: Portal;
let teamId: number;
beforeAll(async () => {
  portal = await startPortal();
  await createUser(portal, (await ensureStaffCompany(portal.db, 1))!, 'quota-owner@northwind.example', {
    staffRole: 'owner',
  });
  teamId = (await createTeam(portal, 1, 'Quota Team')).id;
});
afterAll(async () => {
  await portal?.stop();
});

describe('quotas', () => {
  it("the reseller sets a company's limits; its administrator sets a team's within them", async () => {
    const owner = await portal.newPage();
    await portal.signIn(owner.page, 'quota-owner@northwind.example', PASSWORD);
    await owner.page.goto(`${portal.url.replace(/\/$/, '')}/reseller/company?id=1`);
    const panel = owner.page.getByRole('region', { name: QUOTA_TEXT.title });
    await panel.getByRole('button', { name: QUOTA_TEXT.edit }).click();
    await panel.getByLabel('Virtual machines limit').fill('5');
    await panel.getByLabel('vCPUs limit').fill('16');
    await panel.getByRole('button', { name: QUOTA_TEXT.save }).click();
    await expect
      .poll(() => panel.getByRole('row', { name: /Virtual machines/ }).innerText())
      .toMatch(/Virtual machines\s+0\s+5/);
    await screenshot(owner.page, 'quotas-company');

    const admin = await portal.newPage();
    await portal.signIn(admin.page);
    await admin.page.goto(`${portal.url.replace(/\/$/, '')}/team?id=${teamId}`);
    const teamPanel = admin.page.getByRole('region', { name: QUOTA_TEXT.title });
    await expect
      .poll(() => teamPanel.getByRole('row', { name: /vCPUs/ }).innerText())
      .toMatch(/vCPUs\s+0\s+No limit\s+16/);
    await teamPanel.getByRole('button', { name: QUOTA_TEXT.edit }).click();
    await teamPanel.getByLabel('vCPUs limit').fill('32');
    await teamPanel.getByRole('button', { name: QUOTA_TEXT.save }).click();
    await expect.poll(() => teamPanel.getByRole('alert').innerText()).toContain("cannot exceed the company's (16)");
    await teamPanel.getByLabel('vCPUs limit').fill('8');
    await teamPanel.getByRole('button', { name: QUOTA_TEXT.save }).click();
    await expect.poll(() => teamPanel.getByRole('row', { name: /vCPUs/ }).innerText()).toMatch(/vCPUs\s+0\s+8\s+16/);
    await screenshot(admin.page, 'quotas-team');
  });
});
