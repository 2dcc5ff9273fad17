/**
 * The step-up texts and window without zod (docs/two-factor.md "Step-up"): the portal's confirmation dialog imports
 * them and must not load zod with every screen that has one.
 */
/** How long a proved factor covers the destructive actions. */
export const STEP_UP_WINDOW_MS = 5 * 60_000;

export const STEP_UP_TEXT = {
  /** The 403 of a destructive action whose session has not proved a factor lately (the portal asks inline). */
  required: 'Confirm it is you',
  title: 'Confirm it is you',
  body: 'For this action, confirm it is you: type your password, or a current code from your authenticator app.',
  passwordLabel: 'Password or authenticator code',
  confirm: 'Confirm and continue',
  wrong: 'Wrong password or code',
  missing: 'Type your password or a code from your authenticator app',
  done: 'Confirmed: destructive actions are allowed for the next 5 minutes',
  /** A user with a passkey is offered it first (docs/two-factor.md "Step-up"). */
  usePasskey: 'Use my passkey',
  passkeyBody: 'For this action, confirm it is you with your passkey: your browser will ask you to confirm.',
  orPassword: 'Or type your password, or a current code from your authenticator app.',
  passkeyCancelled: 'The passkey was not used: the browser’s request was cancelled or timed out. Try again.',
} as const;
