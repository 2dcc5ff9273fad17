/** Teams screens in Chromium: create, build, set roles, rename, delete; paging, search, empty messages. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { ERRORS, TEXT } from '@portal/contract/messages';
import { teamMembers, teams } from '../apps/api/src/db/schema.ts';
import { createTeam, createUser, insertVm } from '../apps/api/test/fixtures.ts';
import { signedInOnce } from './support/looks.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

/** The side-navigation link shown as the current one. */
const activeNav = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).locator('a[aria-current="page"]').textContent();
const failWith = (message: string) => ({
  status: 500,
  contentType: 'application/json',
  body: JSON.stringify({ message, data: null }),
});

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
  await createUser(portal, 1, 'grace@example.com', { firstName: 'Grace', lastName: 'Hopper' });
  await createUser(portal, 1, 'linus@example.com', { firstName: 'Linus', lastName: 'Torvalds' });
});
afterAll(async () => {
  await admin.close();
  await portal?.stop();
});

/**
 * The admin's one signed-in context (a sign-in costs Chromium far more than a page load); each test starts on the
 * dashboard.
 */
const admin = signedInOnce(() => portal.newSignedInPage());
async function dashboard(): Promise<Page> {
  const { page } = await admin.get();
  await page.unrouteAll();
  await page.goto(`${portal.url}/`);
  return page;
}

