/**
 * A company's sign-in policy (issue 26 item 2; docs/two-factor.md "Company policy"): a company administrator may
 * require an authenticator app for every user of the company.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { route } from './common.ts';
import { API_MESSAGES } from './messages.ts';

export const COMPANY_POLICY_TEXT = {
  heading: 'Company sign-in policy',
  requireLabel: 'Require an authenticator app',
  requireHint:
    'Every user of the company signs in with an authenticator app; the emailed code is no longer offered to users who have one.',
  confirmOnTitle: 'Require an authenticator app?',
  confirmOnBody:
    'Users without an authenticator app will have to set one up at their next sign-in before they can use the portal.',
  confirmOn: 'Require',
  confirmOffTitle: 'Stop requiring an authenticator app?',
  confirmOffBody: 'Users will again be able to sign in with a code sent by email.',
  confirmOff: 'Stop requiring',
  onMessage: 'An authenticator app is now required for every user of the company',
  offMessage: 'An authenticator app is no longer required',
  /** The 403 of every customer call of a user who must set up an app first, and the Security page's notice. */
  setUpRequired: API_MESSAGES.twoFactorSetUpRequired,
  noEmailFallback: 'Your company requires an authenticator app: type the code from your app',
  /** Turning the policy on: the administrator would otherwise lock themselves out of the portal at once. */
  ownAppFirst: 'Set up your own authenticator app first, on the Security page',
  cannotRemove: 'Your company requires an authenticator app: it cannot be removed',
} as const;

export const companyPolicySchema = z.object({ requireAuthenticator: z.boolean() });
export type CompanyPolicy = z.infer<typeof companyPolicySchema>;

export const companyPolicyRoutes = {
  get: route({
    method: 'GET',
    path: '/company/policy',
    summary: "The caller's company's sign-in policy (any user of the company; also while an app must be set up)",
    tag: 'Company',
    access: 'user',
    data: companyPolicySchema,
  }),
  set: route({
    method: 'PUT',
    path: '/company/policy',
    summary:
      'Change the sign-in policy (company administrators): requireAuthenticator makes every user sign in with an authenticator app',
    tag: 'Company',
    access: 'user',
    body: companyPolicySchema.strict(),
    data: companyPolicySchema,
  }),
} as const;
