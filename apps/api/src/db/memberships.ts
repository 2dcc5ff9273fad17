/**
 * Team memberships as both the teams and the users modules need them (users invites into teams and removes a user
 * from theirs; teams adds existing users): shared SQL lives in db/ because modules do not import each other.
 * Every query takes the company or team it is about.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from './client.ts';
import { teamMembers, teams, users } from './schema.ts';

export function createMemberships(db: Db) {
  return {
    /** Whether the user belongs to the company (teams adds only its own company's users). */
    async userInCompany(companyId: number, userId: number): Promise<boolean> {
      const [row] = await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.companyId, companyId)))
        .limit(1);
      return !!row;
    },

    /** Names of the teams where `userId` is the only Admin. */
    async teamsWithSoleAdmin(userId: number, adminRoleId: number, q: Tx | Db = db): Promise<string[]> {
      const rows = await q
        .select({ name: teams.name })
        .from(teamMembers)
        .innerJoin(teams, eq(teams.id, teamMembers.teamId))
        .where(
          and(
            eq(teamMembers.userId, userId),
            eq(teamMembers.roleId, adminRoleId),
            sql`not exists (select 1 from team_members o where o.team_id = ${teamMembers.teamId} and o.role_id = ${adminRoleId} and o.user_id <> ${userId})`,
          ),
        )
        .orderBy(asc(teams.name));
      return rows.map((r) => r.name);
    },

    /**
     * Locks team rows (in id order, so two callers cannot deadlock) for a change to their memberships:
     * the last-Admin check and the removal then see the same members, whatever else runs at once.
     */
    async lockTeams(tx: Tx, teamIds: number[]) {
      if (teamIds.length === 0) return;
      await tx
        .select({ id: teams.id })
        .from(teams)
        .where(inArray(teams.id, teamIds))
        .orderBy(asc(teams.id))
        .for('update');
    },

    /** The teams a user belongs to (to lock them before the user goes). */
    async teamIdsOf(userId: number, q: Tx | Db = db): Promise<number[]> {
      const rows = await q.select({ id: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, userId));
      return rows.map((r) => r.id);
    },

    async companyTeamIds(companyId: number, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .select({ id: teams.id })
        .from(teams)
        .where(and(eq(teams.companyId, companyId), inArray(teams.id, ids)));
      return rows.map((r) => r.id);
    },

    async addMember(tx: Tx, teamId: number, userId: number, roleId: number) {
      await tx.insert(teamMembers).values({ teamId, userId, roleId });
    },
  };
}
export type Memberships = ReturnType<typeof createMemberships>;
