/**
 * A company may require an authenticator app (issue 26 item 2; docs/two-factor.md "Company policy"), through the
 * real server: only the company's administrators change it (audited; another company's administrator changes only
 * their own), a user with an app loses "Email me a code instead" and cannot remove the app, a user without one
 * signs in by email as the spec says and then gets 403 on everything but the set-up until the app is on.
 */
import { and, eq } from 'drizzle-orm';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_POLICY_TEXT } from '@portal/contract/company-policy';
import { routes } from '@portal/contract/routes';
import { TOTP_PERIOD_SECONDS } from '@portal/contract/two-factor';
import { auditLog, companies, userPasskeys, users } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { codeFrom } from '../../../test/smtp-catcher.ts';

// A clock that moves only when told, 10 s into a time step: codes computed here cannot straddle a step.
const start = Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS * 1000 + 10_000;
let offsetMs = 0;
const clock = { now: () => new Date(start + offsetMs) };
/** Moves on by whole minutes: fresh time steps, so a code is never a replay of the last one. */
const advance = (minutes = 1) => (offsetMs += minutes * 60_000);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => t.close());

function codeNow(secret: string): string {
  const epoch = Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS;
  return generateSync({ secret, epoch });
}

async function enrol(client: TestClient): Promise<string> {
  const started = await client.call(routes.twoFactor.start, { body: {} });
  expect(started.status, started.message).toBe(200);
  const confirmed = await client.call(routes.twoFactor.confirm, { body: { code: codeNow(started.data.secret) } });
  expect(confirmed.status, confirmed.message).toBe(200);
  advance();
  return started.data.secret;
}

const policyOf = async (companyId: number) =>
  (
    await t.db
      .select({ requireAuthenticator: companies.requireAuthenticator })
      .from(companies)
      .where(eq(companies.id, companyId))
  )[0]!.requireAuthenticator;

let admin: TestClient;
let adminSecret: string;

