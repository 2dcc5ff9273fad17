/**
 * Single sign-on per company with OpenID Connect (issue 26 item 3; docs/single-sign-on.md): a company
 * administrator configures the company's issuer, its users sign in through it from the login page (found by their
 * email's domain), and the company may turn passwords off for them.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, route, timestampSchema } from './common.ts';
import { SINGLE_LINE_PATTERN, loginEmailSchema } from './validation.ts';
import { authUserSchema } from './auth.ts';

/** Where the identity provider sends the browser back, under the portal's base path (the redirect URI). */
export const SSO_CALLBACK_PATH = '/auth/oidc/callback';
/** How long a started sign-in may take at the identity provider before its cookie is gone. */
export const SSO_FLOW_TTL_MS = 10 * 60_000;
export const SSO_MAX_DOMAINS = 20;

export const SSO_TEXT = {
  // Company administrators' page
  pageTitle: 'Single sign-on',
  intro:
    "Let your company's users sign in with your identity provider (OpenID Connect). Users are matched to their existing account by verified email; no account is created.",
  issuerLabel: 'Issuer URL',
  issuerHint: 'The issuer of your identity provider, e.g. https://login.example.com/realms/company',
  clientIdLabel: 'Client ID',
  clientSecretLabel: 'Client secret',
  clientSecretKept: 'A secret is stored. Leave empty to keep it.',
  domainsLabel: 'Email domains',
  domainsHint: 'Comma separated, e.g. example.com, example.org. A domain belongs to one company only.',
  redirectUriLabel: 'Redirect URI to register at your identity provider',
  enabledLabel: 'Single sign-on is on',
  passwordsDisabledLabel: 'Users of these domains sign in with single sign-on only (no password)',
  passwordsDisabledHint:
    'Their password sign-in is refused. Users with an email of another domain (e.g. an administrator kept for emergencies) and reseller staff are not affected.',
  test: 'Test connection',
  save: 'Save',
  disable: 'Turn off single sign-on',
  confirmDisableTitle: 'Turn off single sign-on?',
  confirmDisableBody: 'Users will sign in with their password and the emailed code again.',
  testOk: (issuer: string) => `The issuer answered: ${issuer}`,
  savedMessage: 'Single sign-on saved',
  disabledMessage: 'Single sign-on turned off',
  notConfiguredYet: 'Single sign-on is not set up.',
  // Login page
  signInWithSso: 'Sign in with single sign-on',
  typeEmailFirst: 'Type your work email, then choose single sign-on',
  callbackTitle: 'Signing you in',
  callbackWorking: 'Completing single sign-on…',
  backToLogin: 'Return to Login',
  // Answers
  notConfigured: 'Single sign-on is not set up for this email address',
  noAccount: 'No account of your company matches this sign-in: ask your company administrator to invite you',
  emailNotVerified: 'Your identity provider has not verified your email address',
  failed: 'Single sign-on did not complete: start again from the login page',
  passwordsDisabled: 'Your company signs in with single sign-on: choose "Sign in with single sign-on"',
  domainTaken: 'A domain is already used by another company',
  issuerUnreachable: 'The issuer did not answer with an OpenID Connect discovery document',
  issuerInsecure: 'The issuer must use https',
  secretRequired: 'Client secret is required',
  adminsOnly: 'Only company administrators can change single sign-on',
} as const;

const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const ssoDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(DOMAIN_PATTERN, 'Each domain must look like example.com');

const issuerSchema = z
  .string({ error: 'Issuer URL is required' })
  .trim()
  .min(1, { error: 'Issuer URL is required', abort: true })
  .max(2048, 'Issuer URL is too long')
  .regex(SINGLE_LINE_PATTERN, 'Issuer URL must be one line')
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.hash;
    } catch {
      return false;
    }
  }, 'Issuer URL must be a URL such as https://login.example.com');

export const ssoConnectionSchema = z.object({
  issuer: z.string(),
  clientId: z.string(),
  /** Whether a client secret is stored (it is never answered). */
  hasClientSecret: z.boolean(),
  domains: z.array(z.string()),
  enabled: z.boolean(),
  passwordsDisabled: z.boolean(),
  updatedAt: timestampSchema,
});
export type SsoConnection = z.infer<typeof ssoConnectionSchema>;

export const ssoSettingsSchema = z.object({
  connection: ssoConnectionSchema.nullable(),
  /** The redirect URI to register at the identity provider. */
  redirectUri: z.string(),
});

export const ssoSaveBodySchema = z
  .object({
    issuer: issuerSchema,
    clientId: z
      .string({ error: 'Client ID is required' })
      .trim()
      .min(1, 'Client ID is required')
      .max(255, 'Client ID is too long')
      .regex(SINGLE_LINE_PATTERN, 'Client ID must be one line'),
    /** Left out (or empty) keeps the stored secret. */
    clientSecret: z.string().max(1024, 'Client secret is too long').optional(),
    domains: z
      .array(ssoDomainSchema)
      .min(1, 'At least one email domain is required')
      .max(SSO_MAX_DOMAINS, `At most ${SSO_MAX_DOMAINS} domains`),
    enabled: z.boolean(),
    passwordsDisabled: z.boolean(),
  })
  .strict();
export type SsoSaveBody = z.input<typeof ssoSaveBodySchema>;

/** Company administrators only, the caller's own company; never with a personal API token. */
const admin = { tag: 'Single sign-on', access: 'user', sessionOnly: true } as const;

export const ssoRoutes = {
  get: route({
    ...admin,
    method: 'GET',
    path: '/company/sso',
    summary: "The company's single sign-on connection (company administrators; the secret is never answered)",
    data: ssoSettingsSchema,
  }),
  save: route({
    ...admin,
    method: 'PUT',
    path: '/company/sso',
    summary: 'Configure single sign-on (company administrators): issuer, client, email domains, on/off, passwords off',
    body: ssoSaveBodySchema,
    data: ssoSettingsSchema,
  }),
  disable: route({
    ...admin,
    method: 'POST',
    path: '/company/sso/disable',
    summary: 'Turn single sign-on off (company administrators); the settings are kept',
    body: emptyBodySchema,
    data: ssoSettingsSchema,
  }),
  test: route({
    ...admin,
    method: 'POST',
    path: '/company/sso/test',
    summary: "Fetch the issuer's discovery document through the portal's network policy",
    body: z.object({ issuer: issuerSchema }).strict(),
    data: z.object({ issuer: z.string(), authorizationEndpoint: z.string() }),
  }),
  start: route({
    method: 'POST',
    path: '/auth/oidc/start',
    summary: "Start single sign-on for an email's domain: answers the identity provider's URL to go to",
    tag: 'Auth',
    access: 'public',
    body: z.object({ email: loginEmailSchema, rememberMe: z.boolean().optional() }).strict(),
    data: z.object({ url: z.string() }),
  }),
  callback: route({
    method: 'POST',
    path: '/auth/oidc/callback',
    summary: "Finish single sign-on with the identity provider's answer (the callback's query string)",
    tag: 'Auth',
    access: 'public',
    body: z.object({ query: z.string().max(8192) }).strict(),
    data: z.object({ user: authUserSchema }),
  }),
} as const;
