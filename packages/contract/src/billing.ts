/**
 * Usage for billing (issue 13): the hours each VM existed at each size in a UTC month, per company of a reseller,
 * with the reseller's prices; its CSV export; and the signed billing webhook (docs/billing-webhook.md).
 * Money and hours are decimal strings ("12.34"), never floats: they go to billing systems as they are.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idSchema, pageQueryFields, pagedSchema, route, timestampSchema } from './common.ts';

export const BILLING_MESSAGES = {
  monthFormat: 'Month must be a calendar month in the form YYYY-MM (e.g. 2026-10)',
  webhookUrl: 'The webhook URL must be an https:// address',
  webhookUrlHttpAllowed: 'The webhook URL must be an http:// or https:// address',
  webhookUrlCredentials: 'The webhook URL must not contain a user name or password',
  webhookUrlPort: 'The webhook URL must use port 80, 443 or one from 1024 to 65535',
  webhookSaved: 'Billing webhook saved',
  secretRotated: 'A new signing secret was generated; the old one no longer signs',
  noWebhook: 'Set a billing webhook URL first',
  sendQueued: 'Usage queued for delivery',
  sendRateLimited: 'Too many manual sends and retries: wait a minute and try again',
  retryQueued: 'Delivery queued for another attempt',
  retryOnlyFailed: 'Only a failed delivery can be retried',
  deliveryNotFound: 'Delivery not found',
  companyNotFound: 'Company not found',
} as const;

/**
 * What storage is billed per GB-month (issue 24 item 4; docs/billing-webhook.md "Storage"): a VM's snapshots and
 * its backups (a kept backup outlives its VM and stays billed to the company).
 */
export const STORAGE_KINDS = ['snapshot', 'backup'] as const;
export type StorageKind = (typeof STORAGE_KINDS)[number];

/** The only webhook event so far: one company's usage of one closed (or chosen) month. */
export const BILLING_EVENTS = ['usage.month'] as const;
export type BillingEvent = (typeof BILLING_EVENTS)[number];
/** Version of the webhook payload (docs/billing-webhook.md); raised only for a change that breaks receivers. */
export const BILLING_PAYLOAD_VERSION = 1;
/** Name of the signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'X-Portal-Signature';
/** Delays before the 2nd..6th attempt of a delivery; after the 6th failure it is 'failed'. */
export const WEBHOOK_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;

const MONTH_PATTERN = /^(19|20|21)\d\d-(0[1-9]|1[0-2])$/;
/** A calendar month in UTC, 'YYYY-MM'. */
export const monthSchema = z
  .string({ error: BILLING_MESSAGES.monthFormat })
  .regex(MONTH_PATTERN, BILLING_MESSAGES.monthFormat);

export const usageQuerySchema = z.object({ month: monthSchema });
export const usageCsvQuerySchema = z.object({ month: monthSchema, companyId: idSchema.optional() });

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/);

/** One VM at one size in the month. `amount` is null when the reseller has no price for that size. */
export const usageLineSchema = z.object({
  vmId: z.number().int(),
  vmName: z.string(),
  configurationId: z.number().int(),
  configurationKey: z.string(),
  configurationName: z.string(),
  /** Whole seconds the VM existed at this size within the month. */
  seconds: z.number().int(),
  /** seconds / 3600, rounded half up to 2 decimals. */
  hours: decimal,
  hourlyPrice: decimal.nullable(),
  /** The most one VM pays for one size in one month. */
  monthlyPrice: decimal.nullable(),
  /** min(exact hours × hourly price, monthly price), rounded half up to 2 decimals. */
  amount: decimal.nullable(),
});
export type UsageLine = z.infer<typeof usageLineSchema>;

/**
 * Storage kept in the month (issue 24 item 4): one line per VM and kind, its snapshots' or backups' GB-months
 * (GB = 1024³ bytes; GB-seconds over the seconds of the whole calendar month) priced per GB-month by the reseller.
 * `amount` is null when the reseller has no price for the kind. A kept backup of a deleted VM stays on its VM's line.
 */
