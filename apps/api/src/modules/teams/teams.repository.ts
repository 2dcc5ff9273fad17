/** SQL for teams and memberships. Every query takes the company id. */
import { and, asc, count, eq, ilike, isNull, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { teamMembers, teams, users, virtualMachines } from '../../db/schema.ts';
import { containsPattern, pageWindow } from '../../lib/paging.ts';
import { createMemberships } from '../../db/memberships.ts';

export interface TeamListFilter {
  companyId: number;
  /** Only teams this user belongs to (null: every team of the company). */
  memberUserId: number | null;
  search: string;
  excludeTeamId?: number;
  page: number;
  rowsPerPage: number;
}

const memberName = sql<string>`trim(${users.firstName} || ' ' || ${users.lastName})`;

export function createTeamsRepository(db: Db) {
  function teamFilter(f: Omit<TeamListFilter, 'page' | 'rowsPerPage'>) {
    return and(
      eq(teams.companyId, f.companyId),
      f.search ? ilike(teams.name, containsPattern(f.search)) : undefined,
      f.excludeTeamId ? sql`${teams.id} <> ${f.excludeTeamId}` : undefined,
      f.memberUserId !== null
        ? sql`exists (select 1 from team_members m where m.team_id = "teams"."id" and m.user_id = ${f.memberUserId})`
        : undefined,
    );
  }

  return {
    // Memberships other modules read too (users invites into teams, removes from them): db/memberships.ts.
    ...createMemberships(db),
    async list(f: TeamListFilter) {
      const where = teamFilter(f);
      const { limit, offset } = pageWindow(f.page, f.rowsPerPage);
      const [rows, [total]] = await Promise.all([
        db
          .select({
            id: teams.id,
            name: teams.name,
            parentTeamId: teams.parentTeamId,
            createdAt: teams.createdAt,
            userCount: sql<number>`(select count(*)::int from team_members m where m.team_id = "teams"."id")`,
            vmCount: sql<number>`(select count(*)::int from virtual_machines v where v.team_id = "teams"."id" and v.deleted_at is null)`,
            // The member's own role, read with the page (null when listing every team for a company admin).
            memberRoleId:
              f.memberUserId === null
                ? sql<number | null>`null::int`
                : sql<
                    number | null
                  >`(select m.role_id from team_members m where m.team_id = "teams"."id" and m.user_id = ${f.memberUserId})`,
          })
          .from(teams)
          .where(where)
          .orderBy(asc(sql`lower(${teams.name})`), asc(teams.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(teams).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    async byId(companyId: number, teamId: number) {
      const [row] = await db
        .select()
        .from(teams)
        .where(and(eq(teams.id, teamId), eq(teams.companyId, companyId)))
        .limit(1);
      return row;
    },

    async nameTaken(companyId: number, name: string, exceptId?: number): Promise<boolean> {
      const [row] = await db
        .select({ id: teams.id })
        .from(teams)
        .where(
          and(
            eq(teams.companyId, companyId),
            sql`lower(${teams.name}) = lower(${name})`,
            exceptId ? sql`${teams.id} <> ${exceptId}` : undefined,
          ),
        )
        .limit(1);
      return !!row;
    },

    async members(teamId: number, opts: { search: string; page?: number; rowsPerPage?: number }) {
      const where = and(
        eq(teamMembers.teamId, teamId),
        opts.search
          ? or(ilike(memberName, containsPattern(opts.search)), ilike(users.email, containsPattern(opts.search)))
          : undefined,
      );
      const base = db
        .select({ id: users.id, name: memberName, email: users.email, roleId: teamMembers.roleId })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(where)
        .orderBy(asc(sql`lower(${memberName})`), asc(users.email), asc(users.id))
        .$dynamic();
      const rows =
        opts.page && opts.rowsPerPage
          ? await base.limit(opts.rowsPerPage).offset((opts.page - 1) * opts.rowsPerPage)
          : await base;
      const [total] = await db
        .select({ n: count() })
        .from(teamMembers)
        .innerJoin(users, eq(users.id, teamMembers.userId))
        .where(where);
      return { rows: rows.map((r) => ({ ...r, name: r.name || r.email })), total: total?.n ?? 0 };
    },

    async membership(teamId: number, userId: number, q: Tx | Db = db) {
      const [row] = await q
        .select()
        .from(teamMembers)
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
        .limit(1);
      return row;
    },

    async adminCount(teamId: number, adminRoleId: number, q: Tx | Db = db): Promise<number> {
      const [row] = await q
        .select({ n: count() })
        .from(teamMembers)
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.roleId, adminRoleId)));
      return row?.n ?? 0;
    },

    async liveVmCount(teamId: number, tx: Tx | Db = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(virtualMachines)
        .where(and(eq(virtualMachines.teamId, teamId), isNull(virtualMachines.deletedAt)));
      return row?.n ?? 0;
    },

    /**
     * Locks the team row against concurrent VM creation (a new VM's foreign key waits on this lock, then
     * fails once the team is gone), so the live-VM check and the deletion see the same VMs.
     */
    async lockForDelete(tx: Tx, teamId: number) {
      await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).for('update');
    },

    async insert(tx: Tx, values: { companyId: number; name: string; parentTeamId: number | null }) {
      const [row] = await tx.insert(teams).values(values).returning();
      return row!;
    },

    async rename(tx: Tx, teamId: number, name: string) {
      await tx.update(teams).set({ name, updatedAt: new Date() }).where(eq(teams.id, teamId));
    },

    async setRole(tx: Tx, teamId: number, userId: number, roleId: number) {
      await tx
        .update(teamMembers)
        .set({ roleId })
        .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    },

    async removeMember(tx: Tx, teamId: number, userId: number) {
      await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)));
    },

    /** Deletes the team; memberships go with it (cascade), child teams lose their parent. Call with no live VMs. */
    async delete(tx: Tx, teamId: number) {
      await tx.update(teams).set({ parentTeamId: null }).where(eq(teams.parentTeamId, teamId));
      // Deleted VMs keep their rows for usage history; they no longer point at the team.
      await tx.update(virtualMachines).set({ teamId: null }).where(eq(virtualMachines.teamId, teamId));
      await tx.delete(teams).where(eq(teams.id, teamId));
    },
  };
}
export type TeamsRepository = ReturnType<typeof createTeamsRepository>;
