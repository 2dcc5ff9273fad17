/** The activity log: company administrators read their company's, reseller staff their reseller's companies'. */
import type { ActivityEntry, ActivityFilters, ActivityQuery, ResellerActivityQuery } from '@portal/contract/activity';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import type { StaffScope, TenantScope } from '../../lib/auth-context.ts';
import { ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ActivityFilter, ActivityRepository, ActivityScope } from './activity.repository.ts';

const DAY_MS = 86_400_000;

/** The query's days (UTC; `to` included) as bounds of created_at. */
function filterOf(q: ActivityQuery): ActivityFilter {
  return {
    actorUserId: q.userId,
    action: q.action || undefined,
    since: q.from ? new Date(`${q.from}T00:00:00Z`) : undefined,
    before: q.to ? new Date(new Date(`${q.to}T00:00:00Z`).getTime() + DAY_MS) : undefined,
  };
}

type Row = Awaited<ReturnType<ActivityRepository['page']>>['rows'][number];

function toEntry(r: Row): ActivityEntry {
  const actorKind = r.actorUserId !== null ? 'user' : r.byOperator ? 'operator' : 'system';
  return {
    id: r.id,
    createdAt: iso(r.at),
    // A deleted actor still reads as a user (by id): their name went with them.
    actor:
      r.actorUserId === null
        ? null
        : {
            id: r.actorUserId,
            name: r.actorName || r.actorEmail || ACTIVITY_TEXT.deletedUser,
            email: r.actorEmail ?? '',
          },
    actorKind,
    token: r.tokenId === null ? null : { id: r.tokenId, name: r.tokenName ?? '' },
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    targetName: r.targetName,
    company: r.companyId === null ? null : { id: r.companyId, name: r.companyName ?? '' },
  };
}

export function createActivityService(deps: { activity: ActivityRepository }) {
  const { activity } = deps;

  async function list(scope: ActivityScope, q: ActivityQuery) {
    const { rows, total } = await activity.page(scope, filterOf(q), q.page, q.rowsPerPage);
    return { data: rows.map(toEntry), totalPages: totalPages(total, q.rowsPerPage) };
  }

  async function filters(scope: ActivityScope, withCompanies: number | null): Promise<ActivityFilters> {
    const [actions, users, companies] = await Promise.all([
      activity.actions(scope),
      activity.actors(scope),
      withCompanies === null ? [] : activity.resellerCompanies(withCompanies),
    ]);
    return { actions, users: users.map((u) => ({ ...u, name: u.name || u.email })), companies };
  }

  function companyScope(scope: TenantScope): ActivityScope {
    if (!scope.isCompanyAdmin) throw new ForbiddenError(ACTIVITY_TEXT.adminsOnly);
    return { companyId: scope.companyId };
  }

  async function resellerScope(scope: StaffScope, companyId: number | undefined): Promise<ActivityScope> {
    if (companyId !== undefined) {
      const own = await activity.resellerCompanies(scope.resellerId);
      if (!own.some((c) => c.id === companyId)) throw new NotFoundError(ACTIVITY_TEXT.companyNotFound);
    }
    return { resellerId: scope.resellerId, companyId };
  }

  return {
    companyList: (scope: TenantScope, q: ActivityQuery) => list(companyScope(scope), q),
    companyFilters: (scope: TenantScope) => filters(companyScope(scope), null),
    async resellerList(scope: StaffScope, q: ResellerActivityQuery) {
      return list(await resellerScope(scope, q.companyId), q);
    },
    resellerFilters: (scope: StaffScope) => filters({ resellerId: scope.resellerId }, scope.resellerId),
  };
}
export type ActivityService = ReturnType<typeof createActivityService>;
