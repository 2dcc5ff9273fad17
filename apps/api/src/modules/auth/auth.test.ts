/** Sign-in with the emailed code, sessions, CSRF and password flows, through the real server. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { API_MESSAGES } from '@portal/contract/messages';
import { INVITE_TOKEN_TTL_MS } from '@portal/contract/constants';
import { mailOutbox, mfaChallenges, oneTimeTokens, sessions, users } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp } from '../../../test/harness.ts';
import { codeFrom, linkFrom } from '../../../test/smtp-catcher.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createOneTimeTokens } from './one-time-tokens.ts';
import { cryptoRandom } from '../../lib/crypto.ts';

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => {
  await t.close();
});

async function startLogin(email: string = ADMIN.email, password: string = ADMIN.password, rememberMe = false) {
  const client = t.client();
  const before = t.smtp.messages.length;
  const res = await client.call(routes.auth.login, { body: { email, password, rememberMe } });
  expect(res.status).toBe(200);
  const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before);
  return { client, res, mail, code: codeFrom(mail) };
}

async function addUser(email: string, password: string | null, extra: Partial<typeof users.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(users)
    .values({
      companyId: 1,
      email,
      firstName: 'Test',
      lastName: 'User',
      passwordHash: password ? await hashPassword(password) : null,
      ...extra,
    })
    .returning();
  return row!;
}

describe('sign-in with the emailed code', () => {
  it('mails a 6-digit code from the reseller address and signs in only after it', async () => {
    const { client, res, mail, code } = await startLogin();
    expect(res.data.user.email).toBe(ADMIN.email);
    expect(res.data.user.resellerName).toBe('Northwind Hosting');
    expect(res.data.user.resetKey).toBeNull();
    expect(code).toMatch(/^\d{6}$/);
    expect(mail.from).toContain('no-reply@northwind.example');

    // Half signed in: the code is still due.
    const pending = await client.call(routes.auth.check);
    expect(pending.status).toBe(200);
    expect(pending.data.authed).toBe(false);
    expect((await client.call(routes.password.me)).status).toBe(401);
    const preMfaCookie = client.cookies.get('sid');

    const mfa = await client.call(routes.auth.mfa, { body: { code } });
    expect(mfa.status).toBe(200);
    expect(mfa.data.user.firstName).toBe('Ada');
    expect(client.cookies.get('sid')).not.toBe(preMfaCookie);

    const me = await client.call(routes.password.me);
    expect(me.status).toBe(200);
    expect(me.data.email).toBe(ADMIN.email);
    expect((await client.call(routes.auth.check)).data.authed).toBe(true);

    // The pre-code token was rotated away and no longer works.
    const stale = t.client();
    stale.cookies.set('sid', preMfaCookie!);
    expect((await stale.call(routes.auth.check)).status).toBe(401);
  });

  it('keeps only keyed hashes of the session token and the code', async () => {
    const { client, code } = await startLogin();
    const token = client.cookies.get('sid')!;
    const rows = await t.db.select().from(sessions);
    expect(rows.some((r) => r.id === token)).toBe(false);
    const challenges = await t.db.select().from(mfaChallenges);
    expect(challenges.some((c) => c.codeHash.includes(code))).toBe(false);
    const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
    expect(admin!.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('answers a wrong password and an unknown email alike', async () => {
    const a = await t.client().call(routes.auth.login, { body: { email: ADMIN.email, password: 'wrong-Password-1!' } });
    const b = await t
      .client()
      .call(routes.auth.login, { body: { email: 'nobody@example.com', password: 'wrong-Password-1!' } });
    expect(a.status).toBe(401);
    expect(b.status).toBe(401);
    expect(a.message).toBe(API_MESSAGES.invalidCredentials);
    expect(b.message).toBe(a.message);
  });

  it('rejects a wrong code with "Invalid MFA code", and after 5 wrong codes answers "Retries exhausted"', async () => {
    const { client, code } = await startLogin();
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      const res = await client.call(routes.auth.mfa, { body: { code: wrong } });
      expect(res.status).toBe(400);
      expect(res.message).toBe('Invalid MFA code');
    }
    const fifth = await client.call(routes.auth.mfa, { body: { code: wrong } });
    expect(fifth.status).toBe(401);
    expect(fifth.message).toBe('Retries exhausted');
    // The session is gone: even the right code no longer helps; the user must sign in again.
    const late = await client.call(routes.auth.mfa, { body: { code } });
    expect(late.status).toBe(401);
    expect((await client.call(routes.auth.check)).status).toBe(401);
  });

  it('accepts a code once only', async () => {
    const { client, code } = await startLogin();
    expect((await client.call(routes.auth.mfa, { body: { code } })).status).toBe(200);
    const again = await client.call(routes.auth.mfa, { body: { code } });
    expect(again.status).toBe(400);
  });

  it('expires the code after 10 minutes', async () => {
    const { client, code } = await startLogin();
    offsetMs = 10 * 60 * 1000 + 1000;
    try {
      const res = await client.call(routes.auth.mfa, { body: { code } });
      expect(res.status).toBe(401);
    } finally {
      offsetMs = 0;
    }
  });

  it('makes the cookie outlive the browser only with remember-me', async () => {
    const plain = await startLogin();
    const mfaPlain = await plain.client.call(routes.auth.mfa, { body: { code: plain.code } });
    const plainCookie = String(mfaPlain.headers['set-cookie']);
    expect(plainCookie).toMatch(/sid=/);
    expect(plainCookie).not.toMatch(/Expires=/i);
    expect(plainCookie).toMatch(/HttpOnly/i);
    expect(plainCookie).toMatch(/SameSite=Lax/i);

    const remembered = await startLogin(ADMIN.email, ADMIN.password, true);
    const mfaRemembered = await remembered.client.call(routes.auth.mfa, { body: { code: remembered.code } });
    const cookie = String(mfaRemembered.headers['set-cookie']);
    const expires = /Expires=([^;]+)/i.exec(cookie)?.[1];
    expect(expires).toBeDefined();
    const days = (new Date(expires!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
  });

  it('ends the session on the server at logout', async () => {
    const client = await signIn(t);
    const token = client.cookies.get('sid')!;
    const res = await client.call(routes.auth.logout);
    expect(res.status).toBe(200);
    const replay = t.client();
    replay.cookies.set('sid', token);
    expect((await replay.call(routes.password.me)).status).toBe(401);
  });

  it('refreshes the session and reports whether a reset is due', async () => {
    const client = await signIn(t);
    const refreshed = await client.call(routes.auth.refreshAuth);
    expect(refreshed.status).toBe(200);
    expect(refreshed.data.user.email).toBe(ADMIN.email);
    const should = await client.call(routes.auth.shouldResetPassword);
    expect(should.data).toEqual({ forcePasswordReset: false, resetKey: null });
  });
});

describe('CSRF defence', () => {
  it('refuses a cookie-authenticated write without the matching header', async () => {
    const client = await signIn(t);
    const res = await client.raw(
      'POST',
      `${t.config.API_BASE_PATH}/auth/refreshAuth`,
      {},
      { 'x-csrf-token': 'not-the-cookie-value-000' },
    );
    expect(res.status).toBe(403);
    expect(res.message).toBe(API_MESSAGES.csrf);
  });

  it('refuses a write from a foreign origin', async () => {
    const client = await signIn(t);
    const res = await client.raw(
      'POST',
      `${t.config.API_BASE_PATH}/auth/refreshAuth`,
      {},
      { origin: 'https://evil.example' },
    );
    expect(res.status).toBe(403);
  });
});

describe('forgot and reset password', () => {
  it('answers the same for unknown emails and mails nothing', async () => {
    const before = await t.db.select().from(mailOutbox);
    const res = await t.client().call(routes.password.forgotPassword, { body: { email: 'ghost@example.com' } });
    expect(res.status).toBe(200);
    expect(res.message).toBe(API_MESSAGES.forgotPasswordAccepted);
    expect((await t.db.select().from(mailOutbox)).length).toBe(before.length);
  });

  it('mails a single-use link that sets a new password and ends other sessions', async () => {
    const email = 'forgetful@example.com';
    await addUser(email, 'Old-Password-123!', { emailConfirmedAt: new Date() });
    const other = await signIn(t, email, 'Old-Password-123!');

    const res = await t.client().call(routes.password.forgotPassword, { body: { email } });
    expect(res.status).toBe(200);
    expect(res.message).toBe(API_MESSAGES.forgotPasswordAccepted);
    const mail = await t.smtp.waitFor(email, (m) => /reset/i.test(m.subject));
    const link = linkFrom(mail);
    expect(link.pathname).toBe('/resetPassword');
    const token = link.searchParams.get('token')!;
    const id = Number(link.searchParams.get('id'));
    const stored = await t.db.select().from(oneTimeTokens).where(eq(oneTimeTokens.userId, id));
    expect(stored.some((s) => s.tokenHash === token)).toBe(false);

    const weak = await t.client().call(routes.password.resetPasswordFromEmail, {
      params: { token: id },
      body: { password: 'short', resetKey: token },
    });
    expect(weak.status).toBe(400);
    expect(weak.message).toContain('Password must be at least 12 characters long');

    const ok = await t.client().call(routes.password.resetPasswordFromEmail, {
      params: { token: id },
      body: { password: 'New-Password-456!', resetKey: token },
    });
    expect(ok.status).toBe(200);
    const reuse = await t.client().call(routes.password.resetPasswordFromEmail, {
      params: { token: id },
      body: { password: 'Other-Password-789!', resetKey: token },
    });
    expect(reuse.status).toBe(400);
    expect(reuse.message).toBe(API_MESSAGES.invalidResetToken);

    expect((await other.call(routes.password.me)).status).toBe(401);
    expect((await t.client().call(routes.auth.login, { body: { email, password: 'Old-Password-123!' } })).status).toBe(
      401,
    );
    await signIn(t, email, 'New-Password-456!');
  });

  it('refuses a reset key for another user or past its expiry', async () => {
    const a = await addUser('a-reset@example.com', 'Aa-Password-123!');
    const b = await addUser('b-reset@example.com', 'Bb-Password-123!');
    const tokens = createOneTimeTokens({
      db: t.db,
      secret: 'test-secret-that-is-long-enough-0123456789',
      clock,
      random: cryptoRandom,
    });
    const key = await tokens.issue(a.id, 'reset_password', 60_000);
    const wrongUser = await t.client().call(routes.password.resetPasswordFromEmail, {
      params: { token: b.id },
      body: { password: 'New-Password-456!', resetKey: key },
    });
    expect(wrongUser.status).toBe(400);
    offsetMs = 61_000;
    try {
      const late = await t.client().call(routes.password.resetPasswordFromEmail, {
        params: { token: a.id },
        body: { password: 'New-Password-456!', resetKey: key },
      });
      expect(late.status).toBe(400);
    } finally {
      offsetMs = 0;
    }
  });

  it('sends a user who must reset to the reset with a key issued after the code', async () => {
    const email = 'forced@example.com';
    await addUser(email, 'Temp-Password-123!', { forcePasswordReset: true, emailConfirmedAt: new Date() });
    const { client, res, code } = await startLogin(email, 'Temp-Password-123!');
    expect(res.data.user.forcePasswordReset).toBe(true);
    expect(res.data.user.resetKey).toBeNull();
    const mfa = await client.call(routes.auth.mfa, { body: { code } });
    expect(mfa.data.user.forcePasswordReset).toBe(true);
    const resetKey = mfa.data.user.resetKey as string;
    expect(resetKey.length).toBeGreaterThan(20);
    // Until the new password is set, the API answers only the reset flow (not just the portal's redirect).
    const blocked = await client.call(routes.users.list, { query: {} });
    expect(blocked.status).toBe(403);
    expect(blocked.message).toBe('Set a new password before you continue');
    expect((await client.call(routes.vms.list, { query: {} })).status).toBe(403);
    expect((await client.call(routes.password.me)).status).toBe(200);
    expect((await client.call(routes.auth.check)).status).toBe(200);
    const reset = await client.call(routes.password.resetPasswordFromEmail, {
      params: { token: mfa.data.user.id },
      body: { password: 'Fresh-Password-123!', resetKey },
    });
    expect(reset.status).toBe(200);
    // The session that did the reset stays signed in; the flag is cleared.
    const me = await client.call(routes.password.me);
    expect(me.status).toBe(200);
    expect(me.data.forcePasswordReset).toBe(false);
    expect((await client.call(routes.users.list, { query: {} })).status).toBe(200);
  });

  it('changes the password of the signed-in user only with the current one', async () => {
    const email = 'changer@example.com';
    await addUser(email, 'Current-Pass-123!', { emailConfirmedAt: new Date() });
    const client = await signIn(t, email, 'Current-Pass-123!');
    const wrong = await client.call(routes.password.updatePassword, {
      body: { currentPassword: 'nope-Nope-123!', password: 'Next-Password-123!' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.message).toBe(API_MESSAGES.currentPasswordWrong);
    const ok = await client.call(routes.password.updatePassword, {
      body: { currentPassword: 'Current-Pass-123!', password: 'Next-Password-123!' },
    });
    expect(ok.status).toBe(200);
    await signIn(t, email, 'Next-Password-123!');
  });
});

describe('confirming an invitation', () => {
  it('sets names and password with the emailed key, once', async () => {
    const invited = await addUser('invitee@example.com', null);
    const tokens = createOneTimeTokens({
      db: t.db,
      secret: 'test-secret-that-is-long-enough-0123456789',
      clock,
      random: cryptoRandom,
    });
    const key = await tokens.issue(invited.id, 'confirm_email', INVITE_TOKEN_TTL_MS);
    // Before confirming, the account cannot sign in.
    expect(
      (await t.client().call(routes.auth.login, { body: { email: invited.email, password: 'anything-Aa1!' } })).status,
    ).toBe(401);
    const body = { password: 'Invitee-Pass-123!', resetKey: key, firstName: 'Ivy', lastName: 'Invitee' };
    const missingName = await t
      .client()
      .call(routes.password.confirmEmail, { params: { token: invited.id }, body: { ...body, firstName: '' } });
    expect(missingName.status).toBe(400);
    expect(missingName.message).toContain('First Name is Required');
    const ok = await t.client().call(routes.password.confirmEmail, { params: { token: invited.id }, body });
    expect(ok.status).toBe(200);
    const again = await t.client().call(routes.password.confirmEmail, { params: { token: invited.id }, body });
    expect(again.status).toBe(400);
    const client = await signIn(t, invited.email, 'Invitee-Pass-123!');
    const me = await client.call(routes.password.me);
    expect(me.data.firstName).toBe('Ivy');
  });
});
