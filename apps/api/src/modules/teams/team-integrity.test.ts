/**
 * Team rules that must hold when requests race (issue 9, items 2 and 3): every team keeps an Admin, and a
 * company's team names are unique whatever the letter case. Runs on PGlite and on PostgreSQL.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { routes } from '@portal/contract/routes';
import { teamMembers, teams } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
let alice: TestClient;
let bob: TestClient;
let aliceId: number;
let bobId: number;

beforeAll(async () => {
  t = await createTestApp();
  aliceId = (await createUser(t, 1, 'alice@example.com')).id;
  bobId = (await createUser(t, 1, 'bob@example.com')).id;
  alice = await signIn(t, 'alice@example.com', PASSWORD);
  bob = await signIn(t, 'bob@example.com', PASSWORD);
});
afterAll(async () => t.close());

const adminsOf = async (teamId: number) =>
  (
    await t.db
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.roleId, ADMIN_ROLE_ID)))
  ).length;

describe('the last Admin of a team', () => {
  it('survives two Admins removing each other at the same moment', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await createTeam(t, 1, `Mutual ${i}`, [
            { userId: aliceId, roleId: ADMIN_ROLE_ID },
            { userId: bobId, roleId: ADMIN_ROLE_ID },
          ])
        ).id,
      );
    const results = await Promise.all(
      ids.flatMap((teamId) => [
        alice.call(routes.teams.removeUser, { body: { teamId, userId: bobId } }),
        bob.call(routes.teams.removeUser, { body: { teamId, userId: aliceId } }),
      ]),
    );
    for (const teamId of ids) expect(await adminsOf(teamId), `team ${teamId}`).toBe(1);
    // One of each pair wins; the other is told why, or finds itself no longer a member (403/404).
    expect(results.filter((r) => r.status === 200)).toHaveLength(ids.length);
    for (const r of results.filter((x) => x.status === 409))
      expect(r.message).toBe('A team needs at least one Admin: make another member Admin first, or delete the team');
  });

  it('survives both Admins leaving at the same moment', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await createTeam(t, 1, `Leaving ${i}`, [
            { userId: aliceId, roleId: ADMIN_ROLE_ID },
            { userId: bobId, roleId: ADMIN_ROLE_ID },
          ])
        ).id,
      );
    const results = await Promise.all(
      ids.flatMap((teamId) => [
        alice.call(routes.teams.removeUser, { body: { teamId, userId: aliceId } }),
        bob.call(routes.teams.removeUser, { body: { teamId, userId: bobId } }),
      ]),
    );
    for (const teamId of ids) expect(await adminsOf(teamId), `team ${teamId}`).toBe(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(ids.length);
    expect(results.filter((r) => r.status === 409)).toHaveLength(ids.length);
  });
});

describe('team names', () => {
  it('ten parallel creates of one name (any case) make one team; the others get a 409 that says why', async () => {
    const names = ['Racers', 'racers', 'RACERS', 'Racers', 'rAcErS', 'Racers', 'racers', 'Racers', 'RaCeRs', 'racers'];
    const results = await Promise.all(
      names.map((name, i) => (i % 2 ? alice : bob).call(routes.teams.create, { body: { name, parentTeamId: null } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.status)).toEqual(Array(9).fill(409));
    for (const r of refused) expect(r.message).toBe('A team with this name already exists');
    const [{ n } = { n: 0 }] = await t.db
      .select({ n: sql<number>`count(*)::int` })
      .from(teams)
      .where(and(eq(teams.companyId, 1), sql`lower(${teams.name}) = 'racers'`));
    expect(n).toBe(1);
  });

  it('parallel renames to one name leave one team with it', async () => {
    const a = await createTeam(t, 1, 'Rename A', [{ userId: aliceId, roleId: ADMIN_ROLE_ID }]);
    const b = await createTeam(t, 1, 'Rename B', [{ userId: bobId, roleId: ADMIN_ROLE_ID }]);
    const results = await Promise.all([
      alice.call(routes.teams.update, { body: { teamId: a.id, name: 'Renamed' } }),
      bob.call(routes.teams.update, { body: { teamId: b.id, name: 'RENAMED' } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 409)!.message).toBe('A team with this name already exists');
  });

  it('the database itself refuses a second team of the same name in one company, not in another', async () => {
    await createTeam(t, 1, 'Direct');
    await expect(t.db.insert(teams).values({ companyId: 1, name: 'DIRECT' })).rejects.toThrow();
  });
});
