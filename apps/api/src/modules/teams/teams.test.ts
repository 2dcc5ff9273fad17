/** Teams, users, roles and permissions through the real server. */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import {
  auditLog,
  configurations,
  countries,
  oneTimeTokens,
  providers,
  regions,
  sessions,
  teamMembers,
  teams,
  users,
  virtualMachines,
} from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { linkFrom } from '../../../test/smtp-catcher.ts';

let t: TestApp;
let admin: TestClient;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
});
afterAll(async () => {
  await t.close();
});

const auditFor = async (action: string) => t.db.select().from(auditLog).where(eq(auditLog.action, action));

describe('roles', () => {
  it('lists Admin as role 1 and the other roles with their info', async () => {
    const res = await admin.call(routes.roles.userRoles);
    expect(res.status).toBe(200);
    expect(res.data[0]).toMatchObject({ id: 1, name: 'Admin' });
    expect(res.data.map((r) => r.name)).toEqual(['Admin', 'Operator', 'Viewer']);
    expect(res.data.every((r) => r.info.length > 20)).toBe(true);
  });
});

describe('teams', () => {
  it('creates a team with its creator as Admin, lists it with counts, renames and deletes it', async () => {
    const created = await admin.call(routes.teams.create, { body: { name: 'Platform', parentTeamId: null } });
    expect(created.status).toBe(200);
    const teamId = created.data.teamId;
    const dup = await admin.call(routes.teams.create, { body: { name: 'platform' } });
    expect(dup.status).toBe(409);
    expect(dup.message).toBe('A team with this name already exists');

    const list = await admin.call(routes.teams.list, { query: { page: 1, rowsPerPage: 10, search: 'plat' } });
    expect(list.data.data).toEqual([
      expect.objectContaining({ id: teamId, name: 'Platform', userCount: 1, vmCount: 0 }),
    ]);
    expect(list.data.totalPages).toBe(1);

    const details = await admin.call(routes.teams.details, {
      params: { id: teamId },
      query: { page: 1, rowsPerPage: 5 },
    });
    expect(details.data).toMatchObject({ teamName: 'Platform', totalPages: 1, myRoleId: 1 });
    // Issue #12: read answers tell the portal what the caller may do (a company administrator: everything).
    expect(details.data.permissions).toEqual(expect.arrayContaining(['team.manage', 'team.delete', 'vm.operate']));
    expect(list.data.data[0]!.permissions).toContain('team.delete');
    expect(details.data.members).toEqual([
      expect.objectContaining({ email: ADMIN.email, roleId: 1, name: 'Ada Admin' }),
    ]);

    const empty = await admin.call(routes.teams.update, { body: { teamId, name: '   ' } });
    expect(empty.status).toBe(400);
    expect(empty.message).toContain('Team name cannot be empty');
    expect((await admin.call(routes.teams.update, { body: { teamId, name: 'Platform Ops' } })).status).toBe(200);
    expect((await auditFor('team.rename')).at(-1)).toMatchObject({
      before: { name: 'Platform' },
      after: { name: 'Platform Ops' },
    });

    const del = await admin.call(routes.teams.delete, { body: { teamId } });
    expect(del.status).toBe(200);
    expect((await admin.call(routes.teams.details, { params: { id: teamId } })).status).toBe(404);
    expect(await t.db.select().from(teamMembers).where(eq(teamMembers.teamId, teamId))).toEqual([]);
    expect((await auditFor('team.delete')).length).toBe(1);
  });

  it('refuses to delete a team that still owns virtual machines', async () => {
    const team = await createTeam(t, 1, 'Has VMs');
    const [country] = await t.db.insert(countries).values({ name: 'Testland' }).returning();
    const [region] = await t.db.insert(regions).values({ countryId: country!.id, name: 'R1' }).returning();
    const [config] = await t.db
      .insert(configurations)
      .values({ key: 'test-size', name: 'T', cpu: 2, ram: 4, disk: 80 })
      .returning();
    const [provider] = await t.db.insert(providers).values({ name: 'P', driver: 'simulator' }).returning();
    await t.db.insert(virtualMachines).values({
      companyId: 1,
      teamId: team.id,
      name: 'vm',
      status: 'Running',
      configurationId: config!.id,
      regionId: region!.id,
      image: 'debian',
      providerId: provider!.id,
    });
    const listed = await admin.call(routes.teams.list, { query: { search: 'Has VMs' } });
    expect(listed.data.data[0]).toMatchObject({ name: 'Has VMs', vmCount: 1 });
    const res = await admin.call(routes.teams.delete, { body: { teamId: team.id } });
    expect(res.status).toBe(409);
    expect(res.message).toBe('This team still has 1 virtual machine. Delete them first.');
    expect(await t.db.select().from(teams).where(eq(teams.id, team.id))).toHaveLength(1);
  });

  it('adds, re-roles and removes members with the Admin rules', async () => {
    const team = await createTeam(t, 1, 'Members');
    const u = await createUser(t, 1, 'member-a@example.com');
    expect(
      (await admin.call(routes.teams.addUser, { body: { teamId: team.id, userId: u.id, roleId: 3 } })).status,
    ).toBe(200);
    expect(
      (await admin.call(routes.teams.addUser, { body: { teamId: team.id, userId: u.id, roleId: 3 } })).status,
    ).toBe(409);
    expect(
      (await admin.call(routes.teams.addUser, { body: { teamId: team.id, userId: 99999, roleId: 3 } })).status,
    ).toBe(404);
    expect(
      (await admin.call(routes.teams.addUser, { body: { teamId: team.id, userId: u.id, roleId: 42 } })).status,
    ).toBe(404);

    expect(
      (await admin.call(routes.roles.updateUserRoleForTeam, { body: { teamId: team.id, userId: u.id, roleId: 2 } }))
        .status,
    ).toBe(200);
    const toAdmin = await admin.call(routes.roles.updateUserRoleForTeam, {
      body: { teamId: team.id, userId: u.id, roleId: 1 },
    });
    expect(toAdmin.status).toBe(400);

    // An Admin member's role is fixed text: the dropdown's call cannot change it.
    const boss = await createUser(t, 1, 'member-boss@example.com');
    await admin.call(routes.teams.addUser, { body: { teamId: team.id, userId: boss.id, roleId: 1 } });
    const change = await admin.call(routes.roles.updateUserRoleForTeam, {
      body: { teamId: team.id, userId: boss.id, roleId: 2 },
    });
    expect(change.status).toBe(403);
    expect(change.message).toBe('The Admin role cannot be changed');
    // …and the last Admin cannot be removed.
    const last = await admin.call(routes.teams.removeUser, { body: { teamId: team.id, userId: boss.id } });
    expect(last.status).toBe(409);

    const memberships = await admin.call(routes.users.teams, {
      params: { userId: u.id },
      query: { page: 1, rowsPerPage: 6, search: 'mem' },
    });
    expect(memberships.data).toEqual({ data: [{ id: team.id, name: 'Members', roleId: 2 }], totalPages: 1 });

    expect((await admin.call(routes.teams.removeUser, { body: { teamId: team.id, userId: u.id } })).status).toBe(200);
    expect((await admin.call(routes.teams.removeUser, { body: { teamId: team.id, userId: u.id } })).status).toBe(404);
    const actions = (
      await t.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.targetId, String(team.id)))
    ).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(['team.member.add', 'team.member.role', 'team.member.remove']));
  });

  it('pages and searches members, and assigns several roles at once', async () => {
    const team = await createTeam(t, 1, 'Big team');
    const people = [];
    for (let i = 0; i < 7; i++) people.push(await createUser(t, 1, `big${i}@example.com`, { firstName: `Person${i}` }));
    for (const p of people) await t.db.insert(teamMembers).values({ teamId: team.id, userId: p.id, roleId: 3 });
    const page2 = await admin.call(routes.teams.details, {
      params: { id: team.id },
      query: { page: 2, rowsPerPage: 5 },
    });
    expect(page2.data.totalPages).toBe(2);
    expect(page2.data.members).toHaveLength(2);
    const search = await admin.call(routes.teams.details, {
      params: { id: team.id },
      query: { page: 1, rowsPerPage: 5, search: 'person3' },
    });
    expect(search.data.members.map((m) => m.email)).toEqual(['big3@example.com']);

    const perms = await admin.call(routes.permissions.list, { params: { id: team.id } });
    expect(perms.data.members).toHaveLength(7);
    expect(perms.data.roles.find((r) => r.id === 3)?.permissions).toEqual(['team.view', 'vm.view']);
    const assign = await admin.call(routes.permissions.assign, {
      body: {
        teamId: team.id,
        assignments: [
          { userId: people[0]!.id, roleId: 2 },
          { userId: people[1]!.id, roleId: 2 },
        ],
      },
    });
    expect(assign.status).toBe(200);
    const rows = await t.db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.roleId, 2)));
    expect(rows.map((r) => r.userId).sort()).toEqual([people[0]!.id, people[1]!.id].sort());
    // All or nothing: one bad row changes nobody.
    const bad = await admin.call(routes.permissions.assign, {
      body: {
        teamId: team.id,
        assignments: [
          { userId: people[2]!.id, roleId: 2 },
          { userId: 99999, roleId: 2 },
        ],
      },
    });
    expect(bad.status).toBe(404);
    expect(
      (
        await t.db
          .select()
          .from(teamMembers)
          .where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, people[2]!.id)))
      )[0]!.roleId,
    ).toBe(3);
  });

  it('rejects bad input with 400', async () => {
    for (const [route, input] of [
      [routes.teams.create, { body: { name: '' } }],
      [routes.teams.create, { body: { name: 'x', extra: 1 } }],
      [routes.teams.update, { body: { teamId: 'abc', name: 'x' } }],
      [routes.teams.addUser, { body: { teamId: 1, userId: 1 } }],
      [routes.teams.removeUser, { body: {} }],
      [routes.teams.delete, { body: { teamId: -1 } }],
      [routes.permissions.assign, { body: { teamId: 1, assignments: [] } }],
      [routes.roles.updateUserRoleForTeam, { body: { teamId: 1, userId: 1, roleId: 'admin' } }],
    ] as const) {
      const res = await admin.call(route, input);
      expect(res.status, `${route.path} ${JSON.stringify(input)}`).toBe(400);
      expect(res.message.length).toBeGreaterThan(3);
    }
    expect((await admin.call(routes.teams.list, { query: { page: 0 } })).status).toBe(400);
    expect((await admin.call(routes.teams.list, { query: { rowsPerPage: 1000 } })).status).toBe(400);
  });
});

