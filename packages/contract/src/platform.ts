import './zod-setup.ts';
import { z } from 'zod';
import { route } from './common.ts';
import { LIMITS } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { MULTI_LINE_PATTERN, SINGLE_LINE_PATTERN } from './validation.ts';

/** One-line text without control characters (PostgreSQL refuses NUL). */
const line = () => z.string().regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters);
/** Free text: tabs and line breaks allowed, other control characters not. */
const text = () => z.string().regex(MULTI_LINE_PATTERN, VALIDATION.controlCharacters);
const externalId = () => line().min(1).max(100);

export const brandingSchema = z.object({
  resellerName: z.string().nullable(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
});

/**
 * A logo the portal puts in <img src> and <link rel=icon>: https: (http: for development) or an inline
 * image. Never javascript:, data:text/html, file: or any other scheme a browser might act on.
 */
export const BRAND_URL_PATTERN = /^(https?:\/\/[^\s]+|data:image\/[a-z0-9.+-]+[;,][^\s]*)$/i;
const urlOrNull = z
  .url()
  .max(2048)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
  .regex(BRAND_URL_PATTERN, VALIDATION.brandUrl)
  .nullable()
  .optional();
const emailOrNull = z
  .email()
  .max(LIMITS.email)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
  .nullable()
  .optional();

/** One row of an import; `externalId` makes a re-run update instead of duplicate. */
export const distributorImportRowSchema = z
  .object({
    externalId: externalId(),
    name: line().trim().min(1).max(LIMITS.name),
    logoUrl: urlOrNull,
    tabLogoUrl: urlOrNull,
    email: emailOrNull,
    supportEmail: emailOrNull,
  })
  .strict();
export const resellerImportRowSchema = distributorImportRowSchema
  .extend({ distributorExternalId: externalId() })
  .strict();
export const companyImportRowSchema = z
  .object({
    externalId: externalId(),
    name: line().trim().min(1).max(LIMITS.name),
    resellerExternalId: externalId(),
    /** The company's first administrator: invited (mailed) when the address has no account yet. */
    adminEmail: emailOrNull,
  })
  .strict();

/** Rows are checked one by one, so the body takes any objects and the report says what became of each. */
const importBody = z.object({ rows: z.array(z.record(z.string(), z.unknown())).min(1).max(1000) }).strict();
export const importReportSchema = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  rejected: z.number().int(),
  rows: z.array(
    z.object({
      index: z.number().int(),
      externalId: z.string().nullable(),
      outcome: z.enum(['created', 'updated', 'rejected']),
      id: z.number().int().nullable(),
      reason: z.string().nullable(),
    }),
  ),
});

const healthData = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  checks: z.record(
    z.string(),
    z.object({ status: z.enum(['ok', 'down']), detail: z.string().nullable(), latencyMs: z.number() }),
  ),
});

/** The support form's message (its own name: the portal's form imports it, not the route table). */
export const supportMessageBody = z
  .object({
    message: z
      .string()
      .trim()
      .min(1, 'Message is required')
      .max(LIMITS.supportMessage, 'Message must not exceed 5000 characters')
      .regex(MULTI_LINE_PATTERN, VALIDATION.controlCharacters),
  })
  .strict();

export const platformRoutes = {
  getLogoUrl: route({
    method: 'GET',
    path: '/resellers/getLogoUrl',
    summary: "The caller's branding (reseller, else distributor, else defaults)",
    tag: 'Resellers',
    access: 'user',
    allowDuringPasswordReset: true,
    allowStaff: true,
    data: brandingSchema,
  }),
  importDistributors: route({
    method: 'POST',
    path: '/imports/distributer',
    summary: 'Create or update distributors by externalId',
    tag: 'Imports',
    access: 'operator',
    body: importBody,
    data: importReportSchema,
  }),
  importResellers: route({
    method: 'POST',
    path: '/imports/reseller',
    summary: 'Create or update resellers by externalId',
    tag: 'Imports',
    access: 'operator',
    body: importBody,
    data: importReportSchema,
  }),
  importHosts: route({
    method: 'POST',
    path: '/imports/host',
    summary: 'Register or update libvirt hosts by name (capacity read from the host when not given)',
    tag: 'Imports',
    access: 'operator',
    body: importBody,
    data: importReportSchema,
  }),
  importPublicAddresses: route({
    method: 'POST',
    path: '/imports/publicAddress',
    summary: "Add addresses (a.b.c.d, a.b.c.d-e or a.b.c.d/nn) to a region's public pool",
    tag: 'Imports',
    access: 'operator',
    body: importBody,
    data: importReportSchema,
  }),
  importCompanies: route({
    method: 'POST',
    path: '/imports/company',
    summary: 'Create or update companies by externalId',
    tag: 'Imports',
    access: 'operator',
    body: importBody,
    data: importReportSchema,
  }),
  debug: route({
    method: 'GET',
    path: '/debug/debugSharktech',
    summary: "The provider drivers' diagnostics",
    tag: 'Operator',
    access: 'operator',
    data: z.array(z.object({ provider: z.string(), driver: z.string(), healthy: z.boolean(), detail: z.unknown() })),
  }),
  loadCpu: route({
    method: 'POST',
    path: '/profiling/loadcpu',
    summary: 'Busy the CPU for a bounded time (profiling aid)',
    tag: 'Operator',
    access: 'operator',
    body: z.object({ durationMs: z.number().int().min(1).max(10_000).default(1000) }).strict(),
    data: z.object({ durationMs: z.number(), iterations: z.number() }),
  }),
  healthApi: route({
    method: 'GET',
    path: '/healthCheck/api',
    summary: 'The API process answers',
    tag: 'Health',
    access: 'public',
    data: healthData,
  }),
  healthDatabase: route({
    method: 'GET',
    path: '/healthCheck/database',
    summary: 'A real database query',
    tag: 'Health',
    access: 'public',
    data: healthData,
  }),
  healthRemoteApi: route({
    method: 'GET',
    path: '/healthCheck/remoteAPI',
    summary: "Each provider driver's health",
    tag: 'Health',
    access: 'public',
    data: healthData,
  }),
  logging: route({
    method: 'POST',
    path: '/logging',
    summary: 'A client-side error report',
    tag: 'Logging',
    access: 'public',
    allowDuringPasswordReset: true,
    body: z
      .object({
        level: z.enum(['error', 'warn', 'info']).default('error'),
        message: text().min(1).max(LIMITS.logMessage),
        stack: text()
          .max(LIMITS.logMessage * 4)
          .optional(),
        url: line().max(2048).optional(),
        userAgent: line().max(512).optional(),
      })
      .strict(),
    data: z.null(),
  }),
  sendSupportEmail: route({
    method: 'POST',
    path: '/support/sendEmail',
    summary: "Send a message to the reseller's support address",
    tag: 'Support',
    access: 'user',
    body: supportMessageBody,
    data: z.object({ id: z.number().int() }),
  }),
} as const;
