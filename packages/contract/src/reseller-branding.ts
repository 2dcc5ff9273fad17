/**
 * Reseller branding and custom domains (issue 13, part 3): the brand a host shows before sign-in, and the
 * reseller area's branding screen (name, logos, sender and support addresses, the domains the portal answers on).
 */
import './zod-setup.ts';
import { z } from 'zod';
import { route, timestampSchema } from './common.ts';
import { LIMITS } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { BRAND_URL_PATTERN } from './platform.ts';
import { SINGLE_LINE_PATTERN } from './validation.ts';

/** The texts of this area, typed once for the screen, the server and the tests. */
export const BRANDING_TEXT = {
  pageTitle: 'Branding',
  saved: 'Branding saved',
  nameRequired: 'Name is required',
  emailFormat: 'Enter a valid email address',
  hostFormat: 'Enter a host name such as portal.example.com (no scheme, port or path)',
  hostTaken: 'This domain is already in use by another portal',
  hostExists: 'This domain is already on your list',
  domainNotFound: 'Domain not found',
  domainAdded: 'Domain added',
  domainRemoved: 'Domain removed',
  primarySet: 'Primary domain set',
  previewHeading: 'Preview',
  // Claim rules and proof of control (issue 21).
  hostPlatform: "This is one of the platform's own addresses; it cannot be a custom domain",
  hostPublicSuffix:
    'This is a public suffix shared by many owners; enter a name under a domain you own, such as portal.example.co.uk',
  hostAddress: 'Enter a host name, not an IP address',
  domainPendingPrimary: 'Verify this domain before making it primary',
  domainVerified: 'Domain verified',
  domainStillPending: 'The domain is still pending verification',
  statePending: 'Pending verification',
  stateVerified: 'Verified',
  verifyButton: 'Verify',
  recordHeading: 'Publish this DNS TXT record, then press Verify',
  recordName: 'Name',
  recordValue: 'Value',
  lastCheck: 'Last check',
} as const;

/** Where the proof of control lives: a TXT record under the domain (docs/custom-domains.md). */
export const VERIFY_RECORD_PREFIX = '_portal-verify';
export const VERIFY_VALUE_PREFIX = 'portal-verify=';
export const verificationRecordOf = (host: string, token: string) => ({
  name: `${VERIFY_RECORD_PREFIX}.${host}`,
  value: `${VERIFY_VALUE_PREFIX}${token}`,
});

/** Why a check found no proof: the record and value it looked for, so the owner can compare with their DNS. */
export const verifyFailedText = (record: { name: string; value: string }) =>
  `No TXT record ${record.name} with the value ${record.value} was found`;
/** Another reseller claimed the host first but has not proven it: the newcomer may take it over with its own proof. */
export const hostPendingElsewhereText = (record: { name: string; value: string }) =>
  `Another portal has claimed this domain but not verified it. If it is yours, publish the TXT record ${record.name} with the value ${record.value}, then add it again.`;

/** What anyone may see before signing in: the brand of the reseller whose domain was asked (never addresses). */
export const publicBrandSchema = z.object({
  resellerName: z.string().nullable(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
});
export type PublicBrand = z.infer<typeof publicBrandSchema>;

/** A logo URL as the branding form takes it: empty (none), or https:/http:/data:image/*. */
const optionalBrandUrl = z
  .string()
  .trim()
  .max(2048)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
  .refine((v) => v === '' || (z.url().safeParse(v).success && BRAND_URL_PATTERN.test(v)), VALIDATION.brandUrl)
  .nullable();

const optionalEmail = z
  .string()
  .trim()
  .max(LIMITS.email)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
  .refine((v) => v === '' || z.email().safeParse(v).success, BRANDING_TEXT.emailFormat)
  .nullable();

/** The branding form and the update body: empty strings mean "none" (the server stores null). */
export const brandingFormSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, BRANDING_TEXT.nameRequired)
      .max(LIMITS.name)
      .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
    logoUrl: optionalBrandUrl,
    tabLogoUrl: optionalBrandUrl,
    /** The sender address of every mail of this reseller's portal. */
    email: optionalEmail,
    /** Where support messages of its customers go. */
    supportEmail: optionalEmail,
  })
  .strict();
export type BrandingForm = z.input<typeof brandingFormSchema>;

export const resellerBrandingSchema = z.object({
  name: z.string(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
  email: z.string().nullable(),
  supportEmail: z.string().nullable(),
});

/** Lower-case DNS name of two or more labels; no scheme, port, path or trailing dot. */
export const HOST_PATTERN =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const hostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, BRANDING_TEXT.hostFormat)
  .regex(HOST_PATTERN, BRANDING_TEXT.hostFormat);

export const DOMAIN_STATES = ['pending', 'verified'] as const;
export const resellerDomainSchema = z.object({
  host: z.string(),
  isPrimary: z.boolean(),
  /** Only a verified domain serves: brand, sign-in, mailed links (issue 21). */
  state: z.enum(DOMAIN_STATES),
  /** The TXT record that proves control of the host. */
  record: z.object({ name: z.string(), value: z.string() }),
  lastCheckedAt: timestampSchema.nullable(),
  /** Why the last check failed (null once verified, or never checked). */
  lastCheckError: z.string().nullable(),
});
export type ResellerDomain = z.infer<typeof resellerDomainSchema>;

export const brandingPageSchema = z.object({
  branding: resellerBrandingSchema,
  domains: z.array(resellerDomainSchema),
});

const hostParams = z.object({ host: hostSchema });

export const resellerBrandingRoutes = {
  publicBrand: route({
    method: 'GET',
    path: '/resellers/brand',
    summary: "The brand of the portal at the request's host (before sign-in); the defaults for an unknown host",
    tag: 'Resellers',
    access: 'public',
    data: publicBrandSchema,
  }),
  get: route({
    method: 'GET',
    path: '/reseller/branding',
    summary: "The staff member's reseller: branding and custom domains",
    tag: 'Reseller area',
    access: 'staff',
    data: brandingPageSchema,
  }),
  update: route({
    method: 'PUT',
    path: '/reseller/branding',
    summary: 'Change the name, logos, sender and support addresses (owner)',
    tag: 'Reseller area',
    access: 'staff',
    body: brandingFormSchema,
    data: brandingPageSchema,
  }),
  addDomain: route({
    method: 'POST',
    path: '/reseller/domains',
    summary: 'Add a custom domain (owner); it serves once verified, and the first verified one becomes primary',
    tag: 'Reseller area',
    access: 'staff',
    body: z.object({ host: hostSchema, isPrimary: z.boolean().optional() }).strict(),
    data: brandingPageSchema,
  }),
  removeDomain: route({
    method: 'DELETE',
    path: '/reseller/domains/:host',
    summary: 'Remove a custom domain (owner)',
    tag: 'Reseller area',
    access: 'staff',
    params: hostParams,
    data: brandingPageSchema,
  }),
  setPrimaryDomain: route({
    method: 'POST',
    path: '/reseller/domains/:host/primary',
    summary: 'Make a domain the one mailed links use (owner)',
    tag: 'Reseller area',
    access: 'staff',
    params: hostParams,
    body: z.object({}).strict().optional(),
    data: brandingPageSchema,
  }),
  verifyDomain: route({
    method: 'POST',
    path: '/reseller/domains/:host/verify',
    summary:
      "Check the domain's DNS TXT record now; verified, it serves (owner). 409 with what was looked for when absent",
    tag: 'Reseller area',
    access: 'staff',
    params: hostParams,
    body: z.object({}).strict().optional(),
    data: brandingPageSchema,
  }),
} as const;
