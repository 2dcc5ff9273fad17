/** SQL of the activity log: the audit_log rows of a scope (one company, or a reseller's companies), with names. */
import { aliasedTable, and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { auditLog, companies, teams, users, virtualMachines } from '../../db/schema.ts';
import { pageWindow } from '../../lib/paging.ts';

/** Whose log: one company (a company administrator), or every company of a reseller, staff company included. */
export type ActivityScope = { companyId: number } | { resellerId: number; companyId?: number | undefined };

export interface ActivityFilter {
  actorUserId?: number | undefined;
  action?: string | undefined;
  /** Inclusive lower and exclusive upper bound of created_at. */
  since?: Date | undefined;
  before?: Date | undefined;
}

const actor = aliasedTable(users, 'actor');
const targetUser = aliasedTable(users, 'target_user');
const targetCompany = aliasedTable(companies, 'target_company');

const nameOf = (t: typeof users) => sql<string>`trim(${t.firstName} || ' ' || ${t.lastName})`;

/** The audit row's target id as an integer when it is one of type `type` (so the join can use the primary key). */
const targetIdIf = (type: string) =>
  sql`(case when ${auditLog.targetType} = ${type} and ${auditLog.targetId} ~ '^[0-9]{1,9}$' then ${auditLog.targetId}::integer end)`;

/** The current name of the target, else the one the entry recorded (a deleted user, team or VM). */
const targetName = sql<string | null>`case ${auditLog.targetType}
  when 'user' then coalesce(nullif(${nameOf(targetUser)}, ''), ${targetUser.email}, ${auditLog.before}->>'email', ${auditLog.after}->>'email')
  when 'team' then coalesce(${teams.name}, ${auditLog.before}->>'name', ${auditLog.after}->>'name')
  when 'vm' then coalesce(${virtualMachines.name}, ${auditLog.before}->>'name', ${auditLog.after}->>'name')
  when 'company' then coalesce(${targetCompany.name}, ${auditLog.before}->>'name', ${auditLog.after}->>'name')
  else null end`;

/** An entry without a user came from the operator (their command line, imports) or the platform itself. */
const byOperator = sql<boolean>`(${auditLog.after}->>'by' like 'operator%' or ${auditLog.action} like 'import.%')`;

export function createActivityRepository(db: Db) {
  function scopeWhere(scope: ActivityScope): SQL {
    if ('resellerId' in scope) {
      const ofReseller = inArray(
        auditLog.companyId,
        db.select({ id: companies.id }).from(companies).where(eq(companies.resellerId, scope.resellerId)),
      );
      return scope.companyId ? and(ofReseller, eq(auditLog.companyId, scope.companyId))! : ofReseller;
    }
    return eq(auditLog.companyId, scope.companyId);
  }

  function where(scope: ActivityScope, f: ActivityFilter): SQL {
    return and(
      scopeWhere(scope),
      f.actorUserId ? eq(auditLog.actorUserId, f.actorUserId) : undefined,
      f.action ? eq(auditLog.action, f.action) : undefined,
      f.since ? gte(auditLog.createdAt, f.since) : undefined,
      f.before ? lt(auditLog.createdAt, f.before) : undefined,
    )!;
  }

  return {
    async page(scope: ActivityScope, f: ActivityFilter, page: number, rowsPerPage: number) {
      const w = where(scope, f);
      const { limit, offset } = pageWindow(page, rowsPerPage);
      const [rows, [total]] = await Promise.all([
        db
          .select({
            id: auditLog.id,
            at: auditLog.createdAt,
            actorUserId: auditLog.actorUserId,
            actorName: nameOf(actor),
            actorEmail: actor.email,
            byOperator,
            tokenId: auditLog.actorTokenId,
            tokenName: auditLog.actorTokenName,
            action: auditLog.action,
            targetType: auditLog.targetType,
            targetId: auditLog.targetId,
            targetName,
            companyId: companies.id,
            companyName: companies.name,
          })
          .from(auditLog)
          .leftJoin(actor, eq(actor.id, auditLog.actorUserId))
          .leftJoin(companies, eq(companies.id, auditLog.companyId))
          .leftJoin(targetUser, sql`${targetUser.id} = ${targetIdIf('user')}`)
          .leftJoin(teams, sql`${teams.id} = ${targetIdIf('team')}`)
          .leftJoin(virtualMachines, sql`${virtualMachines.id} = ${targetIdIf('vm')}`)
          .leftJoin(targetCompany, sql`${targetCompany.id} = ${targetIdIf('company')}`)
          .where(w)
          .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
          .limit(limit)
          .offset(offset),
        db.select({ n: count() }).from(auditLog).where(w),
      ]);
      return { rows, total: total?.n ?? 0 };
    },

    async actions(scope: ActivityScope): Promise<string[]> {
      const rows = await db
        .selectDistinct({ action: auditLog.action })
        .from(auditLog)
        .where(scopeWhere(scope))
        .orderBy(asc(auditLog.action));
      return rows.map((r) => r.action);
    },

    /** The users who acted in the scope (the user filter's choices), by name. */
    async actors(scope: ActivityScope) {
      return db
        .selectDistinct({ id: users.id, name: nameOf(users), email: users.email })
        .from(auditLog)
        .innerJoin(users, eq(users.id, auditLog.actorUserId))
        .where(scopeWhere(scope))
        .orderBy(asc(nameOf(users)), asc(users.email))
        .limit(500);
    },

    /** The reseller's companies (its staff company too: staff actions are recorded there). */
    async resellerCompanies(resellerId: number) {
      return db
        .select({ id: companies.id, name: companies.name })
        .from(companies)
        .where(eq(companies.resellerId, resellerId))
        .orderBy(asc(companies.name), asc(companies.id));
    },
  };
}
export type ActivityRepository = ReturnType<typeof createActivityRepository>;
