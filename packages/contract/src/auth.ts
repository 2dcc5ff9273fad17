import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, idSchema, route, timestampSchema } from './common.ts';
import { LIMITS } from './constants.ts';
import { preferencesSchema } from './account.ts';
import { staffRoleSchema } from './permissions.ts';
import { VALIDATION } from './messages.ts';
import {
  SINGLE_LINE_PATTERN,
  loginEmailSchema,
  mfaFormSchema,
  newPasswordSchema,
  passwordInputSchema,
} from './validation.ts';

/** The signed-in user as the portal holds it (SPEC point 3, "User (auth state)"). */
export const authUserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  createdAt: timestampSchema,
  forcePasswordReset: z.boolean(),
  /** A single-use key for the forced reset; only present once the emailed code was accepted. */
  resetKey: z.string().nullable(),
  resellerName: z.string().nullable(),
  resellerEmail: z.string().nullable(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
  /** The reseller's accent colour (#rrggbb, issue 25 item 8); absent when it has none. */
  accentColor: z.string().optional(),
  companyName: z.string(),
  isCompanyAdmin: z.boolean(),
  /** Set for reseller staff (issue 13): they land in the reseller area, never in the customer portal. */
  staffRole: staffRoleSchema.nullable(),
  /** The account page's theme and date format (docs/account.md), applied by the portal as it signs in. */
  preferences: preferencesSchema,
});
export type AuthUser = z.infer<typeof authUserSchema>;

const userData = z.object({ user: authUserSchema });

/**
 * The user as known before the emailed code is accepted: only what the MFA screen shows (where the code
 * went, from which brand). The profile (names, company, admin flag) comes once the code is accepted.
 */
export const pendingUserSchema = z.object({
  email: z.string(),
  resellerName: z.string().nullable(),
  resellerEmail: z.string().nullable(),
  logoUrl: z.string().nullable(),
  tabLogoUrl: z.string().nullable(),
  forcePasswordReset: z.boolean(),
  /** Always null here: a forced reset's key is issued once the code is accepted. */
  resetKey: z.null(),
  /**
   * The second step asked for (docs/two-factor.md): 'authenticator' for a user with an authenticator app (no
   * email was sent; "Email me a code instead" asks for one); absent for the emailed code (the spec's answer).
   */
  secondFactor: z.enum(['email', 'authenticator', 'passkey']).optional(),
  /**
   * The strong factors the user has, strongest first (passkey, authenticator), when they have any: the sign-in
   * offers `secondFactor` (the first) and lets the user switch to another (docs/two-factor.md "Passkeys").
   */
  factors: z.array(z.enum(['passkey', 'authenticator'])).optional(),
  /** false when the user's company requires the app: no "Email me a code instead" (docs/two-factor.md). */
  emailFallback: z.literal(false).optional(),
});
export type PendingUser = z.infer<typeof pendingUserSchema>;

export const authRoutes = {
  login: route({
    method: 'POST',
    path: '/auth/login',
    summary: 'Check email and password; on success mail a one-time code and start a session awaiting it',
    tag: 'Auth',
    access: 'public',
    sessionOnly: true,
    body: z
      .object({ email: loginEmailSchema, password: passwordInputSchema, rememberMe: z.boolean().optional() })
      .strict(),
    data: z.object({ user: pendingUserSchema }),
  }),
  mfa: route({
    method: 'POST',
    path: '/auth/mfa',
    summary: 'Accept the emailed code and complete sign-in',
    tag: 'Auth',
    access: 'mfaPending',
    body: mfaFormSchema.strict(),
    data: userData,
  }),
  check: route({
    method: 'GET',
    path: '/auth/check',
    summary:
      'The signed-in user, or 401. `authed` is false while the emailed code is still due (and `user` is then only what the MFA screen needs).',
    tag: 'Auth',
    access: 'mfaPending',
    allowDuringPasswordReset: true,
    data: z.discriminatedUnion('authed', [
      z.object({
        authed: z.literal(true),
        user: authUserSchema,
        /**
         * Present (true) only while a policy holds the user to the set-up of a strong factor (docs/two-factor.md
         * "Company policy"): the portal then keeps them on /security. Absent otherwise: the spec's answer.
         */
        mustSetUpTwoFactor: z.literal(true).optional(),
      }),
      z.object({ authed: z.literal(false), user: pendingUserSchema }),
    ]),
  }),
  logout: route({
    method: 'POST',
    path: '/auth/logout',
    summary: 'End the session on the server and clear its cookie',
    tag: 'Auth',
    access: 'public',
    allowDuringPasswordReset: true,
    sessionOnly: true,
    body: emptyBodySchema,
    data: z.null(),
  }),
  refreshAuth: route({
    method: 'POST',
    path: '/auth/refreshAuth',
    summary: 'Extend the session and return the current user',
    tag: 'Auth',
    access: 'user',
    allowDuringPasswordReset: true,
    allowStaff: true,
    sessionOnly: true,
    body: emptyBodySchema,
    data: userData,
  }),
  shouldResetPassword: route({
    method: 'POST',
    path: '/auth/shouldResetPassword',
    summary: 'Whether the signed-in user must set a new password before going on',
    tag: 'Auth',
    access: 'user',
    allowDuringPasswordReset: true,
    allowStaff: true,
    sessionOnly: true,
    body: emptyBodySchema,
    data: z.object({ forcePasswordReset: z.boolean(), resetKey: z.string().nullable() }),
  }),
} as const;

export const passwordRoutes = {
  me: route({
    method: 'GET',
    path: '/users/me',
    summary: 'The signed-in user with branding',
    tag: 'Users',
    access: 'user',
    allowDuringPasswordReset: true,
    allowStaff: true,
    data: authUserSchema,
  }),
  forgotPassword: route({
    method: 'POST',
    path: '/users/forgotPassword',
    summary: 'Mail a reset link if the account exists; the answer never tells',
    tag: 'Users',
    access: 'public',
    body: z
      .object({
        email: z.string().trim().min(1).max(LIMITS.email).regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
      })
      .strict(),
    data: z.null(),
  }),
  resetPasswordFromEmail: route({
    method: 'POST',
    path: '/users/resetPasswordFromEmail/:token',
    summary:
      "Set a new password with the emailed key. The path carries the user id (the link's `id`), the body the key (the link's `token`).",
    tag: 'Users',
    access: 'public',
    params: z.object({ token: idSchema }),
    body: z.object({ password: newPasswordSchema, resetKey: z.string().min(1).max(200) }).strict(),
    data: z.null(),
  }),
  confirmEmail: route({
    method: 'POST',
    path: '/users/confirmEmail/:token',
    summary: 'Accept an invitation: set names and password. The path carries the user id, the body the invite key.',
    tag: 'Users',
    access: 'public',
    params: z.object({ token: idSchema }),
    body: z
      .object({
        password: newPasswordSchema,
        resetKey: z.string().min(1).max(200),
        firstName: z
          .string()
          .trim()
          .min(1, 'First Name is Required')
          .max(LIMITS.name)
          .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
        lastName: z
          .string()
          .trim()
          .min(1, 'Last Name is Required')
          .max(LIMITS.name)
          .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters),
      })
      .strict(),
    data: z.null(),
  }),
  updatePassword: route({
    method: 'POST',
    path: '/users/updatePassword',
    summary: "Change the signed-in user's password (the current one is required)",
    tag: 'Users',
    access: 'user',
    allowDuringPasswordReset: true,
    allowStaff: true,
    sessionOnly: true,
    body: z.object({ currentPassword: passwordInputSchema, password: newPasswordSchema }).strict(),
    data: z.null(),
  }),
} as const;