export const storageUsageLineSchema = z.object({
  kind: z.enum(STORAGE_KINDS),
  /** The VM it was taken of (null only for a backup whose VM the portal no longer knows). */
  vmId: z.number().int().nullable(),
  vmName: z.string().nullable(),
  /** GB-hours kept, 2 decimals. */
  gbHours: decimal,
  /** GB-months kept, 4 decimals (a 2 GB snapshot kept the whole month: "2.0000"). */
  gbMonths: decimal,
  /** The reseller's price per GB-month of the kind (5 decimals), null when unpriced. */
  gbMonthPrice: decimal.nullable(),
  /** exact GB-months × price, rounded half up to 2 decimals. */
  amount: decimal.nullable(),
});
export type StorageUsageLine = z.infer<typeof storageUsageLineSchema>;

/** Storage's additions to a month's figures (the VM fields keep their meaning: `amount` is the VMs' only). */
const storageTotals = {
  /** Sum of the storage lines' amounts (unpriced lines left out). */
  storageAmount: decimal,
  /** `amount` (VMs) + `storageAmount`. */
  totalAmount: decimal,
};

export const companyUsageTotalSchema = z.object({
  companyId: z.number().int(),
  companyName: z.string(),
  vmCount: z.number().int(),
  hours: decimal,
  amount: decimal,
  /** Lines without a price (their hours count, their amount does not). */
  unpricedLines: z.number().int(),
  ...storageTotals,
  /** Storage lines without a price. */
  unpricedStorageLines: z.number().int(),
});

const monthRange = {
  month: z.string(),
  /** First instant of the month (UTC). */
  from: timestampSchema,
  /** First instant of the next month; for the running month, hours count up to now. */
  to: timestampSchema,
  currency: z.string(),
};

export const resellerUsageSchema = z.object({
  ...monthRange,
  companies: z.array(companyUsageTotalSchema),
  hours: decimal,
  amount: decimal,
  ...storageTotals,
});
export type ResellerUsage = z.infer<typeof resellerUsageSchema>;

export const companyUsageSchema = z.object({
  ...monthRange,
  company: z.object({ id: z.number().int(), name: z.string() }),
  lines: z.array(usageLineSchema),
  hours: decimal,
  amount: decimal,
  /** Snapshots and backups kept in the month, per VM and kind. */
  storageLines: z.array(storageUsageLineSchema),
  ...storageTotals,
});
export type CompanyUsage = z.infer<typeof companyUsageSchema>;

/** The columns of the CSV export, in order (one row per company × VM × size). */
export const USAGE_CSV_COLUMNS = [
  'month',
  'company_id',
  'company_name',
  'vm_id',
  'vm_name',
  'configuration_key',
  'configuration_name',
  'seconds',
  'hours',
  'hourly_price',
  'monthly_price',
  'amount',
  'currency',
  // Storage (issue 24 item 4), appended so the columns above keep their places: 'vm' on a VM's rows, else
  // 'snapshot_storage' or 'backup_storage' (their seconds, hours and prices of a size empty).
  'line_kind',
  'gb_months',
  'gb_month_price',
] as const;

/**
 * Additions to payload version 1 since it was first documented (docs/billing-webhook.md): 2 adds `storageLines`,
 * `totals.storageAmount` and `totals.totalAmount` (issue 24 item 4). Every field of an earlier revision is unchanged.
 */
export const BILLING_PAYLOAD_REVISION = 2;