describe('teams', () => {
  it('shows the empty dashboard table, then creates, builds, sets roles, renames and deletes a team', async () => {
    const page = await dashboard();
    const dashboardTeams = page.getByRole('region', { name: TEXT.teamsTableTitle });
    await expect.poll(() => dashboardTeams.getByText(TEXT.noTeams).isVisible()).toBe(true);
    expect(await dashboardTeams.getByText(TEXT.teamsTableMessage).isVisible()).toBe(true);
    expect(await dashboardTeams.getByText('Page 1 of 1').isVisible()).toBe(true);
    expect(await dashboardTeams.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    expect(await dashboardTeams.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    await page.getByRole('link', { name: 'Teams' }).click();
    await page.getByRole('button', { name: 'Create Team' }).click();
    await page.waitForURL(/\/createEditTeam$/);
    await expect.poll(() => page.getByRole('heading', { name: 'Create Team' }).isVisible()).toBe(true);
    expect(await activeNav(page)).toBe('Teams');
    await page.getByRole('button', { name: 'Create Team' }).click();
    await expect.poll(() => page.getByText('Team name cannot be empty').isVisible()).toBe(true);
    await page.getByLabel('Team name').fill('Web Ops');
    await page.getByRole('button', { name: 'Create Team' }).click();
    await page.waitForURL(/\/createEditTeam\?id=\d+/);
    const teamId = Number(new URL(page.url()).searchParams.get('id'));
    await expect.poll(() => page.getByRole('heading', { name: 'Edit Team' }).isVisible()).toBe(true);

    // Build: available users beside the members.
    await page.getByRole('button', { name: 'Add Grace Hopper' }).click();
    const members = page.getByRole('region', { name: 'Team Members' });
    await expect.poll(() => members.getByText('Grace Hopper').isVisible()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Add Grace Hopper' }).count()).toBe(0);
    await screenshot(page, 'team-build');

    // Set roles: Admin is fixed text; the dropdown offers no Admin.
    await page.getByRole('button', { name: 'Set Permissions' }).click();
    const select = page.getByLabel('Role of Grace Hopper');
    await expect.poll(() => select.isVisible()).toBe(true);
    expect(await select.locator('option').allTextContents()).toEqual(['Operator', 'Viewer']);
    await select.selectOption({ label: 'Viewer' });
    await screenshot(page, 'team-roles');
    await page.getByRole('button', { name: 'Save Roles' }).click();
    await page.waitForURL(new RegExp(`/team\\?id=${teamId}$`));
    const grace = await portal.db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.roleId, 3)));
    expect(grace).toHaveLength(1);
    await expect.poll(() => page.getByRole('row', { name: 'Grace Hopper' }).getByText('Viewer').isVisible()).toBe(true);
    // The team's VM table is there (empty).
    await expect.poll(() => page.getByRole('region', { name: 'Team Virtual Machines' }).isVisible()).toBe(true);
    expect(await activeNav(page)).toBe('Teams');

    // Rename.
    await page.getByLabel('Team name').fill('Web Operations');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Web Operations' }).isVisible()).toBe(true);
    await screenshot(page, 'team-details');
    await page.getByRole('button', { name: 'Back' }).click();
    await page.waitForURL(/\/teams$/);

    // Delete from the dashboard: the trash opens the dialog, not the row.
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('button', { name: 'Delete Web Operations' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.getByText('Delete Web Operations?').isVisible()).toBe(true);
    expect(await dialog.getByText('You are going to delete the team completely.').isVisible()).toBe(true);
    expect(await dialog.getByText(TEXT.cannotBeReversed).isVisible()).toBe(true);
    expect(page.url()).not.toContain('/team?');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await page.getByRole('button', { name: 'Delete Web Operations' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => dashboardTeams.getByText(TEXT.noTeams).isVisible()).toBe(true);
    expect(await portal.db.select().from(teams).where(eq(teams.id, teamId))).toEqual([]);
  });

  it('keeps the dialog open with the server error when a delete fails', async () => {
    const team = await createTeam(portal, 1, 'Busy team', [{ userId: 1, roleId: 1 }]);
    await insertVm(portal, { companyId: 1, teamId: team.id });
    const page = await dashboard();
    await expect
      .poll(() => page.getByRole('row', { name: 'Busy team' }).getByRole('cell').nth(2).textContent())
      .toBe('1');
    await page.getByRole('button', { name: 'Delete Busy team' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('dialog')
          .getByText('Error deleting team: This team still has 1 virtual machine. Delete them first.')
          .isVisible(),
      )
      .toBe(true);
    await screenshot(page, 'team-delete-error');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete Busy team' }).click();
    expect(await page.getByRole('dialog').getByRole('alert').count()).toBe(0);
  });

  it('pages and searches the teams table and the members table', async () => {
    const big = await createTeam(portal, 1, 'Aaa paging team', [{ userId: 1, roleId: 1 }]);
    for (let i = 0; i < 6; i++) {
      const u = await createUser(portal, 1, `pager${i}@example.com`, { firstName: `Pager${i}` });
      await portal.db.insert(teamMembers).values({ teamId: big.id, userId: u.id, roleId: 2 });
    }
    for (let i = 0; i < 11; i++)
      await createTeam(portal, 1, `Bulk team ${String(i).padStart(2, '0')}`, [{ userId: 1, roleId: 1 }]);
    const page = await dashboard();
    await page.getByRole('link', { name: 'Teams' }).click();
    const table = page.getByRole('region', { name: TEXT.teamsTableTitle });
    await expect.poll(() => table.getByText('Page 1 of 2').isVisible()).toBe(true);
    await table.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => table.getByText('Page 2 of 2').isVisible()).toBe(true);
    expect(await table.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await table.getByPlaceholder(TEXT.searchTeams).fill('bulk team 07');
    await expect.poll(() => table.getByText('Page 1 of 1').isVisible()).toBe(true);
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    await table.getByPlaceholder(TEXT.searchTeams).fill('no such team');
    await expect.poll(() => table.getByText(TEXT.noTeams).isVisible()).toBe(true);
    await table.getByPlaceholder(TEXT.searchTeams).fill('paging');
    await table.getByRole('row', { name: 'Aaa paging team' }).click();
    await page.waitForURL(/\/team\?id=/);
    const members = page.getByRole('region', { name: 'Team Members' });
    await expect.poll(() => members.getByText('Page 1 of 2').isVisible()).toBe(true);
    expect(await members.getByRole('row').count()).toBe(6);
    await members.getByPlaceholder(TEXT.searchTeamMembers).fill('pager3');
    await expect.poll(() => members.getByRole('row').count()).toBe(2);
    await members.getByPlaceholder(TEXT.searchTeamMembers).fill('nobody here');
    await expect.poll(() => members.getByText(TEXT.noTeamMembers).isVisible()).toBe(true);
    await members.getByPlaceholder(TEXT.searchTeamMembers).fill('pager1');
    await members.getByRole('row', { name: 'Pager1 Tester' }).click();
    await page.waitForURL(/\/user\?id=/);
  });

  it('shows fetch errors: roles on the team screens, and an emptied members table in build mode', async () => {
    const team = await createTeam(portal, 1, 'Fragile team', [{ userId: 1, roleId: 1 }]);
    const page = await dashboard();
    await page.route(/\/roles\/userRoles(\?|$)/, (route) => route.fulfill(failWith('Roles unavailable')));
    const rolesError = `${ERRORS.fetchRoles}: Roles unavailable`;

    // Team view: the members table says the roles could not be fetched.
    await page.goto(`${portal.url}/team?id=${team.id}`);
    const members = page.getByRole('region', { name: 'Team Members' });
    await expect.poll(() => members.getByRole('row', { name: 'Ada Admin' }).isVisible()).toBe(true);
    await expect.poll(() => page.getByText(rolesError).isVisible()).toBe(true);

    // Set-permissions mode says it too.
    await page.goto(`${portal.url}/createEditTeam?id=${team.id}`);
    await page.getByRole('button', { name: 'Set Permissions' }).click();
    await expect.poll(() => page.getByText(rolesError).isVisible()).toBe(true);
    await screenshot(page, 'team-roles-error');

    // Build mode: a failed team fetch empties the members and resets the page count to 1.
    await page.route(/\/v1\/teams\/\d+(\?|$)/, (route) => route.fulfill(failWith('Team store down')));
    await page.goto(`${portal.url}/createEditTeam?id=${team.id}`);
    const buildMembers = page.getByRole('region', { name: 'Team Members' });
    await expect.poll(() => buildMembers.getByText(`${ERRORS.fetchTeam}: Team store down`).isVisible()).toBe(true);
    expect(await buildMembers.getByText('Page 1 of 1').isVisible()).toBe(true);
    expect(await buildMembers.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.unrouteAll();
  });
});
