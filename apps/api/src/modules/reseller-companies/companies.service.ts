/**
 * The reseller area's companies: rules and access. Every call is scoped by the staff member's reseller (another
 * reseller's company answers 404); only owner staff change anything (support gets 403 "Your staff role may only view").
 */
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite } from '@portal/contract/permissions';
import {
  COMPANIES_TEXT,
  type CompanyDetail,
  type CompanyRow,
  type CreateCompanyForm,
} from '@portal/contract/reseller-companies';
import type { Quota, QuotaLimits } from '@portal/contract/quotas';
import type { StaffScope } from '../../lib/auth-context.ts';
import { companyLimits, setCompanyLimits, sumUsage, usageByTeam } from '../../db/quotas.ts';
import { ConflictError, ForbiddenError, NotFoundError, SQLSTATE, databaseErrorOf } from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { CompaniesRepository, CompanyListQuery } from './companies.repository.ts';

type Deps = Pick<ModuleDeps, 'db' | 'clock' | 'audit' | 'sessions' | 'inviteCompanyAdmin' | 'engine'> & {
  repo: CompaniesRepository;
};
export interface StaffCtx {
  staff: StaffScope;
  requestId: string;
}

type RowOf = NonNullable<Awaited<ReturnType<CompaniesRepository['byId']>>>;
const toRow = (r: RowOf): CompanyRow => ({
  id: r.id,
  name: r.name,
  status: r.suspendedAt ? 'suspended' : 'active',
  suspendedAt: r.suspendedAt ? iso(r.suspendedAt) : null,
  suspendedReason: r.suspendedReason,
  userCount: Number(r.userCount),
  vmCount: Number(r.vmCount),
  vmHoursThisMonth: Math.round(Number(r.vmHoursThisMonth) * 100) / 100,
  createdAt: iso(r.createdAt),
});

class EmailTaken extends Error {}

