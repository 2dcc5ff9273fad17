/**
 * Single sign-on per company (issue 26 item 3; docs/single-sign-on.md) against a real OpenID provider on loopback
 * (`oidc-provider`, test/oidc-provider.ts), through the real server with a cookie jar on each side: configured by
 * company administrators only (secret sealed, never answered, audited, a domain one company's only); sign-in works
 * for an existing user of the company and for nobody else (unknown email, another company's user, unverified
 * email, a mismatched state, a replayed callback); passwords off refuses the password sign-in of the domain's
 * users only; the issuer is reached through the egress rule (loopback only with EGRESS_ALLOW); the start step is
 * rate limited.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { SSO_CALLBACK_PATH, SSO_TEXT } from '@portal/contract/single-sign-on';
import { auditLog, companySso } from '../../db/schema.ts';
import { EGRESS_REFUSED_MESSAGE } from '../../lib/egress.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { signInAt, startOidcProvider, type TestOidcProvider } from '../../../test/oidc-provider.ts';

let idp: TestOidcProvider;
let t: TestApp;
let admin: TestClient;
const REDIRECT = `http://portal.test${SSO_CALLBACK_PATH}`;

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [REDIRECT] });
  // The operator's settings a local provider needs: plain http, and loopback allowed by the egress rule.
  t = await createTestApp({ env: { OIDC_ALLOW_HTTP: 'true', EGRESS_ALLOW: '127.0.0.1/32' } });
  admin = await signIn(t);
  idp.accounts.set('alice', { email: 'alice@acme.test', emailVerified: true });
  idp.accounts.set('nobody', { email: 'nobody@acme.test', emailVerified: true });
  idp.accounts.set('eve', { email: 'eve@acme.test', emailVerified: true });
  idp.accounts.set('unverified', { email: 'alice@acme.test', emailVerified: false });
  idp.accounts.set('outsider', { email: 'someone@elsewhere.test', emailVerified: true });
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

const settings = () => ({
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  domains: ['acme.test'],
  enabled: true,
  passwordsDisabled: false,
});

/** The browser's round trip: start at the portal, sign in at the provider, hand its answer to the portal. */
async function ssoSignIn(client: TestClient, email: string, accountId: string, edit?: (query: string) => string) {
  const started = await client.call(routes.singleSignOn.start, { body: { email } });
  expect(started.status, started.message).toBe(200);
  const back = await signInAt(started.data.url, accountId);
  expect(back.origin + back.pathname).toBe(REDIRECT);
  const query = edit ? edit(back.search) : back.search;
  return client.call(routes.singleSignOn.callback, { body: { query } });
}