describe('company policy: require an authenticator app', () => {
  it('is changed by company administrators only, their own company only, audited', async () => {
    admin = await signIn(t);
    const member = await createUser(t, 1, 'policy-member@example.com');
    const memberClient = await signIn(t, member.email, PASSWORD);
    expect((await memberClient.call(routes.companyPolicy.get)).data).toEqual({ requireAuthenticator: false });

    // A user who is not a company administrator is refused, and nothing changes.
    const refused = await memberClient.call(routes.companyPolicy.set, { body: { requireAuthenticator: true } });
    expect(refused.status).toBe(403);
    expect(await policyOf(1)).toBe(false);

    // The administrator must have an app first (else they would lock themselves out at once).
    const noApp = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: true } });
    expect(noApp.status).toBe(409);
    expect(noApp.message).toBe(COMPANY_POLICY_TEXT.ownAppFirst);
    adminSecret = await enrol(admin);

    // Another company's administrator changes their own company's policy, never this one's.
    const other = await createOtherCompany(t, 'policy-boss@other.example');
    const otherAdmin = await signIn(t, other.admin.email, PASSWORD);
    await enrol(otherAdmin);
    const theirs = await otherAdmin.call(routes.companyPolicy.set, { body: { requireAuthenticator: true } });
    expect(theirs.status).toBe(200);
    expect(await policyOf(other.companyId)).toBe(true);
    expect(await policyOf(1)).toBe(false);
    const off = await otherAdmin.call(routes.companyPolicy.set, { body: { requireAuthenticator: false } });
    expect(off.status).toBe(200);
    expect(off.message).toBe(COMPANY_POLICY_TEXT.offMessage);
    expect(await policyOf(1)).toBe(false);

    // Bad input is a 400 in the envelope.
    const bad = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: 'yes' } as never });
    expect(bad.status).toBe(400);

    const on = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: true } });
    expect(on.status, on.message).toBe(200);
    expect(on.message).toBe(COMPANY_POLICY_TEXT.onMessage);
    expect(on.data).toEqual({ requireAuthenticator: true });
    expect(await policyOf(1)).toBe(true);
    const entries = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'company.policy.update'), eq(auditLog.companyId, 1)));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ targetType: 'company', targetId: '1', after: { requireAuthenticator: true } });
  });

  it('a user with an app: no emailed fallback, the app cannot be removed', async () => {
    const client = t.client();
    const login = await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
    expect(login.status).toBe(200);
    expect(login.data.user.secondFactor).toBe('authenticator');
    expect(login.data.user.emailFallback).toBe(false);
    const before = t.smtp.messages.length;
    const fallback = await client.call(routes.twoFactor.emailCode, { body: {} });
    expect(fallback.status).toBe(403);
    expect(fallback.message).toBe(COMPANY_POLICY_TEXT.noEmailFallback);
    expect(t.smtp.messages.length).toBe(before);
    const check = await client.call(routes.auth.check);
    expect(check.data).toMatchObject({ authed: false, user: { secondFactor: 'authenticator', emailFallback: false } });

    const signedIn = await client.call(routes.auth.mfa, { body: { code: codeNow(adminSecret) } });
    expect(signedIn.status, signedIn.message).toBe(200);
    advance();
    expect((await client.call(routes.vms.list, { query: {} })).status).toBe(200);

    const removal = await client.call(routes.twoFactor.remove, { body: { password: ADMIN.password } });
    expect(removal.status).toBe(403);
    expect(removal.message).toBe(COMPANY_POLICY_TEXT.cannotRemove);
    expect((await client.call(routes.twoFactor.status)).data.enabled).toBe(true);
  });

  it('a user without an app signs in by email, then gets 403 on everything but the set-up until the app is on', async () => {
    const user = await createUser(t, 1, 'policy-newcomer@example.com');
    const client = t.client();
    const login = await client.call(routes.auth.login, { body: { email: user.email, password: PASSWORD } });
    expect(login.status).toBe(200);
    // The spec's answer, unchanged: the emailed code.
    expect(login.data.user.secondFactor).toBeUndefined();
    expect(login.data.user.emailFallback).toBeUndefined();
    const signedIn = await signIn(t, user.email, PASSWORD);

    const list = await signedIn.call(routes.vms.list, { query: {} });
    expect(list.status).toBe(403);
    expect(list.message).toBe(COMPANY_POLICY_TEXT.setUpRequired);
    expect((await signedIn.call(routes.sshKeys.list)).status).toBe(403);
    // The live status stream too (outside the contract).
    const stream = await signedIn.raw('GET', `${t.config.API_BASE_PATH}/virtualMachines/events`);
    expect([stream.status, stream.message]).toEqual([403, COMPANY_POLICY_TEXT.setUpRequired]);
    // What the set-up page needs answers; the check says the user is held (the portal keeps them on /security).
    const check = await signedIn.call(routes.auth.check);
    expect(check.status).toBe(200);
    expect(check.data).toMatchObject({ authed: true, mustSetUpTwoFactor: true });
    expect((await signedIn.call(routes.companyPolicy.get)).data).toEqual({ requireAuthenticator: true });
    expect((await signedIn.call(routes.twoFactor.status)).status).toBe(200);
    // Not the policy's change, even for a company administrator without an app.
    await t.db.update(users).set({ isCompanyAdmin: true }).where(eq(users.id, user.id));
    const change = await signedIn.call(routes.companyPolicy.set, { body: { requireAuthenticator: false } });
    expect(change.status).toBe(403);
    expect(await policyOf(1)).toBe(true);

    await enrol(signedIn);
    const after = await signedIn.call(routes.vms.list, { query: {} });
    expect(after.status, after.message).toBe(200);
    // Released: the check's field is gone (absent, the spec's answer).
    expect((await signedIn.call(routes.auth.check)).data).not.toHaveProperty('mustSetUpTwoFactor');
  });

  it('a passkey counts as the strong factor the policy asks for', async () => {
    const user = await createUser(t, 1, 'policy-passkey@example.com');
    const signedIn = await signIn(t, user.email, PASSWORD);
    expect((await signedIn.call(routes.vms.list, { query: {} })).status).toBe(403);
    await t.db.insert(userPasskeys).values({
      userId: user.id,
      name: 'Test key',
      credentialId: 'policy-passkey-credential',
      publicKey: 'AA',
      counter: 0,
      rpId: 'localhost',
    } as typeof userPasskeys.$inferInsert);
    // Written behind the server's back: its cached session is read again at the latest when the touch is due.
    advance(2);
    expect((await signedIn.call(routes.vms.list, { query: {} })).status).toBe(200);
    expect((await signedIn.call(routes.auth.check)).data).not.toHaveProperty('mustSetUpTwoFactor');
  });

  it('a code mailed before the policy came no longer signs in once it is on', async () => {
    const client = t.client();
    await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
    const before = t.smtp.messages.length;
    expect((await client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(403);
    const off = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: false } });
    expect(off.status, off.message).toBe(200);
    expect((await client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(200);
    const mail = await t.smtp.waitFor(
      ADMIN.email,
      (m) => t.smtp.messages.indexOf(m) >= before && /verification code/.test(m.subject),
    );
    const on = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: true } });
    expect(on.status, on.message).toBe(200);
    const refused = await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } });
    expect(refused.status).toBe(400);
    const app = await client.call(routes.auth.mfa, { body: { code: codeNow(adminSecret) } });
    expect(app.status, app.message).toBe(200);
    advance();
  });

  it('turned off: the emailed fallback is back and users without an app pass', async () => {
    const off = await admin.call(routes.companyPolicy.set, { body: { requireAuthenticator: false } });
    expect(off.status, off.message).toBe(200);
    const client = t.client();
    const login = await client.call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
    expect(login.data.user.emailFallback).toBeUndefined();
    expect((await client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(200);
    const user = await createUser(t, 1, 'policy-after@example.com');
    const plain = await signIn(t, user.email, PASSWORD);
    expect((await plain.call(routes.vms.list, { query: {} })).status).toBe(200);
  });
});
