/** Users screens in Chromium: invite → mail → confirm → sign in; edit; memberships; list, search, delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { ERRORS, TEXT, VALIDATION } from '@portal/contract/messages';
import { teamMembers, users } from '../apps/api/src/db/schema.ts';
import { createTeam, createUser } from '../apps/api/test/fixtures.ts';
import { linkFrom } from '../apps/api/test/smtp-catcher.ts';
import { signedInOnce } from './support/looks.ts';
import { screenshot, startPortal, type Portal } from './support/portal.ts';

/** The side-navigation link shown as the current one. */
const activeNav = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).locator('a[aria-current="page"]').textContent();

let portal: Portal;
beforeAll(async () => {
  portal = await startPortal();
});
afterAll(async () => {
  await admin.close();
  await portal?.stop();
});

/**
 * The admin's one signed-in context for the tests that look and edit (a sign-in costs Chromium far more than a page
 * load). The one that deletes a user has its own: a session's proof older than 5 minutes would be asked to step up.
 */
const admin = signedInOnce(() => portal.newSignedInPage());
async function adminPage(): Promise<Page> {
  const { page } = await admin.get();
  await page.unrouteAll();
  return page;
}

describe('users', () => {
  it('invites a user, who confirms from the mailed link and signs in', async () => {
    const team = await createTeam(portal, 1, 'Support Crew', [{ userId: 1, roleId: 1 }]);
    await createTeam(portal, 1, 'Other Crew', [{ userId: 1, roleId: 1 }]);
    const page = await adminPage();
    await page.goto(`${portal.url}/`);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'Create User' }).click();
    await page.waitForURL(/\/createUser/);
    await expect.poll(() => page.getByRole('heading', { name: 'Add User' }).isVisible()).toBe(true);
    expect(await activeNav(page)).toBe('Users');
    // Assignable roles only: no Admin in the list.
    await expect
      .poll(() => page.getByLabel('Role').locator('option').allTextContents())
      .toEqual(['Select a role', 'Operator', 'Viewer']);
    await page.getByRole('button', { name: 'Send Invite Email' }).click();
    await expect.poll(() => page.getByText(VALIDATION.emailRequired).isVisible()).toBe(true);
    expect(await page.getByText(VALIDATION.roleRequired).isVisible()).toBe(true);

    await page.getByLabel('Email').fill('newbie@example.com');
    await page.getByLabel('Filter teams').fill('support');
    await expect.poll(() => page.getByLabel('Other Crew').count()).toBe(0);
    await page.getByLabel('Support Crew').check();
    await page.getByLabel('Role').selectOption({ label: 'Operator' });
    await expect.poll(() => page.getByText(/Creates, starts, stops/).isVisible()).toBe(true);
    await screenshot(page, 'add-user');
    await page.getByRole('button', { name: 'Send Invite Email' }).click();
    await expect
      .poll(() => page.getByText(TEXT.completedCreatingUser('newbie@example.com')).first().isVisible())
      .toBe(true);
    await page.waitForURL(/\/users$/);

    const mail = await portal.smtp.waitFor('newbie@example.com', (m) => /invited/i.test(m.subject));
    const invitee = await portal.newPage();
    await invitee.page.goto(linkFrom(mail).toString());
    await invitee.page.getByLabel('First Name').fill('Nina');
    await invitee.page.getByLabel('Last Name').fill('Newbie');
    await invitee.page.getByLabel('New Password').fill('Newbie-Password-1!');
    await invitee.page.getByLabel('Confirm Password').fill('Newbie-Password-1!');
    await invitee.page.getByRole('button', { name: 'Confirm Email' }).click();
    await expect.poll(() => invitee.page.getByText(TEXT.emailConfirmed).isVisible()).toBe(true);
    await portal.signIn(invitee.page, 'newbie@example.com', 'Newbie-Password-1!');
    await invitee.page.getByRole('link', { name: 'Teams' }).click();
    await expect.poll(() => invitee.page.getByRole('row', { name: 'Support Crew' }).isVisible()).toBe(true);
    expect(await invitee.page.getByRole('row', { name: 'Other Crew' }).count()).toBe(0);
    const [row] = await portal.db.select().from(users).where(eq(users.email, 'newbie@example.com'));
    expect((await portal.db.select().from(teamMembers).where(eq(teamMembers.userId, row!.id)))[0]).toMatchObject({
      teamId: team.id,
      roleId: 2,
    });
    await invitee.context.close();
  });

  it('edits names with their validation and manages memberships', async () => {
    const u = await createUser(portal, 1, 'editme@example.com', { firstName: 'Eddie', lastName: 'Edit' });
    const alpha = await createTeam(portal, 1, 'Alpha', [{ userId: u.id, roleId: 3 }]);
    await createTeam(portal, 1, 'Bravo', [{ userId: u.id, roleId: 1 }]);
    const page = await adminPage();
    await page.goto(`${portal.url}/user?id=${u.id}`);
    await expect.poll(() => page.getByLabel('First Name').inputValue()).toBe('Eddie');
    expect(await activeNav(page)).toBe('Users');
    expect(await page.getByText('editme@example.com').isVisible()).toBe(true);
    await page.getByLabel('First Name').fill('Ed$');
    await page.getByLabel('Last Name').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText(VALIDATION.firstNameSpecial).isVisible()).toBe(true);
    expect(await page.getByText(VALIDATION.lastNameEmpty).isVisible()).toBe(true);
    await page.getByLabel('First Name').fill('Edwina');
    await page.getByLabel('Last Name').fill('Edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText(VALIDATION.userUpdated).isVisible()).toBe(true);
    expect((await portal.db.select().from(users).where(eq(users.id, u.id)))[0]!.firstName).toBe('Edwina');

    // Memberships: Admin is fixed text; others have a dropdown without Admin.
    const memberships = page.getByRole('region', { name: 'Team Memberships' });
    await expect.poll(() => memberships.getByRole('row', { name: /Bravo/ }).getByText('Admin').isVisible()).toBe(true);
    const select = page.getByLabel('Role in Alpha');
    expect(await select.locator('option').allTextContents()).toEqual(['Operator', 'Viewer']);
    await select.selectOption({ label: 'Operator' });
    await expect
      .poll(
        async () =>
          (
            await portal.db
              .select()
              .from(teamMembers)
              .where(and(eq(teamMembers.teamId, alpha.id), eq(teamMembers.userId, u.id)))
          )[0]?.roleId,
      )
      .toBe(2);
    await memberships.getByPlaceholder(TEXT.searchTeams).fill('bra');
    await expect.poll(() => memberships.getByRole('row').count()).toBe(2);
    await memberships.getByPlaceholder(TEXT.searchTeams).fill('alp');
    await expect.poll(() => memberships.getByRole('row', { name: /Alpha/ }).isVisible()).toBe(true);
    await screenshot(page, 'user-details');
    await page.getByRole('button', { name: 'Remove from Alpha' }).click();
    // Issue #12: removing a membership is confirmed first, and the toast says what happened.
    await page
      .getByRole('dialog', { name: TEXT.removeMembershipTitle('Alpha') })
      .getByRole('button', { name: 'Remove' })
      .click();
    await expect.poll(() => memberships.getByText(TEXT.noTeams).isVisible()).toBe(true);
    await expect.poll(() => page.getByText(/was removed from Alpha/).isVisible()).toBe(true);
  });

  it('lists and searches users, hides delete for yourself, and deletes another user', async () => {
    for (let i = 0; i < 10; i++) await createUser(portal, 1, `listed${i}@example.com`, { firstName: `Listed${i}` });
    await createUser(portal, 1, 'doomed@example.com', { firstName: 'Doomed', lastName: 'User' });
    const { context, page } = await portal.newPage();
    await portal.signIn(page);
    await page.getByRole('link', { name: 'Users' }).click();
    const table = page.getByRole('region', { name: 'Users' });
    // Twelve or more users at 10 a page: wait for the loaded count (the pager reads "Page 1 of 1" while loading).
    await expect.poll(() => table.getByText(/Page 1 of [2-9]/).isVisible()).toBe(true);
    // Refresh: the spinner stays at least ~300 ms after the reload ends.
    await page.route(/\/users\/list\?/, async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    const reloaded = page.waitForResponse(/\/users\/list\?/);
    await table.getByRole('button', { name: 'Refresh' }).click();
    await reloaded;
    await new Promise((r) => setTimeout(r, 120));
    expect(await table.getByRole('status').filter({ hasText: 'Refreshing' }).count()).toBe(1);
    await expect.poll(() => table.getByRole('button', { name: 'Refresh' }).isEnabled()).toBe(true);
    await page.unroute(/\/users\/list\?/);
    await table.getByPlaceholder('Search...').fill('ada');
    await expect.poll(() => table.getByRole('row', { name: 'Ada Admin' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Delete Ada Admin' }).count()).toBe(0);
    await table.getByPlaceholder('Search...').fill('nobody-at-all');
    await expect.poll(() => table.getByText(TEXT.noUsers).isVisible()).toBe(true);
    await table.getByPlaceholder('Search...').fill('doomed');
    await page.getByRole('button', { name: 'Delete Doomed User' }).click();
    await expect.poll(() => page.getByRole('dialog').getByText('Delete Doomed User?').isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => table.getByText(TEXT.noUsers).isVisible()).toBe(true);
    await screenshot(page, 'users');
    await context.close();
  });

  it('shows the roles fetch error on Add User and on the user screen', async () => {
    const u = await createUser(portal, 1, 'noroles@example.com', { firstName: 'Rolf', lastName: 'Less' });
    await createTeam(portal, 1, 'Roleless', [{ userId: u.id, roleId: 2 }]);
    const page = await adminPage();
    await page.route(/\/roles\/userRoles(\?|$)/, (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'Roles unavailable', data: null }),
      }),
    );
    await page.goto(`${portal.url}/createUser`);
    await expect.poll(() => page.getByText(`${ERRORS.fetchRoles}: Roles unavailable`).isVisible()).toBe(true);
    await screenshot(page, 'add-user-roles-error');
    await page.goto(`${portal.url}/user?id=${u.id}`);
    await expect.poll(() => page.getByText(`${ERRORS.fetchRoles}: Roles unavailable`).isVisible()).toBe(true);
    await page.unrouteAll();
  });
});
