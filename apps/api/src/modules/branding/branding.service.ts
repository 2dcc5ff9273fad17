/**
 * Reseller branding (issue 13, part 3): the brand a host shows before sign-in, and the staff's branding screen.
 * Every read and write is scoped by the staff member's reseller; support staff read, only owners write.
 * A custom domain serves only once its DNS TXT record proved control (issue 21, docs/custom-domains.md).
 */
import type { z } from 'zod';
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite } from '@portal/contract/permissions';
import {
  BRANDING_TEXT,
  hostPendingElsewhereText,
  verificationRecordOf,
  type brandingFormSchema,
  type BrandAssetKind,
  type PublicBrand,
} from '@portal/contract/reseller-branding';
import type { StaffScope } from '../../lib/auth-context.ts';
import type { TxtLookup } from '../../lib/dns-txt.ts';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  SQLSTATE,
  databaseErrorOf,
} from '../../lib/errors.ts';
import type { ModuleDeps } from '../module.ts';
import type { BrandingRepository } from './branding.repository.ts';
import { checkRecord, claimRefusal, domainToken } from './domain-claims.ts';
import { assetPath, checkUpload, type BrandAssets } from './brand-assets.ts';

type Deps = Pick<ModuleDeps, 'db' | 'audit' | 'clock' | 'resellerHosts' | 'brands' | 'secret'> & {
  repo: BrandingRepository;
  /** The names no reseller may claim (domain-claims.ts). */
  platformHosts: ReadonlySet<string>;
  /** Where TXT records are looked up (DNS_RESOLVER). */
  txt: TxtLookup;
  /** Uploaded logos and tab icons (brand-assets.ts), and the API's base path their addresses start with. */
  assets: BrandAssets;
  apiBasePath: string;
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
    const brand = await brands.brand(resellerId);
    if (!brand) throw new NotFoundError('Reseller not found');
    const { accentColor, ...rest } = brand;
    const branding = { ...rest, ...(accentColor ? { accentColor } : {}) };
    const domains = (await repo.domains(resellerId)).map((d) => ({
      host: d.host,
      isPrimary: d.isPrimary,
      state: d.verifiedAt ? ('verified' as const) : ('pending' as const),
      record: verificationRecordOf(d.host, d.token),
      lastCheckedAt: d.lastCheckedAt?.toISOString() ?? null,
      lastCheckError: d.lastCheckError,
    }));
    return { branding, domains };
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
      return {
        resellerName: brand.resellerName,
        logoUrl: brand.logoUrl,
        tabLogoUrl: brand.tabLogoUrl,
        ...(brand.accentColor ? { accentColor: brand.accentColor } : {}),
      };
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

    /** Stores an uploaded logo or tab icon (checked by its bytes) and makes it the brand's, at once. */
    async uploadAsset(ctx: BrandingCtx, kind: BrandAssetKind, base64: string) {
      requireOwner(ctx.scope);
      const me = ctx.scope.resellerId;
      const image = checkUpload(kind, base64);
      const url = assetPath(deps.apiBasePath, me, kind, image.sha256);
      await db.transaction(async (tx) => {
        const now = deps.clock.now();
        await deps.assets.put(tx, me, kind, image, now);
        const saved = await brands.save(tx, me, kind === 'logo' ? { logoUrl: url } : { tabLogoUrl: url }, now);
        if (!saved) throw new NotFoundError('Reseller not found');
        await audit.record(
          auditEntry(ctx, 'reseller.branding.upload', me, {
            before: saved.before,
            after: {
              ...saved.after,
              upload: { kind, type: image.contentType, bytes: image.bytes.length, sha256: image.sha256 },
            },
          }),
          tx,
        );
      });
      forgetCachedBrands();
      return page(me);
    },

    async addDomain(ctx: BrandingCtx, host: string, makePrimary: boolean) {
      requireOwner(ctx.scope);
      const me = ctx.scope.resellerId;
      const refusal = claimRefusal(host, deps.platformHosts);
      if (refusal) throw new BadRequestError(refusal);
      const token = domainToken(deps.secret, me, host);
      const claim = await repo.claimOf(host);
      if (claim?.resellerId === me) throw new ConflictError(BRANDING_TEXT.hostExists);
      if (claim?.verifiedAt) throw new ConflictError(BRANDING_TEXT.hostTaken);
      // Another reseller's unproven claim blocks no one: whoever shows the record takes the host over (decision 0012).
      let verifiedAt: Date | null = null;
      if (claim) {
        if ((await checkRecord(deps.txt, host, token)) !== null)
          throw new ConflictError(hostPendingElsewhereText(verificationRecordOf(host, token)));
        verifiedAt = deps.clock.now();
      }
      if (makePrimary && !verifiedAt) throw new ConflictError(BRANDING_TEXT.domainPendingPrimary);
      try {
        await db.transaction(async (tx) => {
          await repo.lockReseller(tx, me);
          // Gone or verified meanwhile: the insert below then meets the primary key and answers "taken".
          if (claim) await repo.deletePendingClaim(tx, host, claim.resellerId);
          await repo.insertDomain(tx, { resellerId: me, host, token, verifiedAt });
          if (verifiedAt && makePrimary) await repo.setPrimary(tx, me, host);
          const primary = makePrimary || (await repo.ensurePrimary(tx, me)) === host;
          await audit.record(
            auditEntry(ctx, 'reseller.domain.add', me, {
              after: {
                host,
                verified: verifiedAt !== null,
                primary,
                ...(claim ? { replacedPendingClaimOf: claim.resellerId } : {}),
              },
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
      return page(me);
    },

    /** Checks the domain's TXT record now: found, it serves; not, the row keeps why and the answer is 409. */
    async verifyDomain(ctx: BrandingCtx, host: string) {
      requireOwner(ctx.scope);
      const me = ctx.scope.resellerId;
      const row = await repo.claimOf(host);
      if (!row || row.resellerId !== me) throw new NotFoundError(BRANDING_TEXT.domainNotFound);
      if (row.verifiedAt) return page(me);
      // The lookup waits on the network: outside the transaction, so no lock is held meanwhile.
      const error = await checkRecord(deps.txt, host, row.token);
      await db.transaction(async (tx) => {
        await repo.lockReseller(tx, me);
        if (!(await repo.recordCheck(tx, me, host, deps.clock.now(), error))) return;
        if (error !== null) return;
        const primary = await repo.ensurePrimary(tx, me);
        await audit.record(
          auditEntry(ctx, 'reseller.domain.verify', me, { after: { host, primary: primary === host } }),
          tx,
        );
      });
      if (error !== null) throw new ConflictError(error);
      forgetCachedBrands();
      return page(me);
    },

    async removeDomain(ctx: BrandingCtx, host: string) {
      requireOwner(ctx.scope);
      const me = ctx.scope.resellerId;
      await db.transaction(async (tx) => {
        await repo.lockReseller(tx, me);
        const removed = await repo.deleteDomain(tx, me, host);
        if (!removed) throw new NotFoundError(BRANDING_TEXT.domainNotFound);
        // Mails keep linking to one of the reseller's own verified domains while it has any.
        const promoted = removed.isPrimary ? await repo.ensurePrimary(tx, me) : null;
        await audit.record(
          auditEntry(ctx, 'reseller.domain.remove', me, { before: { host }, after: { primary: promoted } }),
          tx,
        );
      });
      forgetCachedBrands();
      return page(me);
    },

    async setPrimary(ctx: BrandingCtx, host: string) {
      requireOwner(ctx.scope);
      const me = ctx.scope.resellerId;
      await db.transaction(async (tx) => {
        // One at a time per reseller: two "make primary" calls each cleared the other's row first and deadlocked.
        await repo.lockReseller(tx, me);
        const row = await repo.claimOf(host, tx);
        if (!row || row.resellerId !== me) throw new NotFoundError(BRANDING_TEXT.domainNotFound);
        if (!row.verifiedAt) throw new ConflictError(BRANDING_TEXT.domainPendingPrimary);
        await repo.setPrimary(tx, me, host);
        await audit.record(auditEntry(ctx, 'reseller.domain.primary', me, { after: { host } }), tx);
      });
      forgetCachedBrands();
      return page(me);
    },
  };
}
export type BrandingService = ReturnType<typeof createBrandingService>;
