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

/**
 * A reseller's sign-in policy for its staff (issue 26 item 2; docs/two-factor.md "Reseller staff policy"): the
 * reseller's owner may require every staff member to have a strong factor (an authenticator app or a passkey).
 */
export const RESELLER_POLICY_TEXT = {
  heading: 'Staff sign-in policy',
  requireLabel: 'Require an authenticator app or a passkey for staff',
  requireHint:
    'Every staff member signs in with an authenticator app or a passkey; staff without one set one up at their next sign-in.',
  confirmOnTitle: 'Require an authenticator app or a passkey for staff?',
  confirmOnBody:
    'Staff without an authenticator app or a passkey will have to set one up at their next sign-in before they can use the reseller area.',
  confirmOn: 'Require',
  confirmOffTitle: 'Stop requiring it for staff?',
  confirmOffBody: 'Staff will again be able to sign in with a code sent by email.',
  confirmOff: 'Stop requiring',
  onMessage: 'Staff now need an authenticator app or a passkey',
  offMessage: 'Staff no longer need an authenticator app or a passkey',
  ownerOnly: 'Only the reseller owner can change the staff sign-in policy',
  ownFactorFirst: 'Set up your own authenticator app or passkey first, on the Security page',
  /** The 403 of every staff call of a member held to the set-up, and the reseller Security page's notice. */
  setUpRequired: API_MESSAGES.staffTwoFactorSetUpRequired,
  noEmailFallback: 'Your organisation requires staff to use an authenticator app or a passkey: use it to sign in',
  /** Removing a staff member's last app or passkey while the policy is on. */
  lastStrongFactor:
    'Your organisation requires staff to use an authenticator app or a passkey: add another before removing this one',
} as const;

export const resellerPolicySchema = z.object({ requireStaffAuthenticator: z.boolean() });
export type ResellerPolicy = z.infer<typeof resellerPolicySchema>;

export const resellerPolicyRoutes = {
  get: route({
    method: 'GET',
    path: '/reseller/policy',
    summary: "The reseller's sign-in policy for its staff (any staff member; also while a factor must be set up)",
    tag: 'Reseller',
    access: 'staff',
    data: resellerPolicySchema,
  }),
  set: route({
    method: 'PUT',
    path: '/reseller/policy',
    summary:
      "Change the staff sign-in policy (the reseller's owner): requireStaffAuthenticator makes every staff member sign in with an authenticator app or a passkey",
    tag: 'Reseller',
    access: 'staff',
    body: resellerPolicySchema.strict(),
    data: resellerPolicySchema,
  }),
} as const;
