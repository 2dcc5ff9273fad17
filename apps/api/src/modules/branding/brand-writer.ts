/**
 * The one path a reseller's brand fields take into the database, shared by the reseller area's branding screen and
 * the operator's reseller import (`/imports/reseller`): checked by the branding form's rules, normalised (trimmed,
 * blank = none, addresses lower-cased), written, and this instance's cached brands forgotten so the custom host,
 * its mails and signed-in profiles show the change at once. Named in ModuleDeps (`brands`).
 */
import { eq } from 'drizzle-orm';
import { brandingFormSchema, type BrandingForm } from '@portal/contract/reseller-branding';
import type { Db, Tx } from '../../db/client.ts';
import { resellers } from '../../db/schema.ts';
import type { ResellerHosts } from './reseller-hosts.ts';

export interface BrandFields {
  name: string;
  logoUrl: string | null;
  tabLogoUrl: string | null;
  email: string | null;
  supportEmail: string | null;
  /** #rrggbb (lower-case) or null (issue 25 item 8). */
  accentColor: string | null;
}

/** A brand the form's rules refuse; `message` names the field ("logoUrl: ..."). */
export class BrandInvalid extends Error {}

const blankToNull = (v: string | null | undefined) => (v == null || v.trim() === '' ? null : v.trim());

/** Fields not given keep what `before` holds (an import row may name only some). */
export type BrandInput = Partial<Record<keyof BrandFields, string | null | undefined>>;

export function brandFieldsOf(input: BrandInput, before?: BrandFields): BrandFields {
  const pick = (key: keyof BrandFields) => (input[key] !== undefined ? input[key] : before?.[key]) ?? '';
  const form: BrandingForm = {
    name: pick('name'),
    logoUrl: pick('logoUrl'),
    tabLogoUrl: pick('tabLogoUrl'),
    email: pick('email'),
    supportEmail: pick('supportEmail'),
    accentColor: pick('accentColor'),
  };
  const parsed = brandingFormSchema.safeParse(form);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BrandInvalid(`${issue.path.join('.') || 'row'}: ${issue.message}`);
  }
  const v = parsed.data;
  return {
    name: v.name.trim(),
    logoUrl: blankToNull(v.logoUrl),
    tabLogoUrl: blankToNull(v.tabLogoUrl),
    email: blankToNull(v.email)?.toLowerCase() ?? null,
    supportEmail: blankToNull(v.supportEmail)?.toLowerCase() ?? null,
    accentColor: blankToNull(v.accentColor)?.toLowerCase() ?? null,
  };
}

const brandColumns = {
  name: resellers.name,
  logoUrl: resellers.logoUrl,
  tabLogoUrl: resellers.tabLogoUrl,
  email: resellers.email,
  supportEmail: resellers.supportEmail,
  accentColor: resellers.accentColor,
};

export function createBrandWriter(deps: {
  db: Db;
  resellerHosts: ResellerHosts;
  /** This instance's session cache (ModuleDeps `sessionCache`): a brand change clears it. */
  sessionCache: { clear(): void };
}) {
  return {
    /** The form's rules and normalising without a save (the reseller import's new rows); throws BrandInvalid. */
    fieldsOf: brandFieldsOf,
    /** Whether `err` is the form's refusal (its message names the field). */
    isInvalid: (err: unknown): err is BrandInvalid => err instanceof BrandInvalid,
    async brand(resellerId: number, tx: Db | Tx = deps.db): Promise<BrandFields | undefined> {
      const [row] = await tx.select(brandColumns).from(resellers).where(eq(resellers.id, resellerId));
      return row;
    },

    /** Saves the reseller's brand inside `tx`; call `forget()` once it committed. Undefined: no such reseller. */
    async save(
      tx: Tx,
      resellerId: number,
      input: BrandInput,
      now: Date,
      extra: Partial<Pick<typeof resellers.$inferInsert, 'distributorId'>> = {},
    ): Promise<{ before: BrandFields; after: BrandFields } | undefined> {
      const before = await this.brand(resellerId, tx);
      if (!before) return undefined;
      const after = brandFieldsOf(input, before);
      await tx
        .update(resellers)
        .set({ ...after, ...extra, updatedAt: now })
        .where(eq(resellers.id, resellerId));
      return { before, after };
    },

    /**
     * A changed brand must show at once: the cached host answers, and the cached profiles of every company
     * (GET /auth/check). Other instances hear of it from the resellers trigger (migration 0005, '*') and, for
     * domains, within HOST_CACHE_MS.
     */
    forget(): void {
      deps.resellerHosts.forget();
      deps.sessionCache.clear();
    },
  };
}
export type BrandWriter = ReturnType<typeof createBrandWriter>;
