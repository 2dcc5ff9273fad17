/**
 * Authenticator apps (issue 26 item 1; docs/two-factor.md) through the real server, codes computed here with
 * otplib: enrolment needs a current code, sign-in takes the app's code (window of one step either side, a used
 * code refused on replay) or a recovery code once, wrong codes meet the emailed code's limits, the emailed code
 * stays the fallback, removing needs a code or the password, and users without an app are unchanged.
 */
import { and, eq } from 'drizzle-orm';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { RECOVERY_CODE_COUNT, TOTP_PERIOD_SECONDS, TWO_FACTOR_TEXT } from '@portal/contract/two-factor';
import { auditLog, users, userTotp } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { codeFrom } from '../../../test/smtp-catcher.ts';

// A clock that moves only when told, 10 s into a time step: codes computed here cannot straddle a step.
const start = Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS * 1000 + 10_000;
let offsetMs = 0;
const clock = { now: () => new Date(start + offsetMs) };
/** Moves on by whole minutes (fresh time steps; also past the account's back-off). */
const advance = (minutes: number) => (offsetMs += minutes * 60_000);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => t.close());

/** The app's code `steps` time steps from the server's now. */
function codeAt(secret: string, steps = 0): string {
  const epoch = Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS + steps) * TOTP_PERIOD_SECONDS;
  return generateSync({ secret, epoch });
}

async function enrol(email: string): Promise<{ client: TestClient; secret: string; recoveryCodes: string[] }> {
  await createUser(t, 1, email);
  const client = await signIn(t, email, PASSWORD);
  const started = await client.call(routes.twoFactor.start, { body: {} });
  expect(started.status).toBe(200);
  const { secret } = started.data;
  const confirmed = await client.call(routes.twoFactor.confirm, { body: { code: codeAt(secret) } });
  expect(confirmed.status).toBe(200);
  return { client, secret, recoveryCodes: confirmed.data.recoveryCodes };
}

/** The password step of a user with an app: no mail goes out, the answer says which step is due. */
async function passwordStep(email: string) {
  const client = t.client();
  const before = t.smtp.messages.length;
  const res = await client.call(routes.auth.login, { body: { email, password: PASSWORD } });
  expect(res.status).toBe(200);
  return { client, res, mailsBefore: before };
}

const userId = async (email: string) =>
  (await t.db.select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
const actions = async (email: string) =>
  (
    await t.db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.actorUserId, await userId(email))))
      .orderBy(auditLog.id)
  ).map((r) => r.action);

