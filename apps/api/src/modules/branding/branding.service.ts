/**
 * Reseller branding (issue 13, part 3): the brand a host shows before sign-in, and the staff's branding screen.
 * Every read and write is scoped by the staff member's reseller; support staff read, only owners write.
 */
import type { z } from 'zod';
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite } from '@portal/contract/permissions';
import { BRANDING_TEXT, type brandingFormSchema, type PublicBrand } from '@portal/contract/reseller-branding';
import type { StaffScope } from '../../lib/auth-context.ts';
import { ConflictError, ForbiddenError, NotFoundError, SQLSTATE, databaseErrorOf } from '../../lib/errors.ts';
import type { ModuleDeps } from '../module.ts';
import type { BrandingRepository } from './branding.repository.ts';

type Deps = Pick<ModuleDeps, 'db' | 'audit' | 'clock' | 'resellerHosts' | 'brands'> & {
  repo: BrandingRepository;
};
/** Who acts: the staff scope, the staff company (the audit log's company) and the request. */
export interface BrandingCtx {
  scope: StaffScope;
  companyId: number;
  requestId: string;
}

/** SPEC point 1's defaults: the tab says VMP with a white circle, no logo. */
const DEFAULT_PUBLIC_BRAND: PublicBrand = { resellerName: null, logoUrl: null, tabLogoUrl: null };

export function createBrandingService(deps: Deps) {
  const { db, repo, audit, brands } = deps;

  function requireOwner(scope: StaffScope): void {
    if (!staffMayWrite(scope.role)) throw new ForbiddenError(API_MESSAGES.staffReadOnly);
  }

  /** A changed brand or domain must show at once (brand-writer.ts). */
  const forgetCachedBrands = () => brands.forget();

  async function page(resellerId: number) {
    const branding = await brands.brand(resellerId);
    if (!branding) throw new NotFoundError('Reseller not found');
    return { branding, domains: await repo.domains(resellerId) };
  }

  function auditEntry(
    ctx: BrandingCtx,
    action: string,
    target: string | number,
    change: { before?: unknown; after?: unknown },
  ) {
    return {
      companyId: ctx.companyId,
      actorUserId: ctx.scope.userId,
      action,
      targetType: 'reseller',
      targetId: target,
      requestId: ctx.requestId,
      ...change,
    };
  }

  return {
    /** The brand of the portal at `host`; SPEC's defaults for a host without a domain row. Never addresses. */
    async publicBrand(host: string): Promise<PublicBrand> {
      const brand = await deps.resellerHosts.resolve(host);
      if (!brand) return DEFAULT_PUBLIC_BRAND;
      return { resellerName: brand.resellerName, logoUrl: brand.logoUrl, tabLogoUrl: brand.tabLogoUrl };
    },

    page: (ctx: BrandingCtx) => page(ctx.scope.resellerId),

    async update(ctx: BrandingCtx, input: z.output<typeof brandingFormSchema>) {
      requireOwner(ctx.scope);
      await db.transaction(async (tx) => {
        const saved = await brands.save(tx, ctx.scope.resellerId, input, deps.clock.now());
        if (!saved) throw new NotFoundError('Reseller not found');
        await audit.record(auditEntry(ctx, 'reseller.branding.update', ctx.scope.resellerId, saved), tx);
      });
      forgetCachedBrands();
      return page(ctx.scope.resellerId);
    },

    async addDomain(ctx: BrandingCtx, host: string, makePrimary: boolean) {
      requireOwner(ctx.scope);
      const owner = await repo.ownerOf(host);
      if (owner === ctx.scope.resellerId) throw new ConflictError(BRANDING_TEXT.hostExists);
      if (owner !== null) throw new ConflictError(BRANDING_TEXT.hostTaken);
      try {
        await db.transaction(async (tx) => {
          const first = (await repo.domains(ctx.scope.resellerId, tx)).length === 0;
          await repo.insertDomain(tx, ctx.scope.resellerId, host);
          // The first domain is the one mails link to until another is chosen.
          if (first || makePrimary) await repo.setPrimary(tx, ctx.scope.resellerId, host);
          await audit.record(
            auditEntry(ctx, 'reseller.domain.add', ctx.scope.resellerId, {
              after: { host, primary: first || makePrimary },
            }),
            tx,
          );
        });
      } catch (err) {
        // Two resellers adding the same host at once: the primary key decides, the loser hears it is taken.
        if (databaseErrorOf(err)?.code === SQLSTATE.uniqueViolation) throw new ConflictError(BRANDING_TEXT.hostTaken);
        throw err;
      }
      forgetCachedBrands();
      return page(ctx.scope.resellerId);
    },

    async removeDomain(ctx: BrandingCtx, host: string) {
      requireOwner(ctx.scope);
      await db.transaction(async (tx) => {
        const removed = await repo.deleteDomain(tx, ctx.scope.resellerId, host);
        if (!removed) throw new NotFoundError(BRANDING_TEXT.domainNotFound);
        let promoted: string | null = null;
        if (removed.isPrimary) {
          // Mails keep linking to one of the reseller's own domains while it has any.
          promoted = await repo.oldestDomain(tx, ctx.scope.resellerId);
          if (promoted) await repo.setPrimary(tx, ctx.scope.resellerId, promoted);
        }
        await audit.record(
          auditEntry(ctx, 'reseller.domain.remove', ctx.scope.resellerId, {
            before: { host },
            after: { primary: promoted },
          }),
          tx,
        );
      });
      forgetCachedBrands();
      return page(ctx.scope.resellerId);
    },

    async setPrimary(ctx: BrandingCtx, host: string) {
      requireOwner(ctx.scope);
      await db.transaction(async (tx) => {
        if (!(await repo.setPrimary(tx, ctx.scope.resellerId, host)))
          throw new NotFoundError(BRANDING_TEXT.domainNotFound);
        await audit.record(auditEntry(ctx, 'reseller.domain.primary', ctx.scope.resellerId, { after: { host } }), tx);
      });
      forgetCachedBrands();
      return page(ctx.scope.resellerId);
    },
  };
}
export type BrandingService = ReturnType<typeof createBrandingService>;
