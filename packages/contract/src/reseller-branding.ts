/**
 * Reseller branding and custom domains (issue 13, part 3): the brand a host shows before sign-in, and the
 * reseller area's branding screen (name, logos, sender and support addresses, the domains the portal answers on).
 */
import './zod-setup.ts';
import { z } from 'zod';
import { ACCENT_PATTERN } from './brand-colors.ts';
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
  // Uploaded logo and tab icon, the accent colour (issue 25 item 8).
  logoUploaded: 'Logo uploaded',
  iconUploaded: 'Tab icon uploaded',
  uploadEmpty: 'The file is empty',
  uploadNotImage: 'The file is not a PNG, JPEG or WebP image',
  uploadSvg: 'SVG files are not accepted: upload a PNG, JPEG or WebP image',
  uploadDimensions: 'The image must be between 16 and 4096 pixels wide and high',
  accentFormat: 'Enter a colour as #rrggbb, such as #2563eb',
  logoDoesNotLoad: 'This logo URL does not load as an image; check the address or upload the file instead',
  iconDoesNotLoad: 'This tab icon URL does not load as an image; check the address or upload the file instead',
} as const;

/** What a reseller may upload: the sidebar and sign-in logo, and the browser tab's icon. */
export const BRAND_ASSET_KINDS = ['logo', 'icon'] as const;
export type BrandAssetKind = (typeof BRAND_ASSET_KINDS)[number];
/** Largest file of each kind, in bytes. */
export const BRAND_ASSET_MAX_BYTES: Record<BrandAssetKind, number> = { logo: 512 * 1024, icon: 128 * 1024 };
/** The types accepted, as their bytes say (never the browser's claim). */
export const BRAND_ASSET_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
/** The base64 the upload route reads: room for files well over the limits, so those hear uploadTooLargeText. */
export const BRAND_UPLOAD_MAX_CHARS = 1_500_000;
export const uploadTooLargeText = (kind: BrandAssetKind) =>
  `The ${kind === 'logo' ? 'logo' : 'tab icon'} may be at most ${BRAND_ASSET_MAX_BYTES[kind] / 1024} KB`;
/**
 * Where the portal serves an uploaded asset (public, under the API's base path): `<base>/resellers/<id>/brand/<kind>`
 * with `?v=` the first hex digits of its SHA-256, so a new upload is a new address. The brand stores it as a path.
 */
export const BRAND_ASSET_PATH = /^\/[A-Za-z0-9/_.-]*\/resellers\/\d+\/brand\/(logo|icon)(\?v=[0-9a-f]{1,64})?$/;

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
  /** The reseller's accent colour (#rrggbb); absent when it has none (the portal's own blue). */
  accentColor: z.string().optional(),
});
export type PublicBrand = z.infer<typeof publicBrandSchema>;

/** A logo URL as the branding form takes it: empty (none), https:/http:/data:image/*, or an uploaded asset's path. */
const optionalBrandUrl = z
  .string()
  .trim()
  .max(2048)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters)
  .refine(
    (v) => v === '' || BRAND_ASSET_PATH.test(v) || (z.url().safeParse(v).success && BRAND_URL_PATTERN.test(v)),
    VALIDATION.brandUrl,
  )
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
    /** Buttons, links and highlights of the portal for this brand; empty or left out: the portal's own blue. */
    accentColor: z
      .string()
      .trim()
      .refine((v) => v === '' || ACCENT_PATTERN.test(v), BRANDING_TEXT.accentFormat)
      .nullable()
      .optional(),
  })
  .strict();
export type BrandingForm = z.input<typeof brandingFormSchema>;

export const resellerBrandingSchema = z.object({
  name: z.string(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
  email: z.string().nullable(),
  supportEmail: z.string().nullable(),
  /** #rrggbb; absent when the reseller has none (the portal's own blue). */
  accentColor: z.string().optional(),
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
  uploadAsset: route({
    method: 'PUT',
    path: '/reseller/branding/assets/:kind',
    summary:
      "Upload the logo or tab icon (owner): PNG, JPEG or WebP by its bytes, base64 in `data`; it becomes the brand's logo or tab icon",
    tag: 'Reseller area',
    access: 'staff',
    params: z.object({ kind: z.enum(BRAND_ASSET_KINDS) }),
    body: z
      .object({
        /** The file, base64. Its type is read from its bytes; `fileName` and `contentType` are only what the browser said. */
        data: z.string().max(BRAND_UPLOAD_MAX_CHARS),
        fileName: z.string().max(255).optional(),
        contentType: z.string().max(255).optional(),
      })
      .strict(),
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
