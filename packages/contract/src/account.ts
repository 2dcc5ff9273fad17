/**
 * The account page (issue 25 item 7; docs/account.md): the signed-in user's own sessions and preferences. The
 * name and the password keep the spec's routes (`/users/edit` with the user's own id, `/users/updatePassword`).
 * Sessions are `sessionOnly`: an API token can neither list nor end the account's sign-ins.
 */
import './zod-setup.ts';
import { z } from 'zod';
import { emptyBodySchema, route, timestampSchema } from './common.ts';

export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const;
export type ThemePreference = (typeof THEME_PREFERENCES)[number];

/** How every date of the portal is written (apps/web/src/lib/dates.ts is the one formatter). */
export const DATE_FORMATS = ['day-month', 'iso', 'us'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export const DEFAULT_PREFERENCES = { theme: 'system', dateFormat: 'day-month' } as const satisfies {
  theme: ThemePreference;
  dateFormat: DateFormat;
};

export const preferencesSchema = z.object({
  theme: z.enum(THEME_PREFERENCES, { error: 'Choose light, dark or system' }),
  dateFormat: z.enum(DATE_FORMATS, { error: 'Choose a date format' }),
});
export type Preferences = z.infer<typeof preferencesSchema>;

export const ACCOUNT_TEXT = {
  pageTitle: 'Account',
  profileHeading: 'Profile',
  passwordHeading: 'Password',
  passwordIntro: 'Changing your password signs you out on every other device; this one stays signed in.',
  currentPassword: 'Current password',
  newPassword: 'New password',
  confirmPassword: 'Confirm new password',
  changePassword: 'Change password',
  sessionsHeading: 'Active sessions',
  sessionsIntro: 'Where your account is signed in now.',
  thisSession: 'This session',
  signOutOthers: 'Sign out everywhere else',
  signOutOthersConfirm: 'Every other session of your account ends now. This one stays signed in.',
  signedOutOthers: (n: number) => (n === 1 ? 'Signed out 1 other session' : `Signed out ${n} other sessions`),
  noOtherSessions: 'No other sessions.',
  preferencesHeading: 'Preferences',
  themeLabel: 'Theme',
  dateFormatLabel: 'Date format',
  preferencesSaved: 'Preferences saved',
  securityHeading: 'Security and automation',
  securityLink: 'Two-factor authentication',
  apiTokensLink: 'API tokens',
} as const;

export const THEME_LABELS: Record<ThemePreference, string> = { system: 'System', light: 'Light', dark: 'Dark' };

export const accountSessionSchema = z.object({
  /** An opaque handle (not the session's key): the first characters of its hash. */
  id: z.string(),
  current: z.boolean(),
  createdAt: timestampSchema,
  lastSeenAt: timestampSchema,
  expiresAt: timestampSchema,
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
});
export type AccountSession = z.infer<typeof accountSessionSchema>;

const base = { tag: 'Account', access: 'user', allowStaff: true } as const;

export const accountRoutes = {
  sessions: route({
    ...base,
    sessionOnly: true,
    method: 'GET',
    path: '/account/sessions',
    summary: "The caller's signed-in sessions, newest first; the current one is marked",
    data: z.array(accountSessionSchema),
  }),
  revokeOtherSessions: route({
    ...base,
    sessionOnly: true,
    method: 'POST',
    path: '/account/sessions/revokeOthers',
    summary: "End every session of the caller's account but this one (audited: account.sessions.revokeOthers)",
    body: emptyBodySchema,
    data: z.object({ ended: z.number().int() }),
  }),
  preferences: route({
    ...base,
    method: 'GET',
    path: '/account/preferences',
    summary: "The caller's theme and date format (also carried by the signed-in user as `preferences`)",
    data: preferencesSchema,
  }),
  updatePreferences: route({
    ...base,
    method: 'PUT',
    path: '/account/preferences',
    summary: "Set the caller's theme and date format; kept on the server, so they survive signing out",
    body: preferencesSchema.partial().strict(),
    data: preferencesSchema,
  }),
} as const;