export function createCompaniesService(deps: Deps) {
  const { db, repo, audit, clock } = deps;

  const requireWrite = (staff: StaffScope) => {
    if (!staffMayWrite(staff.role)) throw new ForbiddenError(API_MESSAGES.staffReadOnly);
  };
  const load = async (staff: StaffScope, id: number) => {
    const row = await repo.byId(staff.resellerId, id, clock.now());
    if (!row) throw new NotFoundError(COMPANIES_TEXT.notFound);
    return row;
  };
  const record = (ctx: StaffCtx, companyId: number, action: string, after?: unknown) =>
    audit.record({
      companyId,
      actorUserId: ctx.staff.userId,
      action,
      targetType: 'company',
      targetId: companyId,
      after: { resellerId: ctx.staff.resellerId, ...(after ?? {}) },
      requestId: ctx.requestId,
    });

  const quotaOf = async (companyId: number): Promise<Quota> => ({
    limits: (await companyLimits(db, companyId))!,
    usage: sumUsage((await usageByTeam(db, companyId)).values()),
  });

  return {
    async list(staff: StaffScope, q: CompanyListQuery) {
      const { rows, total } = await repo.list(staff.resellerId, q, clock.now());
      return { data: rows.map(toRow), totalPages: totalPages(total, q.rowsPerPage) };
    },

    async detail(staff: StaffScope, id: number): Promise<CompanyDetail> {
      const company = await load(staff, id);
      const c = await repo.contents(company.id);
      return {
        company: toRow(company),
        quota: await quotaOf(company.id),
        users: c.users.map((u) => ({
          id: u.id,
          email: u.email,
          firstName: u.firstName,
          lastName: u.lastName,
          isCompanyAdmin: u.isCompanyAdmin,
          confirmed: u.confirmedAt !== null,
          createdAt: iso(u.createdAt),
        })),
        teams: c.teams.map((t) => ({ ...t, userCount: Number(t.userCount), vmCount: Number(t.vmCount) })),
        vms: c.vms.map((v) => ({ ...v, createdAt: iso(v.createdAt) })),
      };
    },

    /** The company and its first administrator in one transaction; the invitation is mailed once it committed. */
    async create(ctx: StaffCtx, input: CreateCompanyForm) {
      requireWrite(ctx.staff);
      let result: { id: number; adminUserId: number; send: () => Promise<void> };
      try {
        result = await db.transaction(async (tx) => {
          const id = await repo.insert(tx, ctx.staff.resellerId, input.name);
          const invited = await deps.inviteCompanyAdmin(tx, id, input.adminEmail, ctx.staff.userId);
          if (invited.outcome === 'exists') throw new EmailTaken();
          await repo.setUserNames(tx, invited.userId, input.adminFirstName, input.adminLastName);
          await audit.record(
            {
              companyId: id,
              actorUserId: ctx.staff.userId,
              action: 'company.create',
              targetType: 'company',
              targetId: id,
              after: { resellerId: ctx.staff.resellerId, name: input.name, adminEmail: input.adminEmail.toLowerCase() },
              requestId: ctx.requestId,
            },
            tx,
          );
          return { id, adminUserId: invited.userId, send: invited.send };
        });
      } catch (err) {
        // Emails are unique across the platform: a taken address (checked, or lost in a race) is a 409.
        if (err instanceof EmailTaken || databaseErrorOf(err)?.code === SQLSTATE.uniqueViolation)
          throw new ConflictError(COMPANIES_TEXT.emailTaken);
        throw err;
      }
      await result.send();
      return { id: result.id, adminUserId: result.adminUserId };
    },

    /**
     * Suspends: marks the company (the session lookup and sign-in refuse its users from then on), signs its users
     * out, and stops its running VMs through the engine's operations.
     */
    async suspend(ctx: StaffCtx, id: number, reason: string | null) {
      requireWrite(ctx.staff);
      await load(ctx.staff, id);
      // The conditional update decides: of two suspends at once, one suspends (and audits), the other gets the 409
      // a second suspend always got.
      if (!(await repo.setSuspension(db, ctx.staff.resellerId, id, clock.now(), reason || null)))
        throw new ConflictError(COMPANIES_TEXT.alreadySuspended);
      for (const userId of await repo.userIdsOf(id)) await deps.sessions.destroyAllFor(userId);
      const stoppedVms = await deps.engine.stopCompanyMachines(id, {
        userId: ctx.staff.userId,
        resellerId: ctx.staff.resellerId,
        requestId: ctx.requestId,
      });
      await record(ctx, id, 'company.suspend', { reason: reason || null, stoppedVms });
      return { stoppedVms };
    },

    /**
     * The company's limits (issue 22). Lowering one below what is in use stops nothing: new creates and upgrades
     * are refused until usage is under it. Under the company row's lock, as the quota checks and team limits take it.
     */
    async setQuota(ctx: StaffCtx, id: number, limits: QuotaLimits): Promise<Quota> {
      requireWrite(ctx.staff);
      await load(ctx.staff, id);
      await db.transaction(async (tx) => {
        const before = await companyLimits(tx, id, true);
        await setCompanyLimits(tx, id, limits);
        await audit.record(
          {
            companyId: id,
            actorUserId: ctx.staff.userId,
            action: 'company.quota',
            targetType: 'company',
            targetId: id,
            before,
            after: { resellerId: ctx.staff.resellerId, ...limits },
            requestId: ctx.requestId,
          },
          tx,
        );
      });
      return quotaOf(id);
    },

    async resume(ctx: StaffCtx, id: number) {
      requireWrite(ctx.staff);
      await load(ctx.staff, id);
      if (!(await repo.setSuspension(db, ctx.staff.resellerId, id, null, null)))
        throw new ConflictError(COMPANIES_TEXT.notSuspended);
      await record(ctx, id, 'company.resume');
    },
  };
}

export type CompaniesService = ReturnType<typeof createCompaniesService>;
