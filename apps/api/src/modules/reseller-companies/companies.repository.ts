/**
 * SQL of the reseller area's companies. Every query takes the reseller id of the calling staff member and reads
 * customer companies only (the reseller's own 'staff' company is plumbing, never listed).
 */
import { and, asc, count, eq, ilike, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import {
  companies,
  configurations,
  regions,
  teamMembers,
  teams,
  users,
  virtualMachines,
  vmSizePeriods,
} from '../../db/schema.ts';
import { sizePeriodWindow } from '../../db/size-period-window.ts';
import { containsPattern, pageWindow } from '../../lib/paging.ts';

export interface CompanyListQuery {
  page: number;
  rowsPerPage: number;
  search: string;
}

/** The first instant of `now`'s calendar month, UTC. */
export function monthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function createCompaniesRepository(db: Db) {
  const ofReseller = (resellerId: number) => and(eq(companies.resellerId, resellerId), eq(companies.kind, 'customer'));

  /** Columns of a list row; the counts are small correlated subqueries on indexed company ids. */
  const rowColumns = (now: Date) => {
    // Qualified by hand: inside a subquery drizzle's bare column names would bind to the inner table.
    const companyId = sql.raw('"companies"."id"');
    const month = sizePeriodWindow(monthStartOf(now), now);
    return {
      id: companies.id,
      name: companies.name,
      suspendedAt: companies.suspendedAt,
      suspendedReason: companies.suspendedReason,
      createdAt: companies.createdAt,
      userCount: sql<number>`(select count(*)::int from ${users} u where u.company_id = ${companyId})`,
      vmCount: sql<number>`(select count(*)::int from ${virtualMachines} v where v.company_id = ${companyId} and v.deleted_at is null)`,
      // Billing's rule: each size period clamped to [start of month, now]; periods outside the month add nothing.
      vmHoursThisMonth: sql<number>`(select coalesce(sum(${month.seconds}), 0)::float8 / 3600 from ${vmSizePeriods} where ${and(eq(vmSizePeriods.companyId, companyId), month.overlaps)})`,
    };
  };

  return {
    async list(resellerId: number, q: CompanyListQuery, now: Date) {
      const where = and(
        ofReseller(resellerId),
        q.search ? ilike(companies.name, containsPattern(q.search)) : undefined,
      );
      const { limit, offset } = pageWindow(q.page, q.rowsPerPage);
      const rows = await db
        .select(rowColumns(now))
        .from(companies)
        .where(where)
        .orderBy(asc(companies.name), asc(companies.id))
        .limit(limit)
        .offset(offset);
      const [total] = await db.select({ n: count() }).from(companies).where(where);
      return { rows, total: total?.n ?? 0 };
    },

    /** One customer company of the reseller with its list columns, or undefined (another reseller's is not found). */
    async byId(resellerId: number, id: number, now: Date) {
      const [row] = await db
        .select(rowColumns(now))
        .from(companies)
        .where(and(ofReseller(resellerId), eq(companies.id, id)));
      return row;
    },

    async insert(tx: Tx, resellerId: number, name: string) {
      const [row] = await tx
        .insert(companies)
        .values({ resellerId, name, kind: 'customer' })
        .returning({ id: companies.id });
      return row!.id;
    },

    /**
     * Suspends (`at` given) or resumes (`at` null) only a company in the other state: one conditional UPDATE, so of
     * two concurrent calls one changes the row and the other finds nothing to change (false).
     */
    async setSuspension(tx: Tx | Db, resellerId: number, id: number, at: Date | null, reason: string | null) {
      const [row] = await tx
        .update(companies)
        .set({ suspendedAt: at, suspendedReason: reason, updatedAt: new Date() })
        .where(
          and(
            ofReseller(resellerId),
            eq(companies.id, id),
            at ? isNull(companies.suspendedAt) : isNotNull(companies.suspendedAt),
          ),
        )
        .returning({ id: companies.id });
      return row !== undefined;
    },

    async userIdsOf(companyId: number): Promise<number[]> {
      const rows = await db.select({ id: users.id }).from(users).where(eq(users.companyId, companyId));
      return rows.map((r) => r.id);
    },

    async setUserNames(tx: Tx, userId: number, firstName: string, lastName: string) {
      await tx.update(users).set({ firstName, lastName }).where(eq(users.id, userId));
    },

    /** The read-only support view; the caller has checked that the company is the reseller's. */
    async contents(companyId: number) {
      const people = await db
        .select({
          id: users.id,
          email: users.email,
          firstName: users.firstName,
          lastName: users.lastName,
          isCompanyAdmin: users.isCompanyAdmin,
          confirmedAt: users.emailConfirmedAt,
          createdAt: users.createdAt,
        })
        .from(users)
        .where(eq(users.companyId, companyId))
        .orderBy(asc(users.email));
      const teamRows = await db
        .select({
          id: teams.id,
          name: teams.name,
          userCount: sql<number>`(select count(*)::int from ${teamMembers} m where m.team_id = "teams"."id")`,
          vmCount: sql<number>`(select count(*)::int from ${virtualMachines} v where v.team_id = "teams"."id" and v.deleted_at is null)`,
        })
        .from(teams)
        .where(eq(teams.companyId, companyId))
        .orderBy(asc(teams.name));
      const vms = await db
        .select({
          id: virtualMachines.id,
          name: virtualMachines.name,
          status: virtualMachines.status,
          size: configurations.name,
          region: regions.name,
          team: teams.name,
          createdAt: virtualMachines.createdAt,
        })
        .from(virtualMachines)
        .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
        .innerJoin(regions, eq(regions.id, virtualMachines.regionId))
        .leftJoin(teams, eq(teams.id, virtualMachines.teamId))
        .where(and(eq(virtualMachines.companyId, companyId), isNull(virtualMachines.deletedAt)))
        .orderBy(asc(virtualMachines.name), asc(virtualMachines.id));
      return { users: people, teams: teamRows, vms };
    },
  };
}

export type CompaniesRepository = ReturnType<typeof createCompaniesRepository>;
