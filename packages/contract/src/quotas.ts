/**
 * Quotas (issue 22): a reseller limits each customer company's live virtual machines, vCPUs, RAM and disk; the
 * company's administrator limits each team within the company's limits. A limit of null is no limit. Creates
 * and upgrades that would go over a limit are refused with QUOTA_TEXT.exceeded (409). Routes, schemas and texts.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, route } from './common.ts';

/** The four things a quota limits, in the order screens and messages list them. */
export const QUOTA_KEYS = ['vms', 'vcpus', 'ramGb', 'diskGb'] as const;
export type QuotaKey = (typeof QUOTA_KEYS)[number];

/** The largest limit (fits the integer column). */
export const QUOTA_MAX = 1_000_000_000;

const limitSchema = z
  .number({ error: 'A limit must be a whole number, or null for no limit' })
  .int({ error: 'A limit must be a whole number' })
  .min(0, { error: 'A limit cannot be negative' })
  .max(QUOTA_MAX, { error: `A limit must not exceed ${QUOTA_MAX.toLocaleString('en-US')}` })
  .nullable();

/** Limits, each null for no limit. */
export const quotaLimitsSchema = z
  .object({ vms: limitSchema, vcpus: limitSchema, ramGb: limitSchema, diskGb: limitSchema })
  .strict();
export type QuotaLimits = z.infer<typeof quotaLimitsSchema>;

/** What live (not deleted) VMs take; a VM with an upgrade under way counts at the larger of its two sizes. */
export const quotaUsageSchema = z.object({
  vms: z.number().int(),
  vcpus: z.number().int(),
  ramGb: z.number().int(),
  diskGb: z.number().int(),
});
export type QuotaUsage = z.infer<typeof quotaUsageSchema>;

export const quotaSchema = z.object({ limits: quotaLimitsSchema, usage: quotaUsageSchema });
export type Quota = z.infer<typeof quotaSchema>;

export const NO_LIMITS: QuotaLimits = { vms: null, vcpus: null, ramGb: null, diskGb: null };

export const QUOTA_TEXT = {
  title: 'Quota',
  companyMessage: 'Limits on what this company runs at once. Empty means no limit.',
  teamMessage: "Limits on what this team runs at once, within the company's. Empty means no limit.",
  edit: 'Edit limits',
  save: 'Save limits',
  saved: 'Limits saved',
  noLimit: 'No limit',
  labels: { vms: 'Virtual machines', vcpus: 'vCPUs', ramGb: 'RAM (GB)', diskGb: 'Disk (GB)' } satisfies Record<
    QuotaKey,
    string
  >,
  teamNotFound: 'Team not found',
  /** 400: a team's limit above its company's. */
  aboveCompany: (key: QuotaKey, companyLimit: number) =>
    `A team's ${NOUNS[key].plural} limit cannot exceed the company's (${companyLimit})`,
  /** 409: a create or upgrade that would go over a limit. */
  exceeded: (who: 'company' | 'team', key: QuotaKey, limit: number, used: number, adding: number) =>
    `This ${who} may run at most ${amount(key, limit)}: ${NOUNS[key].unit ? `${used} GB are` : `${used} ${used === 1 ? 'is' : 'are'}`} in use` +
    (adding > 0 && used < limit ? ` and this would add ${amount(key, adding)}` : '') +
    '.',
} as const;

const NOUNS: Record<QuotaKey, { one: string; plural: string; unit: boolean }> = {
  vms: { one: 'virtual machine', plural: 'virtual machines', unit: false },
  vcpus: { one: 'vCPU', plural: 'vCPUs', unit: false },
  ramGb: { one: 'GB of RAM', plural: 'RAM', unit: true },
  diskGb: { one: 'GB of disk', plural: 'disk', unit: true },
};
function amount(key: QuotaKey, n: number): string {
  const noun = NOUNS[key];
  if (noun.unit) return `${n} ${noun.one}`;
  return `${n} ${n === 1 ? noun.one : noun.plural}`;
}

/** The first limit that `adding` on top of `usage` would pass, or null. Only what grows is checked. */
export function quotaExceeded(
  limits: QuotaLimits,
  usage: QuotaUsage,
  adding: QuotaUsage,
): { key: QuotaKey; limit: number; used: number; adding: number } | null {
  for (const key of QUOTA_KEYS) {
    const limit = limits[key];
    if (limit === null || adding[key] <= 0) continue;
    if (usage[key] + adding[key] > limit) return { key, limit, used: usage[key], adding: adding[key] };
  }
  return null;
}

export const companyQuotaViewSchema = z.object({
  company: quotaSchema,
  teams: z.array(z.object({ id: z.number().int(), name: z.string() }).extend(quotaSchema.shape)),
});
export type CompanyQuotaView = z.infer<typeof companyQuotaViewSchema>;

/** The customer portal's quota calls (company administrators). */
export const quotaRoutes = {
  view: route({
    method: 'GET',
    path: '/quotas',
    summary: "The company's limits and usage, and each team's (company administrators)",
    tag: 'Teams',
    access: 'user',
    data: companyQuotaViewSchema,
  }),
  setTeam: route({
    method: 'POST',
    path: '/quotas/team',
    summary: "Set a team's limits, each at most the company's (company administrators)",
    tag: 'Teams',
    access: 'user',
    body: z.object({ teamId: idSchema, limits: quotaLimitsSchema }).strict(),
    data: quotaSchema,
  }),
} as const;

/** The reseller area's quota call; the company detail answers the limits and usage. */
export const resellerQuotaRoutes = {
  setCompany: route({
    method: 'POST',
    path: '/reseller/companies/:id/quota',
    summary: "Set a company's limits on live VMs, vCPUs, RAM and disk (owner staff)",
    tag: 'Reseller',
    access: 'staff',
    params: idParamsSchema,
    body: quotaLimitsSchema,
    data: quotaSchema,
  }),
} as const;