describe('enrolment', () => {
  it('starts with a secret, URI and QR code, and is on only after a current code', async () => {
    const email = 'totp-enrol@example.com';
    await createUser(t, 1, email);
    const client = await signIn(t, email, PASSWORD);
    expect((await client.call(routes.twoFactor.status)).data).toEqual({
      enabled: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
    });
    const started = await client.call(routes.twoFactor.start, { body: {} });
    expect(started.status).toBe(200);
    const { secret, uri, qrCode } = started.data;
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(uri).toMatch(/^otpauth:\/\/totp\/Northwind%20Hosting:totp-enrol%40example\.com\?/);
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(qrCode.split(',')[1]!, 'base64').toString()).toContain('<svg');

    // Sealed at rest: the row does not hold the secret.
    const [row] = await t.db
      .select()
      .from(userTotp)
      .where(eq(userTotp.userId, await userId(email)));
    expect(row!.secretSealed).not.toContain(secret);
    expect(row!.enabledAt).toBeNull();

    // Not yet in force: the password step still mails a code.
    const notYet = await t.client().call(routes.auth.login, { body: { email, password: PASSWORD } });
    expect(notYet.data.user.secondFactor).toBeUndefined();

    const wrong = await client.call(routes.twoFactor.confirm, { body: { code: codeAt(secret, 3) } });
    expect(wrong.status).toBe(400);
    expect(wrong.message).toBe(TWO_FACTOR_TEXT.wrongCode);
    const malformed = await client.call(routes.twoFactor.confirm, { body: { code: 'abc' } });
    expect(malformed.status).toBe(400);
    expect(malformed.message).toBe(TWO_FACTOR_TEXT.wrongCode);
    expect((await client.call(routes.twoFactor.status)).data.enabled).toBe(false);

    const confirmed = await client.call(routes.twoFactor.confirm, { body: { code: codeAt(secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.message).toBe(TWO_FACTOR_TEXT.enabledMessage);
    expect(confirmed.data.recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(confirmed.data.recoveryCodes).size).toBe(RECOVERY_CODE_COUNT);
    for (const c of confirmed.data.recoveryCodes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    const status = (await client.call(routes.twoFactor.status)).data;
    expect(status).toMatchObject({ enabled: true, recoveryCodesLeft: RECOVERY_CODE_COUNT });

    // A second start while one is on is refused; the one in force stays.
    expect((await client.call(routes.twoFactor.start, { body: {} })).status).toBe(409);
    expect(await actions(email)).toContain('user.twoFactor.enable');
  });
});

describe('sign-in with an authenticator', () => {
  it('asks for the app code instead of mailing one, and the app code signs in', async () => {
    const email = 'totp-signin@example.com';
    const { secret } = await enrol(email);
    advance(2);
    const { client, res, mailsBefore } = await passwordStep(email);
    expect(res.data.user.secondFactor).toBe('authenticator');
    const pending = await client.call(routes.auth.check);
    expect(pending.data).toMatchObject({ authed: false, user: { secondFactor: 'authenticator' } });
    const mfa = await client.call(routes.auth.mfa, { body: { code: codeAt(secret) } });
    expect(mfa.status).toBe(200);
    expect(mfa.data.user.email).toBe(email);
    expect((await client.call(routes.password.me)).status).toBe(200);
    // No code was mailed at any point of it.
    expect(t.smtp.messages.slice(mailsBefore).filter((m) => m.to.includes(email))).toHaveLength(0);
  });

  it('takes codes of one step either side of now, not two', async () => {
    const email = 'totp-window@example.com';
    const { secret } = await enrol(email);
    advance(2);
    const first = await passwordStep(email);
    for (const steps of [-2, 2]) {
      const res = await first.client.call(routes.auth.mfa, { body: { code: codeAt(secret, steps) } });
      expect(res.status).toBe(400);
      expect(res.message).toBe('Invalid MFA code');
    }
    expect((await first.client.call(routes.auth.mfa, { body: { code: codeAt(secret, -1) } })).status).toBe(200);

    advance(2);
    const second = await passwordStep(email);
    expect((await second.client.call(routes.auth.mfa, { body: { code: codeAt(secret, 1) } })).status).toBe(200);
  });

  it('refuses a used code on replay, and a code of an earlier step after it', async () => {
    const email = 'totp-replay@example.com';
    const { secret } = await enrol(email);
    advance(2);
    const code = codeAt(secret);
    const first = await passwordStep(email);
    expect((await first.client.call(routes.auth.mfa, { body: { code } })).status).toBe(200);

    const again = await passwordStep(email);
    const replay = await again.client.call(routes.auth.mfa, { body: { code } });
    expect(replay.status).toBe(400);
    expect(replay.message).toBe('Invalid MFA code');
    const earlier = await again.client.call(routes.auth.mfa, { body: { code: codeAt(secret, -1) } });
    expect(earlier.status).toBe(400);
    // The next step's code is new, and works.
    expect((await again.client.call(routes.auth.mfa, { body: { code: codeAt(secret, 1) } })).status).toBe(200);
  });

  it('takes a recovery code once (any case, with or without its dash), and records its use', async () => {
    const email = 'totp-recovery@example.com';
    const { client: enrolled, recoveryCodes } = await enrol(email);
    const recovery = recoveryCodes[0]!;
    const first = await passwordStep(email);
    const typed = ` ${recovery.replace('-', '').toUpperCase()} `;
    expect((await first.client.call(routes.auth.mfa, { body: { code: typed } })).status).toBe(200);

    const second = await passwordStep(email);
    const reused = await second.client.call(routes.auth.mfa, { body: { code: recovery } });
    expect(reused.status).toBe(400);
    expect(reused.message).toBe('Invalid MFA code');
    expect((await second.client.call(routes.auth.mfa, { body: { code: recoveryCodes[1]! } })).status).toBe(200);
    expect((await enrolled.call(routes.twoFactor.status)).data.recoveryCodesLeft).toBe(RECOVERY_CODE_COUNT - 2);
    expect((await actions(email)).filter((a) => a === 'user.twoFactor.recoveryCodeUsed')).toHaveLength(2);
  });

  it('limits wrong codes like the emailed code: 5 per sign-in, then the account backs off', async () => {
    const email = 'totp-guessed@example.com';
    const { secret } = await enrol(email);
    advance(2);
    const wrong = () => (codeAt(secret) === '000000' ? '111111' : '000000');
    const answers: string[] = [];
    for (let round = 0; round < 2; round++) {
      const { client } = await passwordStep(email);
      for (let i = 0; i < 5; i++)
        answers.push((await client.call(routes.auth.mfa, { body: { code: wrong() } })).message);
    }
    expect(answers.filter((m) => m === 'Invalid MFA code')).toHaveLength(8);
    expect(answers.filter((m) => m === 'Retries exhausted')).toHaveLength(2);

    // Even the right code is not evaluated while the account backs off; nor is a code mailed instead.
    const third = await passwordStep(email);
    const blocked = await third.client.call(routes.auth.mfa, { body: { code: codeAt(secret) } });
    expect(blocked.status).toBe(401);
    expect(blocked.message).toBe('Retries exhausted');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const fourth = await passwordStep(email);
    expect((await fourth.client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(401);

    advance(2);
    const later = await passwordStep(email);
    expect((await later.client.call(routes.auth.mfa, { body: { code: codeAt(secret) } })).status).toBe(200);
  });

  it('mails a code on "Email me a code instead", and the emailed code signs in', async () => {
    const email = 'totp-fallback@example.com';
    await enrol(email);
    const { client, mailsBefore } = await passwordStep(email);
    const asked = await client.call(routes.twoFactor.emailCode, { body: {} });
    expect(asked.status).toBe(200);
    expect(asked.message).toBe(TWO_FACTOR_TEXT.emailSent);
    const mail = await t.smtp.waitFor(
      email,
      (m) => t.smtp.messages.indexOf(m) >= mailsBefore && /verification code/.test(m.subject),
    );
    const mfa = await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } });
    expect(mfa.status).toBe(200);
    // Signed in, the call is not for this session any more.
    expect((await client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(400);
  });

  it('leaves users without an app on the emailed code', async () => {
    const email = 'no-totp@example.com';
    await createUser(t, 1, email);
    const res = await t.client().call(routes.auth.login, { body: { email, password: PASSWORD } });
    expect(res.data.user).not.toHaveProperty('secondFactor');
    await t.smtp.waitFor(email, (m) => /verification code/.test(m.subject));
  });
});

describe('recovery codes and removal', () => {
  it('new recovery codes need a current code and end the old ones', async () => {
    const email = 'totp-regen@example.com';
    const { client, secret, recoveryCodes } = await enrol(email);
    advance(2);
    const refused = await client.call(routes.twoFactor.regenerateRecoveryCodes, { body: { code: codeAt(secret, 3) } });
    expect(refused.status).toBe(400);
    const made = await client.call(routes.twoFactor.regenerateRecoveryCodes, { body: { code: codeAt(secret) } });
    expect(made.status).toBe(200);
    expect(made.data.recoveryCodes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(made.data.recoveryCodes).not.toContain(recoveryCodes[0]);

    const old = await passwordStep(email);
    expect((await old.client.call(routes.auth.mfa, { body: { code: recoveryCodes[0]! } })).status).toBe(400);
    expect((await old.client.call(routes.auth.mfa, { body: { code: made.data.recoveryCodes[0]! } })).status).toBe(200);
  });

  it('removal needs a current code or the password; sign-in goes back to the emailed code', async () => {
    const email = 'totp-remove@example.com';
    const { client, secret } = await enrol(email);
    advance(2);
    const none = await client.call(routes.twoFactor.remove, { body: {} });
    expect(none.status).toBe(400);
    expect(none.message).toBe(TWO_FACTOR_TEXT.wrongCodeOrPassword);
    const bad = await client.call(routes.twoFactor.remove, {
      body: { code: codeAt(secret, 3), password: 'not-the-password' },
    });
    expect(bad.status).toBe(400);
    expect((await client.call(routes.twoFactor.status)).data.enabled).toBe(true);
    const removed = await client.call(routes.twoFactor.remove, { body: { password: PASSWORD } });
    expect(removed.status).toBe(200);
    expect(removed.message).toBe(TWO_FACTOR_TEXT.removedMessage);
    expect((await client.call(routes.twoFactor.status)).data).toEqual({
      enabled: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
    });
    expect(await actions(email)).toEqual(expect.arrayContaining(['user.twoFactor.enable', 'user.twoFactor.remove']));

    // Back to the spec's flow: the code is mailed and signs in (harness signIn does exactly that).
    await signIn(t, email, PASSWORD);

    // Enrol again, then remove with a current code.
    const again = await client.call(routes.twoFactor.start, { body: {} });
    const fresh = again.data.secret;
    expect((await client.call(routes.twoFactor.confirm, { body: { code: codeAt(fresh) } })).status).toBe(200);
    advance(1);
    expect((await client.call(routes.twoFactor.remove, { body: { code: codeAt(fresh) } })).status).toBe(200);
  });

  it('is for signed-in users only', async () => {
    expect((await t.client().call(routes.twoFactor.status)).status).toBe(401);
    expect((await t.client().call(routes.twoFactor.start, { body: {} })).status).toBe(401);
    expect((await t.client().call(routes.twoFactor.emailCode, { body: {} })).status).toBe(401);
  });
});

describe('guessing codes on the Security page', () => {
  it('meets a limit per account across its calls (429 in the envelope), with the sign-in limit as configured', async () => {
    const limited = await createTestApp({ clock, env: { AUTH_RATE_LIMIT_PER_MINUTE: '4' } });
    try {
      const email = 'totp-limit@example.com';
      await createUser(limited, 1, email);
      const client = await signIn(limited, email, PASSWORD);
      const { secret } = (await client.call(routes.twoFactor.start, { body: {} })).data;
      expect((await client.call(routes.twoFactor.confirm, { body: { code: codeAt(secret) } })).status).toBe(200);
      const wrong = { code: codeAt(secret, 3) };
      expect((await client.call(routes.twoFactor.regenerateRecoveryCodes, { body: wrong })).status).toBe(400);
      expect((await client.call(routes.twoFactor.remove, { body: wrong })).status).toBe(400);
      expect((await client.call(routes.twoFactor.remove, { body: wrong })).status).toBe(400);
      // The account's fifth code check this minute: refused before it is looked at, even with the password.
      const refused = await client.call(routes.twoFactor.remove, { body: { password: PASSWORD } });
      expect(refused.status).toBe(429);
      expect(refused.message).toBeTruthy();
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await client.call(routes.twoFactor.status)).data.enabled).toBe(true);
    } finally {
      await limited.close();
    }
  });
});
