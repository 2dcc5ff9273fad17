/**
 * The authorisation matrix: every call of the teams/users/roles/permissions area, signed in as each
 * role, as a non-member and as another company's administrator. Denied = 403 or 404 with nothing
 * changed in the tables the call could touch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { auditLog, teamMembers, teams, users } from '../../db/schema.ts';
import { A, ACTORS, all, runMatrix, type Actor, type Cell } from '../../../test/authorization-matrix.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
const clients = {} as Record<Actor, TestClient>;
const ids = {} as Record<Actor, number> & { team: number; subject: number };
let seq = 0;

async function snapshot(): Promise<string> {
  const [u, tm, tt, a] = await Promise.all([
    t.db.select({ id: users.id, f: users.firstName, l: users.lastName }).from(users),
    t.db.select().from(teamMembers),
    t.db.select({ id: teams.id, name: teams.name, vms: teams.maxVms, disk: teams.maxDiskGb }).from(teams),
    t.db.select({ id: auditLog.id }).from(auditLog),
  ]);
  const key = (x: object) => JSON.stringify(x);
  return JSON.stringify([
    u.map(key).sort(),
    tm.map((m) => `${m.teamId}:${m.userId}:${m.roleId}`).sort(),
    tt.map(key).sort(),
    a.length,
  ]);
}

beforeAll(async () => {
  t = await createTestApp();
  const mk = (email: string, extra = {}) => createUser(t, 1, email, extra);
  const teamAdmin = await mk('m-teamadmin@example.com');
  const operator = await mk('m-operator@example.com');
  const viewer = await mk('m-viewer@example.com');
  const nonMember = await mk('m-nonmember@example.com');
  const subject = await mk('m-subject@example.com');
  const team = await createTeam(t, 1, 'Matrix team', [
    { userId: teamAdmin.id, roleId: 1 },
    { userId: operator.id, roleId: 2 },
    { userId: viewer.id, roleId: 3 },
  ]);
  const other = await createOtherCompany(t);
  Object.assign(ids, {
    companyAdmin: 1,
    teamAdmin: teamAdmin.id,
    operator: operator.id,
    viewer: viewer.id,
    nonMember: nonMember.id,
    otherCompany: other.admin.id,
    team: team.id,
    subject: subject.id,
  });
  clients.companyAdmin = await signIn(t);
  for (const [actor, email] of [
    ['teamAdmin', teamAdmin.email],
    ['operator', operator.email],
    ['viewer', viewer.email],
    ['nonMember', nonMember.email],
    ['otherCompany', other.admin.email],
  ] as const) {
    clients[actor] = await signIn(t, email, PASSWORD);
  }
});
afterAll(async () => {
  await t.close();
});

const teamManage = {
  companyAdmin: A,
  teamAdmin: A,
  operator: 403,
  viewer: 403,
  nonMember: 404,
  otherCompany: 404,
} as const;
const teamView = { companyAdmin: A, teamAdmin: A, operator: A, viewer: A, nonMember: 404, otherCompany: 404 } as const;
const companyAdminOnly = {
  companyAdmin: A,
  teamAdmin: 403,
  operator: 403,
  viewer: 403,
  nonMember: 403,
  otherCompany: 404,
} as const;
const sameCompany = { ...all(A), otherCompany: 404 } as const;

const cells: Cell[] = [
  { call: 'GET /roles/userRoles', expect: all(A), run: (c) => c.call(routes.roles.userRoles) },
  {
    call: 'POST /roles/updateUserRoleForTeam',
    expect: teamManage,
    run: async (c) => {
      const [m] = (await t.db.select().from(teamMembers)).filter(
        (x) => x.teamId === ids.team && x.userId === ids.viewer,
      );
      return c.call(routes.roles.updateUserRoleForTeam, {
        body: { teamId: ids.team, userId: ids.viewer, roleId: m!.roleId === 3 ? 2 : 3 },
      });
    },
  },
  {
    call: 'POST /users/create',
    expect: { companyAdmin: A, teamAdmin: A, operator: 403, viewer: 403, nonMember: 404, otherCompany: 404 },
    run: (c) =>
      c.call(routes.users.create, { body: { email: `invitee${++seq}@example.com`, roleId: 3, teamIds: [ids.team] } }),
  },
  {
    call: 'POST /users/edit',
    expect: companyAdminOnly,
    run: (c) =>
      c.call(routes.users.edit, {
        body: { id: ids.subject, firstName: `Name${++seq}`.replace(/\d/g, 'x'), lastName: 'Changed' },
      }),
  },
  {
    call: 'GET /users/list',
    expect: all(A),
    run: (c) => c.call(routes.users.list, { query: { rowsPerPage: 100 } }),
    check: (res, actor) => {
      const emails = (res.data as { data: { email: string }[] }).data.map((u) => u.email);
      expect(emails.includes('m-subject@example.com')).toBe(actor !== 'otherCompany');
    },
  },
  {
    call: 'GET /users/details/:id',
    expect: sameCompany,
    run: (c) => c.call(routes.users.details, { params: { id: ids.subject } }),
  },
  {
    call: 'GET /users/teams/:userId',
    expect: sameCompany,
    run: (c) => c.call(routes.users.teams, { params: { userId: ids.viewer }, query: {} }),
  },
  {
    call: 'DELETE /users/delete/:id',
    expect: companyAdminOnly,
    prepare: async () => (await createUser(t, 1, `doomed${++seq}@example.com`)).id,
    run: (c, id) => c.call(routes.users.delete, { params: { id } }),
  },
  {
    call: 'GET /teams/list',
    expect: all(A),
    run: (c) => c.call(routes.teams.list, { query: {} }),
    check: (res, actor) => {
      const names = (res.data as { data: { name: string }[] }).data.map((x) => x.name);
      expect(names.includes('Matrix team')).toBe(!['nonMember', 'otherCompany'].includes(actor));
    },
  },
  {
    call: 'GET /teams/:id',
    expect: teamView,
    run: (c) => c.call(routes.teams.details, { params: { id: ids.team }, query: {} }),
  },
  {
    call: 'POST /teams/create',
    expect: all(A),
    run: (c) => c.call(routes.teams.create, { body: { name: `Created ${++seq}` } }),
  },
  {
    call: 'POST /teams/update',
    expect: teamManage,
    run: (c) => c.call(routes.teams.update, { body: { teamId: ids.team, name: `Matrix team ${++seq}` } }),
  },
  {
    call: 'POST /teams/addUser',
    expect: teamManage,
    prepare: async () => (await createUser(t, 1, `addable${++seq}@example.com`)).id,
    run: (c, userId) => c.call(routes.teams.addUser, { body: { teamId: ids.team, userId, roleId: 3 } }),
  },
  {
    call: 'DELETE /teams/removeUser',
    expect: teamManage,
    prepare: async () => {
      const u = await createUser(t, 1, `removable${++seq}@example.com`);
      await t.db.insert(teamMembers).values({ teamId: ids.team, userId: u.id, roleId: 3 });
      return u.id;
    },
    run: (c, userId) => c.call(routes.teams.removeUser, { body: { teamId: ids.team, userId } }),
  },
  {
    call: 'DELETE /teams/delete',
    expect: { ...teamManage },
    prepare: async () =>
      (
        await createTeam(t, 1, `Doomed team ${++seq}`, [
          { userId: ids.teamAdmin, roleId: 1 },
          { userId: ids.operator, roleId: 2 },
          { userId: ids.viewer, roleId: 3 },
        ])
      ).id,
    run: (c, teamId) => c.call(routes.teams.delete, { body: { teamId } }),
  },
  {
    call: 'GET /quotas',
    // Another company's administrator sees their own company's.
    expect: { ...companyAdminOnly, otherCompany: A },
    run: (c) => c.call(routes.quotas.view),
  },
  {
    call: 'POST /quotas/team',
    expect: companyAdminOnly,
    run: (c) =>
      c.call(routes.quotas.setTeam, {
        body: { teamId: ids.team, limits: { vms: ++seq, vcpus: null, ramGb: null, diskGb: 10 } },
      }),
  },
  {
    call: 'GET /permissions/list/:id',
    expect: teamView,
    run: (c) => c.call(routes.permissions.list, { params: { id: ids.team } }),
  },
  {
    call: 'POST /permissions/assign',
    expect: teamManage,
    run: async (c) => {
      const [m] = (await t.db.select().from(teamMembers)).filter(
        (x) => x.teamId === ids.team && x.userId === ids.operator,
      );
      return c.call(routes.permissions.assign, {
        body: { teamId: ids.team, assignments: [{ userId: ids.operator, roleId: m!.roleId === 2 ? 3 : 2 }] },
      });
    },
  },
];

describe('authorisation matrix: teams, users, roles, permissions', () => {
  it(`checks ${cells.length} calls × ${ACTORS.length} callers`, async () => {
    const { checked, failures } = await runMatrix({ cells, clients, snapshot });
    console.log(`authorisation matrix: ${checked} cells checked (${cells.length} calls × ${ACTORS.length} callers)`);
    expect(failures).toEqual([]);
    expect(checked).toBe(cells.length * ACTORS.length);
  });
});
