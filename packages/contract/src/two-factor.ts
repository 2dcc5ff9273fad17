/**
 * Authenticator apps (TOTP, RFC 6238) with recovery codes (issue 26 item 1; docs/two-factor.md): the
 * signed-in user's enrolment routes, and the sign-in's "Email me a code instead".
 */
import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, route, timestampSchema } from './common.ts';
import { passwordInputSchema } from './validation.ts';

/** How many recovery codes a user holds at a time; each works once. */
export const RECOVERY_CODE_COUNT = 10;
/** Time step of the codes (seconds) and the steps either side that are accepted (clock drift). */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_WINDOW_STEPS = 1;

export const TWO_FACTOR_TEXT = {
  pageTitle: 'Security',
  heading: 'Two-factor authentication',
  intro:
    'Use an authenticator app (such as Google Authenticator, Microsoft Authenticator or 1Password) for the code you give after your password.',
  enabled: 'An authenticator app is set up for your account.',
  disabled: 'No authenticator app is set up. After your password you receive a code by email.',
  start: 'Set up an authenticator app',
  scan: 'Scan this QR code with your authenticator app, or enter the key by hand, then type the 6-digit code it shows.',
  secretLabel: 'Key',
  codeLabel: 'Code from your app',
  confirm: 'Turn on',
  cancel: 'Cancel',
  recoveryHeading: 'Your recovery codes',
  recoveryBody:
    'Keep these codes somewhere safe. Each works once, instead of a code from your app, if you lose your phone. They are shown only now.',
  recoveryLeft: (n: number) => `${n} of ${RECOVERY_CODE_COUNT} recovery codes left.`,
  regenerate: 'New recovery codes',
  regenerateHint: 'Replaces the old codes. Type a current code from your app.',
  remove: 'Remove authenticator',
  removeHint: 'Type a current code from your app, or your password.',
  passwordLabel: 'Or your password',
  done: 'I have saved these codes',
  // Sign-in
  signInHeading: 'Enter your authenticator code',
  signInBody: 'Open your authenticator app and type the 6-digit code it shows, or one of your recovery codes.',
  emailInstead: 'Email me a code instead',
  emailSent: 'A verification code was sent to your email',
  // Answers
  enabledMessage: 'Authenticator app turned on',
  removedMessage: 'Authenticator app removed',
  regeneratedMessage: 'New recovery codes made; the old ones no longer work',
  wrongCode: 'That code is not right. Type the current code from your app.',
  wrongCodeOrPassword: 'Type a current code from your app or your password.',
  notStarted: 'Start the set-up first',
  alreadyEnabled: 'An authenticator app is already set up. Remove it first.',
  notEnabled: 'No authenticator app is set up',
} as const;

export const twoFactorStatusSchema = z.object({
  enabled: z.boolean(),
  enabledAt: timestampSchema.nullable(),
  recoveryCodesLeft: z.number().int(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

const codeSchema = z
  .string({ error: TWO_FACTOR_TEXT.wrongCode })
  .trim()
  .regex(/^\d{6}$/, TWO_FACTOR_TEXT.wrongCode);

/** Session-only (docs/api-tokens.md): an API token cannot see or change the account's second factor. */
const base = { tag: 'Two-factor', access: 'user', allowStaff: true, sessionOnly: true } as const;

export const twoFactorRoutes = {
  status: route({
    ...base,
    method: 'GET',
    path: '/users/twoFactor',
    summary: 'Whether the caller has an authenticator app, and how many recovery codes are left',
    data: twoFactorStatusSchema,
  }),
  start: route({
    ...base,
    method: 'POST',
    path: '/users/twoFactor/start',
    summary:
      'Make a new secret (not yet in force): its otpauth:// URI and a QR code of it (an SVG data URL). Confirm with a code to turn it on',
    body: emptyBodySchema,
    data: z.object({ secret: z.string(), uri: z.string(), qrCode: z.string() }),
  }),
  confirm: route({
    ...base,
    method: 'POST',
    path: '/users/twoFactor/confirm',
    summary: 'Turn the started authenticator on with a current code; answers the recovery codes, shown once',
    body: z.object({ code: codeSchema }).strict(),
    data: z.object({ recoveryCodes: z.array(z.string()) }),
  }),
  regenerateRecoveryCodes: route({
    ...base,
    method: 'POST',
    path: '/users/twoFactor/recoveryCodes',
    summary: 'Replace the recovery codes (a current code is required); the new ones are shown once',
    body: z.object({ code: codeSchema }).strict(),
    data: z.object({ recoveryCodes: z.array(z.string()) }),
  }),
  remove: route({
    ...base,
    method: 'POST',
    path: '/users/twoFactor/remove',
    summary:
      'Remove the authenticator (a current code or the password is required); sign-in goes back to the emailed code',
    body: z.object({ code: z.string().trim().max(32).optional(), password: passwordInputSchema.optional() }).strict(),
    data: z.null(),
  }),
  emailCode: route({
    method: 'POST',
    path: '/auth/mfa/email',
    summary: "Sign-in of a user with an authenticator: mail a one-time code instead ('Email me a code instead')",
    tag: 'Auth',
    access: 'mfaPending',
    sessionOnly: true,
    body: emptyBodySchema,
    data: z.null(),
  }),
} as const;
