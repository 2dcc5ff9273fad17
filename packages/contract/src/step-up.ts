/**
 * Step-up re-authentication (issue 26 item 2; docs/two-factor.md "Step-up"): the most destructive actions (deleting
 * a VM, one or in bulk; rebuilding one; removing a user; rotating the billing webhook's secret) need the session to
 * have proved a factor within STEP_UP_WINDOW_MS. A fresh sign-in counts; POST /auth/stepUp renews it.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, route } from './common.ts';
import { authenticationResponseSchema } from './passkeys.ts';

import { STEP_UP_TEXT } from './step-up-text.ts';

export { STEP_UP_TEXT, STEP_UP_WINDOW_MS } from './step-up-text.ts';

export const stepUpBodySchema = z
  .object({
    password: z.string({ error: STEP_UP_TEXT.missing }).max(200, STEP_UP_TEXT.wrong).optional(),
    code: z.string({ error: STEP_UP_TEXT.missing }).trim().max(20, STEP_UP_TEXT.wrong).optional(),
    /** The browser's answer to POST /auth/stepUp/passkey/options (a passkey of this host). */
    passkey: authenticationResponseSchema.optional(),
  })
  .strict()
  .refine((b) => Boolean(b.password) || Boolean(b.code) || Boolean(b.passkey), { message: STEP_UP_TEXT.missing });

export const stepUpRoutes = {
  stepUp: route({
    method: 'POST',
    path: '/auth/stepUp',
    summary:
      "Prove a factor again (the password, a current authenticator code when the user has an app, or a passkey's answer to the step-up options): the destructive actions are allowed for the next 5 minutes",
    tag: 'Auth',
    access: 'user',
    allowStaff: true,
    sessionOnly: true,
    body: stepUpBodySchema,
    data: z.object({ steppedUpUntil: z.string() }),
  }),
  passkeyOptions: route({
    method: 'POST',
    path: '/auth/stepUp/passkey/options',
    summary:
      "WebAuthn request options for a step-up with a passkey: the user's passkeys of this host (a challenge bound to the session, valid 5 minutes, once)",
    tag: 'Auth',
    access: 'user',
    allowStaff: true,
    sessionOnly: true,
    body: emptyBodySchema,
    data: z.looseObject({ challenge: z.string() }),
  }),
} as const;
