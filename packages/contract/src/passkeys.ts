/**
 * Passkeys (WebAuthn) as a second factor (issue 26 item 1; docs/two-factor.md "Passkeys"): the signed-in user's
 * named passkeys, and the sign-in's passkey step. The browser's answers (attestation, assertion) are checked
 * here for shape only; @simplewebauthn/server verifies them.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, idParamsSchema, route, timestampSchema } from './common.ts';
import { authUserSchema } from './auth.ts';
import { passwordInputSchema } from './validation.ts';

/** A handed-out challenge is answered within this or not at all (and once). */
export const WEBAUTHN_CHALLENGE_TTL_MS = 5 * 60_000;
export const PASSKEY_NAME_MAX = 60;
/** Passkeys a user may hold at a time. */
export const PASSKEY_MAX_PER_USER = 20;

export const PASSKEY_TEXT = {
  heading: 'Passkeys',
  intro:
    'A passkey on this device, your phone or a security key signs you in after your password: no code to type. It works on this address only.',
  none: 'No passkeys yet.',
  nameLabel: 'Passkey name',
  namePlaceholder: 'e.g. Work laptop',
  add: 'Add a passkey',
  addHint: 'Your browser will ask you to confirm with your fingerprint, face, PIN or security key.',
  created: 'Added',
  lastUsed: 'Last used',
  neverUsed: 'Never',
  rename: 'Rename',
  save: 'Save',
  cancel: 'Cancel',
  remove: 'Remove',
  removeTitle: (name: string) => `Remove the passkey "${name}"?`,
  removeHint: 'Type your password, or a current code from your authenticator app.',
  removeHintPassword: 'Type your password.',
  passwordLabel: 'Your password',
  codeLabel: 'Or a code from your app',
  unsupported: 'This browser cannot use passkeys.',
  cancelled: 'The passkey was not created: the browser’s request was cancelled or timed out.',
  // Sign-in
  signInHeading: 'Sign in with your passkey',
  signInBody: 'Use the passkey you added for this account: your browser will ask you to confirm.',
  signInButton: 'Use my passkey',
  useAuthenticator: 'Use my authenticator app instead',
  usePasskey: 'Use my passkey instead',
  signInCancelled: 'The passkey was not used: the browser’s request was cancelled or timed out. Try again.',
  // Answers
  addedMessage: 'Passkey added',
  renamedMessage: 'Passkey renamed',
  removedMessage: 'Passkey removed',
  nameRequired: 'Give the passkey a name',
  nameTooLong: `A passkey name is at most ${PASSKEY_NAME_MAX} characters`,
  tooMany: `You already have ${PASSKEY_MAX_PER_USER} passkeys. Remove one first.`,
  notVerified: 'The passkey could not be verified. Try again.',
  noChallenge: 'The passkey request expired or was already used. Try again.',
  alreadyRegistered: 'This passkey is already added',
  wrongPasswordOrCode: 'Type your password or a current code from your authenticator app.',
  wrongPassword: 'That password is not right.',
  noPasskeys: 'No passkey is set up for this account on this address',
  lastStrongFactor: 'Your company requires an authenticator app or a passkey: add another before removing this one',
} as const;

export const passkeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: timestampSchema,
  lastUsedAt: timestampSchema.nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;

export const passkeyNameSchema = z
  .string({ error: PASSKEY_TEXT.nameRequired })
  .trim()
  .min(1, PASSKEY_TEXT.nameRequired)
  .max(PASSKEY_NAME_MAX, PASSKEY_TEXT.nameTooLong);

const base64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/, PASSKEY_TEXT.notVerified);
const credentialBase = {
  id: base64url.min(1),
  rawId: base64url.min(1),
  type: z.literal('public-key', { error: PASSKEY_TEXT.notVerified }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

/** The browser's answer to navigator.credentials.create() as @simplewebauthn/browser sends it (JSON). */
export const registrationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url.min(1),
    attestationObject: base64url.min(1),
    authenticatorData: base64url.optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url.optional(),
  }),
});

/** The browser's answer to navigator.credentials.get() (JSON). */
export const authenticationResponseSchema = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: base64url.min(1),
    authenticatorData: base64url.min(1),
    signature: base64url.min(1),
    userHandle: base64url.optional(),
  }),
});

/** What the browser hands to navigator.credentials.create()/get(): WebAuthn's JSON options, passed through. */
const optionsSchema = z.looseObject({ challenge: z.string() });

/** Session-only: an API token cannot see or change the account's second factor. */
const base = { tag: 'Two-factor', access: 'user', allowStaff: true, sessionOnly: true } as const;

export const passkeyRoutes = {
  list: route({
    ...base,
    method: 'GET',
    path: '/users/passkeys',
    summary: "The caller's passkeys (name, added, last used)",
    data: z.array(passkeySchema),
  }),
  registrationOptions: route({
    ...base,
    method: 'POST',
    path: '/users/passkeys/options',
    summary:
      'WebAuthn creation options for a new passkey (rp id: the host the request came to; a challenge valid 5 minutes, once)',
    body: emptyBodySchema,
    data: optionsSchema,
  }),
  add: route({
    ...base,
    method: 'POST',
    path: '/users/passkeys',
    summary: "Add a passkey: its name and the browser's answer to the creation options",
    body: z.object({ name: passkeyNameSchema, response: registrationResponseSchema }).strict(),
    data: passkeySchema,
  }),
  rename: route({
    ...base,
    method: 'PUT',
    path: '/users/passkeys/:id',
    summary: 'Rename one of the caller’s passkeys',
    params: idParamsSchema,
    body: z.object({ name: passkeyNameSchema }).strict(),
    data: passkeySchema,
  }),
  remove: route({
    ...base,
    method: 'POST',
    path: '/users/passkeys/:id/remove',
    summary: 'Remove one of the caller’s passkeys (the password or a current authenticator code is required)',
    params: idParamsSchema,
    body: z.object({ code: z.string().trim().max(32).optional(), password: passwordInputSchema.optional() }).strict(),
    data: z.null(),
  }),
  signInOptions: route({
    method: 'POST',
    path: '/auth/mfa/passkey/options',
    summary:
      "Sign-in of a user with a passkey: WebAuthn request options for the user's passkeys (valid 5 minutes, once)",
    tag: 'Auth',
    access: 'mfaPending',
    sessionOnly: true,
    body: emptyBodySchema,
    data: optionsSchema,
  }),
  signIn: route({
    method: 'POST',
    path: '/auth/mfa/passkey',
    summary: "Complete sign-in with the browser's answer to the passkey request options",
    tag: 'Auth',
    access: 'mfaPending',
    sessionOnly: true,
    body: z.object({ response: authenticationResponseSchema }).strict(),
    // The same answer as POST /auth/mfa.
    data: z.object({ user: authUserSchema }),
  }),
} as const;