describe('users', () => {
  it('invites a user into teams, mails the link, and the invitee confirms and signs in', async () => {
    const team = await createTeam(t, 1, 'Invite team', []);
    const res = await admin.call(routes.users.create, {
      body: { email: 'New.Person@Example.com', roleId: 2, teamIds: [team.id] },
    });
    expect(res.status).toBe(200);
    expect(res.message).toBe('Completed creating user: new.person@example.com');
    const again = await admin.call(routes.users.create, {
      body: { email: 'new.person@example.com', roleId: 2, teamIds: [] },
    });
    expect(again.status).toBe(409);
    expect(again.message).toBe('A user with this email already exists');

    const mail = await t.smtp.waitFor('new.person@example.com', (m) => /invited/i.test(m.subject));
    expect(mail.from).toContain('no-reply@northwind.example');
    expect(mail.text).toContain('Ada Admin invited you to Demo Company');
    const link = linkFrom(mail);
    expect(link.pathname).toBe('/confirmNewUser');
    const id = Number(link.searchParams.get('id'));
    expect(id).toBe(res.data.id);
    const ok = await t.client().call(routes.password.confirmEmail, {
      params: { token: id },
      body: {
        resetKey: link.searchParams.get('token')!,
        password: 'Newcomer-Pass-1!',
        firstName: 'New',
        lastName: 'Person',
      },
    });
    expect(ok.status).toBe(200);
    const newcomer = await signIn(t, 'new.person@example.com', 'Newcomer-Pass-1!');
    const teamsOfNewcomer = await newcomer.call(routes.teams.list, { query: {} });
    expect(teamsOfNewcomer.data.data.map((x) => x.id)).toEqual([team.id]);
    const membership = await t.db.select().from(teamMembers).where(eq(teamMembers.userId, id));
    expect(membership).toEqual([expect.objectContaining({ teamId: team.id, roleId: 2 })]);
  });

  it("lists, searches, excludes a team's members, and edits names with their rules", async () => {
    const team = await createTeam(t, 1, 'Exclusion');
    const inTeam = await createUser(t, 1, 'zed-in@example.com', { firstName: 'Zed', lastName: 'Inside' });
    await createUser(t, 1, 'zed-out@example.com', { firstName: 'Zed', lastName: 'Outside' });
    await t.db.insert(teamMembers).values({ teamId: team.id, userId: inTeam.id, roleId: 3 });
    const all = await admin.call(routes.users.list, { query: { search: 'zed' } });
    expect(all.data.data.map((u) => u.email)).toEqual(['zed-in@example.com', 'zed-out@example.com']);
    const available = await admin.call(routes.users.list, { query: { search: 'zed', excludeTeamId: team.id } });
    expect(available.data.data.map((u) => u.email)).toEqual(['zed-out@example.com']);

    const special = await admin.call(routes.users.edit, {
      body: { id: inTeam.id, firstName: 'Z$d', lastName: 'Inside' },
    });
    expect(special.status).toBe(400);
    expect(special.message).toContain('First name cannot contain special characters');
    const edit = await admin.call(routes.users.edit, { body: { id: inTeam.id, firstName: 'Zoe', lastName: 'Inside' } });
    expect(edit.status).toBe(200);
    expect(edit.message).toBe('User updated successfully');
    expect(edit.data).toMatchObject({ firstName: 'Zoe', name: 'Zoe Inside' });
    expect((await admin.call(routes.users.details, { params: { id: inTeam.id } })).data.firstName).toBe('Zoe');
  });

  it('deletes a user with everything that hangs on them, never yourself', async () => {
    const me = await admin.call(routes.password.me);
    const self = await admin.call(routes.users.delete, { params: { id: me.data.id } });
    expect(self.status).toBe(400);
    expect(self.message).toBe('You cannot delete yourself');

    const victim = await createUser(t, 1, 'leaving@example.com');
    const team = await createTeam(t, 1, 'Leaving team', [{ userId: victim.id, roleId: 2 }]);
    const victimClient = await signIn(t, victim.email, PASSWORD);
    const res = await admin.call(routes.users.delete, { params: { id: victim.id } });
    expect(res.status).toBe(200);
    expect(await t.db.select().from(users).where(eq(users.id, victim.id))).toEqual([]);
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, victim.id))).toEqual([]);
    expect(await t.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, victim.id))).toEqual([]);
    expect(await t.db.select().from(teamMembers).where(eq(teamMembers.userId, victim.id))).toEqual([]);
    expect(await t.db.select().from(teams).where(eq(teams.id, team.id))).toHaveLength(1);
    expect((await victimClient.call(routes.password.me)).status).toBe(401);
    expect((await auditFor('user.delete')).at(-1)).toMatchObject({
      targetId: String(victim.id),
      before: expect.objectContaining({ email: 'leaving@example.com' }),
    });
    expect((await admin.call(routes.users.delete, { params: { id: victim.id } })).status).toBe(404);
  });

  it("refuses to delete a team's only Admin until someone else is Admin", async () => {
    const captain = await createUser(t, 1, 'captain@example.com');
    const mate = await createUser(t, 1, 'mate@example.com');
    const ship = await createTeam(t, 1, 'Ship', [
      { userId: captain.id, roleId: 1 },
      { userId: mate.id, roleId: 2 },
    ]);
    const refused = await admin.call(routes.users.delete, { params: { id: captain.id } });
    expect(refused.status).toBe(409);
    expect(refused.message).toBe(
      'This user is the only Admin of Ship. Make another member Admin first, or delete the team.',
    );
    expect(await t.db.select().from(users).where(eq(users.id, captain.id))).toHaveLength(1);
    await t.db
      .update(teamMembers)
      .set({ roleId: 1 })
      .where(and(eq(teamMembers.teamId, ship.id), eq(teamMembers.userId, mate.id)));
    expect((await admin.call(routes.users.delete, { params: { id: captain.id } })).status).toBe(200);
    expect(await t.db.select().from(teamMembers).where(eq(teamMembers.teamId, ship.id))).toEqual([
      expect.objectContaining({ userId: mate.id, roleId: 1 }),
    ]);
  });

  it('keeps self-registration closed', async () => {
    const res = await t.client().call(routes.users.register, {
      body: { email: 'self@example.com', password: 'Self-Register-1!', firstName: 'Self', lastName: 'Reg' },
    });
    expect(res.status).toBe(403);
    expect(res.message).toMatch(/invitation/);
  });

  it('never shows another company', async () => {
    const other = await createOtherCompany(t, 'boss@elsewhere.example');
    const client = await signIn(t, other.admin.email, PASSWORD);
    const list = await client.call(routes.users.list, { query: {} });
    expect(list.data.data.map((u) => u.email)).toEqual(['boss@elsewhere.example']);
    expect((await client.call(routes.teams.list, { query: {} })).data.data).toEqual([]);
    expect((await client.call(routes.users.details, { params: { id: 1 } })).status).toBe(404);
  });
});
