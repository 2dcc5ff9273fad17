/**
 * Personal API tokens (issue 26 item 4; docs/api-tokens.md): a user's bearer tokens for the customer routes.
 * The secret is shown once, in the create answer; lists never carry it. None of these routes answers a token
 * caller (`sessionOnly`): a token cannot mint or revoke tokens.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, idSchema, route, timestampSchema } from './common.ts';
import { LIMITS } from './constants.ts';
import { VALIDATION } from './messages.ts';
import { SINGLE_LINE_PATTERN } from './validation.ts';

/** Every personal token starts with this, so a leaked one is recognisable (secret scanners) and told from an operator's. */
export const API_TOKEN_PREFIX = 'vmp_';
/** The longest a token may live. */
export const API_TOKEN_MAX_DAYS = 365;
/** At most this many addresses or ranges in a token's allow-list, and live tokens per user. */
export const API_TOKEN_LIMITS = { ipAllowList: 20, liveTokensPerUser: 50 } as const;

export const API_TOKEN_SCOPES = ['read', 'act'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

export const API_TOKEN_TEXT = {
  nameRequired: 'Name is required',
  expiryPast: 'The expiry must be in the future',
  expiryTooFar: `A token can live at most ${API_TOKEN_MAX_DAYS} days`,
  teamsOnlyForAct: 'Teams can only be chosen for a token that acts',
  notYourTeam: 'Choose teams you are a member of',
  badAddress: 'Enter an IP address or a range such as 203.0.113.0/24',
  tooManyAddresses: `At most ${API_TOKEN_LIMITS.ipAllowList} addresses`,
  tooManyTokens: `At most ${API_TOKEN_LIMITS.liveTokensPerUser} live tokens per user`,
  notFound: 'Token not found',
  created: 'Token created: copy it now, it will not be shown again',
  revoked: 'Token revoked',
  sessionOnly: 'This call needs a signed-in session; an API token cannot make it',
  readOnly: 'This API token is read-only',
  invalid: 'The API token is invalid, expired or revoked',
  addressRefused: 'The API token cannot be used from this address',
} as const;

const ipOrRange = z
  .string()
  .trim()
  .pipe(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()], { error: API_TOKEN_TEXT.badAddress }));

export const createApiTokenBodySchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, API_TOKEN_TEXT.nameRequired)
      .max(LIMITS.name, `At most ${LIMITS.name} characters`)
      .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
    scope: z.enum(API_TOKEN_SCOPES),
    /** Only for 'act': the teams it may act in; omitted or null = all the user's teams. */
    teamIds: z.array(idSchema).min(1).max(100).nullable().optional(),
    expiresAt: timestampSchema,
    ipAllowList: z.array(ipOrRange).max(API_TOKEN_LIMITS.ipAllowList, API_TOKEN_TEXT.tooManyAddresses).default([]),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.scope === 'read' && b.teamIds != null)
      ctx.addIssue({ code: 'custom', path: ['teamIds'], message: API_TOKEN_TEXT.teamsOnlyForAct });
  });
export type CreateApiTokenBody = z.input<typeof createApiTokenBodySchema>;

export const apiTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** `vmp_` and the secret's first characters: enough to recognise it, never enough to use it. */
  hint: z.string(),
  scope: z.enum(API_TOKEN_SCOPES),
  teamIds: z.array(z.number().int()).nullable(),
  ipAllowList: z.array(z.string()),
  createdAt: timestampSchema,
  expiresAt: timestampSchema,
  lastUsedAt: timestampSchema.nullable(),
  lastUsedIp: z.string().nullable(),
  revokedAt: timestampSchema.nullable(),
  /** 'active' | 'expired' | 'revoked', as of the answer. */
  state: z.enum(['active', 'expired', 'revoked']),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** What the company administrators' list adds: whose token it is. */
export const companyApiTokenSchema = apiTokenSchema.extend({
  userId: z.number().int(),
  userEmail: z.string(),
});
export type CompanyApiToken = z.infer<typeof companyApiTokenSchema>;

export const companyApiTokensQuerySchema = z.object({ userId: idSchema.optional() });

const base = { tag: 'API tokens', access: 'user', sessionOnly: true } as const;

export const apiTokenRoutes = {
  list: route({
    ...base,
    method: 'GET',
    path: '/users/apiTokens',
    summary: "The caller's personal API tokens (never their secrets), newest first",
    data: z.array(apiTokenSchema),
  }),
  create: route({
    ...base,
    method: 'POST',
    path: '/users/apiTokens',
    summary: 'Create a personal API token; the answer carries the secret, shown this once',
    body: createApiTokenBodySchema,
    data: z.object({ token: z.string(), apiToken: apiTokenSchema }),
  }),
  revoke: route({
    ...base,
    method: 'DELETE',
    path: '/users/apiTokens/:id',
    summary: "Revoke one of the caller's tokens: refused at once on every instance",
    params: idParamsSchema,
    data: apiTokenSchema,
  }),
  companyList: route({
    ...base,
    method: 'GET',
    path: '/companyAdmin/apiTokens',
    summary: "Company administrators: the company's users' API tokens (optionally one user's)",
    query: companyApiTokensQuerySchema,
    data: z.array(companyApiTokenSchema),
  }),
  companyRevoke: route({
    ...base,
    method: 'DELETE',
    path: '/companyAdmin/apiTokens/:id',
    summary: "Company administrators: revoke a company user's API token",
    params: idParamsSchema,
    data: companyApiTokenSchema,
  }),
} as const;