describe('single sign-on settings', () => {
  it('are company administrators only; the secret is sealed and never answered; audited', async () => {
    const member = await createUser(t, 1, 'sso-member@example.com');
    const memberClient = await signIn(t, member.email, PASSWORD);
    expect((await memberClient.call(routes.singleSignOn.get)).status).toBe(403);
    expect((await memberClient.call(routes.singleSignOn.save, { body: settings() })).status).toBe(403);

    const empty = await admin.call(routes.singleSignOn.get);
    expect(empty.status).toBe(200);
    expect(empty.data).toEqual({ connection: null, redirectUri: REDIRECT });

    const { clientSecret: _, ...noSecret } = settings();
    const missing = await admin.call(routes.singleSignOn.save, { body: noSecret });
    expect(missing.status).toBe(400);
    expect(missing.message).toBe(SSO_TEXT.secretRequired);

    const bad = await admin.call(routes.singleSignOn.save, { body: { ...settings(), domains: ['not a domain'] } });
    expect(bad.status).toBe(400);

    const tested = await admin.call(routes.singleSignOn.test, { body: { issuer: idp.issuer } });
    expect(tested.status, tested.message).toBe(200);
    expect(tested.data.issuer).toBe(idp.issuer);

    const saved = await admin.call(routes.singleSignOn.save, { body: settings() });
    expect(saved.status, saved.message).toBe(200);
    expect(saved.data.connection).toMatchObject({
      issuer: idp.issuer,
      clientId: idp.clientId,
      hasClientSecret: true,
      domains: ['acme.test'],
      enabled: true,
      passwordsDisabled: false,
    });
    expect(JSON.stringify(saved.data)).not.toContain(idp.clientSecret);
    const [row] = await t.db.select().from(companySso).where(eq(companySso.companyId, 1));
    expect(row!.clientSecretSealed).not.toContain(idp.clientSecret);

    // Saving again without a secret keeps the stored one.
    const kept = await admin.call(routes.singleSignOn.save, { body: noSecret });
    expect(kept.status, kept.message).toBe(200);
    expect((await t.db.select().from(companySso).where(eq(companySso.companyId, 1)))[0]!.clientSecretSealed).toBe(
      row!.clientSecretSealed,
    );

    const audits = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, 1), eq(auditLog.action, 'company.sso.update')));
    expect(audits.length).toBe(2);
    expect(JSON.stringify(audits)).not.toContain(idp.clientSecret);
  });

  it("refuses a domain another company's single sign-on holds", async () => {
    const other = await createOtherCompany(t, 'boss@other.example');
    const otherAdmin = await signIn(t, other.admin.email, PASSWORD);
    const taken = await otherAdmin.call(routes.singleSignOn.save, {
      body: { ...settings(), domains: ['other.example', 'ACME.test'] },
    });
    expect(taken.status).toBe(409);
    expect(taken.message).toBe(SSO_TEXT.domainTaken);
    // A user of that other company with an address of acme.test, for the sign-in test below.
    await createUser(t, other.companyId, 'eve@acme.test');
  });

  it('reaches the issuer through the egress rule: a private or metadata address is refused', async () => {
    for (const issuer of ['http://169.254.169.254/', 'http://10.0.0.1/realm', 'http://[::1]:8080/']) {
      const res = await admin.call(routes.singleSignOn.test, { body: { issuer } });
      expect(res.status, issuer).toBe(400);
      expect(res.message).toBe(EGRESS_REFUSED_MESSAGE);
    }
    const nothing = await admin.call(routes.singleSignOn.test, { body: { issuer: 'http://127.0.0.1:9/' } });
    expect(nothing.status).toBe(400);
    expect(nothing.message).toBe(SSO_TEXT.issuerUnreachable);
  });
});

describe('sign-in with single sign-on', () => {
  it('signs an existing user of the company in, fully (no emailed code), audited', async () => {
    await createUser(t, 1, 'alice@acme.test');
    const client = t.client();
    const mailsBefore = t.smtp.messages.length;
    const done = await ssoSignIn(client, 'Alice@acme.test', 'alice');
    expect(done.status, done.message).toBe(200);
    expect(done.data.user.email).toBe('alice@acme.test');
    const check = await client.call(routes.auth.check);
    expect(check.data.authed).toBe(true);
    expect((await client.call(routes.vms.list)).status).toBe(200);
    expect(t.smtp.messages.length).toBe(mailsBefore);
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'user.signIn.sso'));
    expect(entry).toMatchObject({ companyId: 1, targetType: 'user' });
  });

  it('refuses an email no user of the company has: nobody is created', async () => {
    const client = t.client();
    const res = await ssoSignIn(client, 'nobody@acme.test', 'nobody');
    expect(res.status).toBe(403);
    expect(res.message).toBe(SSO_TEXT.noAccount);
    expect((await client.call(routes.auth.check)).status).toBe(401);
  });

  it("refuses another company's user, even with an address of the company's domain", async () => {
    const client = t.client();
    const res = await ssoSignIn(client, 'eve@acme.test', 'eve');
    expect(res.status).toBe(403);
    expect(res.message).toBe(SSO_TEXT.noAccount);
    expect((await client.call(routes.auth.check)).status).toBe(401);
  });

  it("refuses an email of a domain that is not the company's (whatever its provider says)", async () => {
    await createUser(t, 1, 'someone@elsewhere.test');
    const res = await ssoSignIn(t.client(), 'alice@acme.test', 'outsider');
    expect(res.status).toBe(403);
    expect(res.message).toBe(SSO_TEXT.noAccount);
  });

  it('refuses an email the provider has not verified', async () => {
    const res = await ssoSignIn(t.client(), 'alice@acme.test', 'unverified');
    expect(res.status).toBe(403);
    expect(res.message).toBe(SSO_TEXT.emailNotVerified);
  });

  it('refuses a mismatched state, a callback without its cookie, and a replayed one', async () => {
    const client = t.client();
    const mismatched = await ssoSignIn(client, 'alice@acme.test', 'alice', (q) =>
      q.replace(/state=[^&]+/, 'state=forged'),
    );
    expect(mismatched.status).toBe(400);
    expect(mismatched.message).toBe(SSO_TEXT.failed);
    expect((await client.call(routes.auth.check)).status).toBe(401);

    // The cookie is good for one try: the genuine answer handed in twice signs in once.
    const started = await client.call(routes.singleSignOn.start, { body: { email: 'alice@acme.test' } });
    const back = await signInAt(started.data.url, 'alice');
    const elsewhere = t.client();
    const noCookie = await elsewhere.call(routes.singleSignOn.callback, { body: { query: back.search } });
    expect(noCookie.status).toBe(400);
    expect(noCookie.message).toBe(SSO_TEXT.failed);
    expect((await client.call(routes.singleSignOn.callback, { body: { query: back.search } })).status).toBe(200);
    const replay = await client.call(routes.singleSignOn.callback, { body: { query: back.search } });
    expect(replay.status).toBe(400);
  });

  it('answers a clear refusal for a domain without single sign-on, and bad input with 400', async () => {
    const res = await t.client().call(routes.singleSignOn.start, { body: { email: 'x@no-sso.test' } });
    expect(res.status).toBe(400);
    expect(res.message).toBe(SSO_TEXT.notConfigured);
    expect((await t.client().call(routes.singleSignOn.start, { body: { email: 'not-an-email' } })).status).toBe(400);
    expect((await t.client().call(routes.singleSignOn.callback, { body: { query: 42 } })).status).toBe(400);
  });
});

