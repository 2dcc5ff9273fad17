/**
 * The company administrator's quotas (issue 22): the company's limits (set by its reseller) and usage, each team's,
 * and setting a team's limits within the company's. SQL and the lock rule: db/quotas.ts.
 */
import type { FastifyInstance } from 'fastify';
import {
  NO_LIMITS,
  QUOTA_KEYS,
  QUOTA_TEXT,
  quotaRoutes,
  type CompanyQuotaView,
  type Quota,
  type QuotaLimits,
} from '@portal/contract/quotas';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, NotFoundError } from '../../lib/errors.ts';
import { registerRoute } from '../../lib/http.ts';
import {
  NO_USAGE,
  companyLimits,
  setTeamLimits,
  sumUsage,
  teamLimits,
  teamsWithLimits,
  usageByTeam,
} from '../../db/quotas.ts';
import { scopeOf, type ModuleDeps } from '../module.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'audit'>;
type Ctx = { scope: TenantScope; requestId: string };

export function createTeamQuotasService({ db, access, audit }: Deps) {
  return {
    async view(scope: TenantScope): Promise<CompanyQuotaView> {
      access.requireCompanyAdmin(scope);
      const [limits, usage, teams] = await Promise.all([
        companyLimits(db, scope.companyId),
        usageByTeam(db, scope.companyId),
        teamsWithLimits(db, scope.companyId),
      ]);
      return {
        company: { limits: limits ?? NO_LIMITS, usage: sumUsage(usage.values()) },
        teams: teams.map(({ id, name, ...limits }) => ({ id, name, limits, usage: usage.get(id) ?? NO_USAGE })),
      };
    },

    /** Each limit at most the company's (when it has one; a team without a limit is held by the company's); under the company row's lock, as quota checks take it. */
    async setTeam(ctx: Ctx, teamId: number, limits: QuotaLimits): Promise<Quota> {
      access.requireCompanyAdmin(ctx.scope);
      const { companyId } = ctx.scope;
      await db.transaction(async (tx) => {
        const company = (await companyLimits(tx, companyId, true))!;
        const before = await teamLimits(tx, companyId, teamId);
        if (!before) throw new NotFoundError(QUOTA_TEXT.teamNotFound);
        for (const key of QUOTA_KEYS) {
          const cap = company[key];
          const wanted = limits[key];
          if (cap !== null && wanted !== null && wanted > cap)
            throw new BadRequestError(QUOTA_TEXT.aboveCompany(key, cap));
        }
        await setTeamLimits(tx, companyId, teamId, limits);
        await audit.record(
          {
            companyId,
            actorUserId: ctx.scope.userId,
            action: 'team.quota',
            targetType: 'team',
            targetId: teamId,
            before,
            after: limits,
            requestId: ctx.requestId,
          },
          tx,
        );
      });
      return { limits, usage: (await usageByTeam(db, companyId)).get(teamId) ?? NO_USAGE };
    },
  };
}

export function registerQuotaRoutes(app: FastifyInstance, quotas: ReturnType<typeof createTeamQuotasService>): void {
  registerRoute(app, quotaRoutes.view, async ({ auth }) => ({ data: await quotas.view(scopeOf(auth)) }));
  registerRoute(app, quotaRoutes.setTeam, async ({ auth, body, request }) => ({
    message: QUOTA_TEXT.saved,
    data: await quotas.setTeam({ scope: scopeOf(auth), requestId: request.id }, body.teamId, body.limits),
  }));
}
