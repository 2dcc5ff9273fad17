/**
 * The single sign-on texts and constants without zod (docs/single-sign-on.md): the sign-in screen imports them and
 * must not load zod with its first paint (apps/web route-table.ts, lib/lazy-resolver.ts).
 */
/** Where the identity provider sends the browser back, under the portal's base path (the redirect URI). */
export const SSO_CALLBACK_PATH = '/auth/oidc/callback';
/** How long a started sign-in may take at the identity provider before its cookie is gone. */
export const SSO_FLOW_TTL_MS = 10 * 60_000;
export const SSO_MAX_DOMAINS = 20;

export const SSO_TEXT = {
  // Company administrators' page
  pageTitle: 'Single sign-on',
  intro:
    "Let your company's users sign in with your identity provider (OpenID Connect). Users are matched to their existing account by verified email; no account is created.",
  issuerLabel: 'Issuer URL',
  issuerHint: 'The issuer of your identity provider, e.g. https://login.example.com/realms/company',
  clientIdLabel: 'Client ID',
  clientSecretLabel: 'Client secret',
  clientSecretKept: 'A secret is stored. Leave empty to keep it.',
  domainsLabel: 'Email domains',
  domainsHint: 'Comma separated, e.g. example.com, example.org. A domain belongs to one company only.',
  redirectUriLabel: 'Redirect URI to register at your identity provider',
  enabledLabel: 'Single sign-on is on',
  passwordsDisabledLabel: 'Users of these domains sign in with single sign-on only (no password)',
  passwordsDisabledHint:
    'Their password sign-in is refused. Users with an email of another domain (e.g. an administrator kept for emergencies) and reseller staff are not affected.',
  test: 'Test connection',
  save: 'Save',
  disable: 'Turn off single sign-on',
  confirmDisableTitle: 'Turn off single sign-on?',
  confirmDisableBody: 'Users will sign in with their password and the emailed code again.',
  testOk: (issuer: string) => `The issuer answered: ${issuer}`,
  savedMessage: 'Single sign-on saved',
  disabledMessage: 'Single sign-on turned off',
  notConfiguredYet: 'Single sign-on is not set up.',
  // Login page
  signInWithSso: 'Sign in with single sign-on',
  typeEmailFirst: 'Type your work email, then choose single sign-on',
  callbackTitle: 'Signing you in',
  callbackWorking: 'Completing single sign-on…',
  backToLogin: 'Return to Login',
  // Answers
  notConfigured: 'Single sign-on is not set up for this email address',
  noAccount: 'No account of your company matches this sign-in: ask your company administrator to invite you',
  emailNotVerified: 'Your identity provider has not verified your email address',
  failed: 'Single sign-on did not complete: start again from the login page',
  passwordsDisabled: 'Your company signs in with single sign-on: choose "Sign in with single sign-on"',
  domainTaken: 'A domain is already used by another company',
  issuerUnreachable: 'The issuer did not answer with an OpenID Connect discovery document',
  issuerInsecure: 'The issuer must use https',
  secretRequired: 'Client secret is required',
  adminsOnly: 'Only company administrators can change single sign-on',
} as const;
