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

export { SSO_CALLBACK_PATH, SSO_FLOW_TTL_MS, SSO_MAX_DOMAINS, SSO_TEXT } from './single-sign-on-text.ts';
import { SSO_MAX_DOMAINS } from './single-sign-on-text.ts';

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
    sessionOnly: true,
    body: z.object({ email: loginEmailSchema, rememberMe: z.boolean().optional() }).strict(),
    data: z.object({ url: z.string() }),
  }),
  callback: route({
    method: 'POST',
    path: '/auth/oidc/callback',
    summary: "Finish single sign-on with the identity provider's answer (the callback's query string)",
    tag: 'Auth',
    access: 'public',
    sessionOnly: true,
    body: z.object({ query: z.string().max(8192) }).strict(),
    data: z.object({ user: authUserSchema }),
  }),
} as const;
