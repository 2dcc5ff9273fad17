/** SQL for users of a company and their memberships. */
import { and, asc, count, eq, ilike, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { teamMembers, teams, users } from '../../db/schema.ts';
import { containsPattern, pageWindow } from '../../lib/paging.ts';

const fullName = sql<string>`trim(${users.firstName} || ' ' || ${users.lastName})`;

export const userColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  email: users.email,
  isCompanyAdmin: users.isCompanyAdmin,
  emailConfirmedAt: users.emailConfirmedAt,
  createdAt: users.createdAt,
};

export function createUsersRepository(db: Db) {
  return {
    async list(f: { companyId: number; search: string; excludeTeamId?: number; page: number; rowsPerPage: number }) {
      const where = and(
        eq(users.companyId, f.companyId),
        f.search
          ? or(ilike(fullName, containsPattern(f.search)), ilike(users.email, containsPattern(f.search)))
          : undefined,
        f.excludeTeamId
          ? sql`not exists (select 1 from team_members m where m.team_id = ${f.excludeTeamId} and m.user_id = "users"."id")`
          : undefined,
      );
      const { limit, offset } = pageWindow(f.page, f.rowsPerPage);
      const [rows, [total]] = await Promise.all([
        db
          .select(userColumns)
          .from(users)
          .where(where)
          .orderBy(asc(sql`lower(${fullName})`), asc(users.email), asc(users.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(users).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    async byId(companyId: number, id: number) {
      const [row] = await db
        .select(userColumns)
        .from(users)
        .where(and(eq(users.id, id), eq(users.companyId, companyId)))
        .limit(1);
      return row;
    },

    async emailExists(email: string): Promise<boolean> {
      const [row] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase())).limit(1);
      return !!row;
    },

    /** The company of the account with this email, or null when there is none. */
    async companyOfEmail(email: string): Promise<number | null> {
      const [row] = await db
        .select({ companyId: users.companyId })
        .from(users)
        .where(eq(users.email, email.toLowerCase()))
        .limit(1);
      return row?.companyId ?? null;
    },

    /** Takes the next user id from the sequence without making a user (an answer that must look like one). */
    async drawUserId(): Promise<number> {
      const res = await db.execute<{ id: number }>(
        sql`select nextval(pg_get_serial_sequence('users', 'id'))::int as id`,
      );
      return res.rows[0]!.id;
    },

    async memberships(f: {
      userId: number;
      visibleToUserId: number | null;
      search: string;
      page: number;
      rowsPerPage: number;
    }) {
      const where = and(
        eq(teamMembers.userId, f.userId),
        f.search ? ilike(teams.name, containsPattern(f.search)) : undefined,
        f.visibleToUserId !== null
          ? sql`exists (select 1 from team_members v where v.team_id = "teams"."id" and v.user_id = ${f.visibleToUserId})`
          : undefined,
      );
      const { limit, offset } = pageWindow(f.page, f.rowsPerPage);
      const [rows, [total]] = await Promise.all([
        db
          .select({ id: teams.id, name: teams.name, roleId: teamMembers.roleId })
          .from(teamMembers)
          .innerJoin(teams, eq(teams.id, teamMembers.teamId))
          .where(where)
          .orderBy(asc(sql`lower(${teams.name})`), asc(teams.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(teamMembers).innerJoin(teams, eq(teams.id, teamMembers.teamId)).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    async insert(tx: Tx, values: { companyId: number; email: string }) {
      const [row] = await tx
        .insert(users)
        .values({ ...values, email: values.email.toLowerCase() })
        .returning(userColumns);
      return row!;
    },

    async rename(tx: Tx, id: number, firstName: string, lastName: string) {
      const [row] = await tx
        .update(users)
        .set({ firstName, lastName, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning(userColumns);
      return row!;
    },

    /** Deletes the user; sessions, codes, emailed keys and memberships go with it (cascades). */
    async delete(tx: Tx, id: number) {
      await tx.delete(users).where(eq(users.id, id));
    },
  };
}
export type UsersRepository = ReturnType<typeof createUsersRepository>;