describe('passwords off', () => {
  it("refuses the password sign-in of the domain's users, not the administrator's of another domain", async () => {
    const on = await admin.call(routes.singleSignOn.save, { body: { ...settings(), passwordsDisabled: true } });
    expect(on.status, on.message).toBe(200);
    const refused = await t
      .client()
      .call(routes.auth.login, { body: { email: 'alice@acme.test', password: PASSWORD } });
    expect(refused.status).toBe(403);
    expect(refused.message).toBe(SSO_TEXT.passwordsDisabled);
    // A wrong password still answers as a wrong password (the refusal is said only to who knows it).
    const wrong = await t.client().call(routes.auth.login, { body: { email: 'alice@acme.test', password: 'nope' } });
    expect(wrong.status).toBe(401);
    await signIn(t, ADMIN.email, ADMIN.password);
    expect((await ssoSignIn(t.client(), 'alice@acme.test', 'alice')).status).toBe(200);

    // Turned off: the company's users sign in with their password again, and single sign-on is not offered.
    const off = await admin.call(routes.singleSignOn.disable, { body: {} });
    expect(off.status).toBe(200);
    expect(off.data.connection?.enabled).toBe(false);
    await signIn(t, 'alice@acme.test', PASSWORD);
    const notOffered = await t.client().call(routes.singleSignOn.start, { body: { email: 'alice@acme.test' } });
    expect(notOffered.status).toBe(400);
    expect(notOffered.message).toBe(SSO_TEXT.notConfigured);
    const [audit] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'company.sso.disable'));
    expect(audit).toBeTruthy();
  });
});

describe('without the operator settings', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await createTestApp({ env: { OIDC_ALLOW_HTTP: 'true', AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
  });
  afterAll(async () => plain?.close());

  it('refuses an issuer on loopback (no EGRESS_ALLOW), and limits the start step per address', async () => {
    const boss = await signIn(plain);
    const test = await boss.call(routes.singleSignOn.test, { body: { issuer: idp.issuer } });
    expect(test.status).toBe(400);
    expect(test.message).toBe(EGRESS_REFUSED_MESSAGE);
    const save = await boss.call(routes.singleSignOn.save, { body: settings() });
    expect(save.status).toBe(400);
    expect(save.message).toBe(EGRESS_REFUSED_MESSAGE);

    const client = plain.client();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await client.call(routes.singleSignOn.start, { body: { email: 'a@acme.test' } })).status);
    }
    expect(statuses).toEqual([400, 400, 400, 429]);
  });

  it('refuses a plain http issuer unless the operator allows it', async () => {
    const strict = await createTestApp({ env: { EGRESS_ALLOW: '127.0.0.1/32' } });
    try {
      const boss = await signIn(strict);
      const res = await boss.call(routes.singleSignOn.test, { body: { issuer: idp.issuer } });
      expect(res.status).toBe(400);
      expect(res.message).toBe(SSO_TEXT.issuerInsecure);
    } finally {
      await strict.close();
    }
  });
});