export const webhookSchema = z.object({
  url: z.string(),
  enabled: z.boolean(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type BillingWebhook = z.infer<typeof webhookSchema>;

/** The URL's port ('' is the scheme's default): 80, 443, or an unprivileged one. */
function isWebPort(port: string): boolean {
  return port === '' || port === '80' || port === '443' || Number(port) >= 1024;
}

export const webhookBodySchema = z
  .object({
    url: z
      .url({ error: BILLING_MESSAGES.webhookUrlHttpAllowed })
      .trim()
      .max(2048)
      // Web ports only: a POST must not reach a mail or SSH service of a network the operator allows (issue 21).
      .refine((u) => isWebPort(new URL(u).port), BILLING_MESSAGES.webhookUrlPort),
    enabled: z.boolean().default(true),
  })
  .strict();

export const deliveryStatusSchema = z.enum(['pending', 'delivered', 'failed']);
export const deliverySchema = z.object({
  id: z.number().int(),
  event: z.string(),
  companyId: z.number().int().nullable(),
  companyName: z.string().nullable(),
  month: z.string().nullable(),
  trigger: z.string(),
  status: deliveryStatusSchema,
  attempts: z.number().int(),
  nextAttemptAt: timestampSchema.nullable(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: timestampSchema.nullable(),
  createdAt: timestampSchema,
});
export type Delivery = z.infer<typeof deliverySchema>;

const P = '/reseller';
const base = { tag: 'Billing', access: 'staff' } as const;

export const billingRoutes = {
  usage: route({
    ...base,
    method: 'GET',
    path: `${P}/usage`,
    summary: "Usage of the reseller's companies in a month (UTC): hours and amounts per company",
    query: usageQuerySchema,
    data: resellerUsageSchema,
  }),
  companyUsage: route({
    ...base,
    method: 'GET',
    path: `${P}/usage/companies/:id`,
    summary: 'Usage of one company in a month: every VM at every size, hours and amount',
    params: z.object({ id: idSchema }),
    query: usageQuerySchema,
    data: companyUsageSchema,
  }),
  getWebhook: route({
    ...base,
    method: 'GET',
    path: `${P}/billing/webhook`,
    summary: 'The billing webhook (URL, enabled); never the secret',
    data: webhookSchema.nullable(),
  }),
  setWebhook: route({
    ...base,
    method: 'PUT',
    path: `${P}/billing/webhook`,
    summary: 'Set the billing webhook URL and whether it is enabled (owner); the first save generates the secret',
    body: webhookBodySchema,
    data: z.object({
      webhook: webhookSchema,
      /** The signing secret, only when this save generated it: shown once. */
      secret: z.string().nullable(),
    }),
  }),
  rotateSecret: route({
    ...base,
    method: 'POST',
    path: `${P}/billing/webhook/rotateSecret`,
    summary: 'Generate a new signing secret (owner); shown once',
    data: z.object({ secret: z.string() }),
  }),
  sendNow: route({
    ...base,
    method: 'POST',
    path: `${P}/billing/sendNow`,
    summary: 'Queue usage.month deliveries of a month now: one per company (or the one company given) (owner)',
    body: z.object({ month: monthSchema, companyId: idSchema.optional() }).strict(),
    /** queued: new deliveries; alreadyQueued: company-months already waiting (a month is sent once per company). */
    data: z.object({ queued: z.number().int(), alreadyQueued: z.number().int() }),
  }),
  deliveries: route({
    ...base,
    method: 'GET',
    path: `${P}/billing/deliveries`,
    summary: 'The delivery log, newest first',
    query: z.object({ page: pageQueryFields.page, rowsPerPage: pageQueryFields.rowsPerPage }),
    data: pagedSchema(deliverySchema),
  }),
  retryDelivery: route({
    ...base,
    method: 'POST',
    path: `${P}/billing/deliveries/:id/retry`,
    summary: 'Try a failed delivery once more, now (owner)',
    params: z.object({ id: idSchema }),
    data: deliverySchema,
  }),
} as const;

/**
 * The CSV download sits outside the `{ message, data }` envelope (a file, not JSON): GET with the same access
 * rule ('staff') and query validation; it answers text/csv with a Content-Disposition filename, and its errors
 * (400, 401, 403, 404) are the usual JSON envelope. Declared here so the server and the portal share the path.
 */
export const USAGE_CSV_PATH = `${P}/usage.csv`;

/** The file name of a CSV export. */
export function usageCsvFilename(month: string, companyId?: number): string {
  return companyId ? `usage-${month}-company-${companyId}.csv` : `usage-${month}.csv`;
}
