/**
 * Passkeys (issue 26 item 1; docs/two-factor.md "Passkeys") through the real server, answered by a software
 * authenticator (test/software-authenticator.ts: P-256 via node:crypto, 'none' attestation): enrolment on the
 * request's host, sign-in with the passkey offered first and no mail, the challenge single use and expiring,
 * another user's credential and a counter that does not go up refused, garbage answers 400, removal by password
 * only, and the company policy counting a passkey as a strong factor.
 */
import { and, eq } from 'drizzle-orm';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTP_PERIOD_SECONDS } from '@portal/contract/two-factor';
import { routes } from '@portal/contract/routes';
import { PASSKEY_TEXT } from '@portal/contract/passkeys';
import { API_MESSAGES } from '@portal/contract/messages';
import { COMPANY_POLICY_TEXT } from '@portal/contract/company-policy';
import { auditLog, companies, userPasskeys, users } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { codeFrom } from '../../../test/smtp-catcher.ts';
import {
  SoftwareAuthenticator,
  type CreationOptions,
  type RequestOptions,
} from '../../../test/software-authenticator.ts';

// The test client's requests come to Host localhost (inject's default): the rp id and the browser's origin.
const ORIGIN = 'http://localhost';
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(async () => t.close());

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

async function addPasskey(client: TestClient, authenticator: SoftwareAuthenticator, name = 'Laptop') {
  const options = await client.call(routes.passkeys.registrationOptions, { body: {} });
  expect(options.status).toBe(200);
  const res = await client.call(routes.passkeys.add, {
    body: { name, response: authenticator.create(options.data as unknown as CreationOptions, ORIGIN) },
  });
  expect(res.status).toBe(200);
  return res;
}

async function enrol(email: string) {
  await createUser(t, 1, email);
  const client = await signIn(t, email, PASSWORD);
  const authenticator = new SoftwareAuthenticator();
  await addPasskey(client, authenticator);
  return { client, authenticator };
}

/** The password step of a user with a passkey: no mail goes out. */
async function passwordStep(email: string) {
  const client = t.client();
  const before = t.smtp.messages.length;
  const res = await client.call(routes.auth.login, { body: { email, password: PASSWORD } });
  expect(res.status).toBe(200);
  return { client, res, mailsBefore: before };
}

async function signInOptions(client: TestClient): Promise<RequestOptions> {
  const res = await client.call(routes.passkeys.signInOptions, { body: {} });
  expect(res.status).toBe(200);
  return res.data as unknown as RequestOptions;
}

describe('enrolment', () => {
  it('registers a passkey on the request host, lists it, audits it; the answer works once', async () => {
    const email = 'passkey-enrol@example.com';
    await createUser(t, 1, email);
    const client = await signIn(t, email, PASSWORD);
    expect((await client.call(routes.passkeys.list)).data).toEqual([]);

    const options = await client.call(routes.passkeys.registrationOptions, { body: {} });
    expect(options.status).toBe(200);
    const creation = options.data as unknown as CreationOptions & {
      authenticatorSelection: { userVerification: string };
      attestation: string;
    };
    expect(creation.rp).toEqual({ id: 'localhost', name: 'Northwind Hosting' });
    expect(creation.authenticatorSelection.userVerification).toBe('preferred');
    expect(creation.attestation).toBe('none');

    const authenticator = new SoftwareAuthenticator();
    const response = authenticator.create(creation, ORIGIN);
    const added = await client.call(routes.passkeys.add, { body: { name: ' Work laptop ', response } });
    expect(added.status).toBe(200);
    expect(added.message).toBe(PASSKEY_TEXT.addedMessage);
    expect(added.data).toMatchObject({ name: 'Work laptop', lastUsedAt: null });
    const list = (await client.call(routes.passkeys.list)).data;
    expect(list).toEqual([added.data]);
    const [row] = await t.db
      .select()
      .from(userPasskeys)
      .where(eq(userPasskeys.userId, await userId(email)));
    expect(row).toMatchObject({ credentialId: authenticator.id, rpId: 'localhost', counter: 0 });
    expect(row!.transports).toEqual(['internal']);
    expect(await actions(email)).toContain('user.passkey.add');

    // The same answer again: its challenge is gone.
    const replay = await client.call(routes.passkeys.add, { body: { name: 'Again', response } });
    expect(replay.status).toBe(400);
    expect(replay.message).toBe(PASSKEY_TEXT.noChallenge);

    // The same authenticator again under a fresh challenge: already added.
    const again = await client.call(routes.passkeys.registrationOptions, { body: {} });
    expect((again.data as unknown as { excludeCredentials: { id: string }[] }).excludeCredentials).toEqual([
      expect.objectContaining({ id: authenticator.id }),
    ]);
    const twice = await client.call(routes.passkeys.add, {
      body: { name: 'Twice', response: authenticator.create(again.data as unknown as CreationOptions, ORIGIN) },
    });
    expect(twice.status).toBe(409);
    expect(twice.message).toBe(PASSKEY_TEXT.alreadyRegistered);
  });

  it('refuses an answer for another origin or rp, an expired challenge, and garbage, with 400', async () => {
    const email = 'passkey-refusals@example.com';
    await createUser(t, 1, email);
    const client = await signIn(t, email, PASSWORD);
    const authenticator = new SoftwareAuthenticator();
    const fresh = async () =>
      (await client.call(routes.passkeys.registrationOptions, { body: {} })).data as unknown as CreationOptions;

    const wrongOrigin = await client.call(routes.passkeys.add, {
      body: { name: 'X', response: authenticator.create(await fresh(), 'https://evil.example') },
    });
    expect(wrongOrigin.status).toBe(400);
    expect(wrongOrigin.message).toBe(PASSKEY_TEXT.notVerified);
    const wrongRp = await client.call(routes.passkeys.add, {
      body: { name: 'X', response: authenticator.create(await fresh(), ORIGIN, 'evil.example') },
    });
    expect(wrongRp.status).toBe(400);

    const late = await fresh();
    offsetMs += 5 * 60_000 + 1000;
    const expired = await client.call(routes.passkeys.add, {
      body: { name: 'X', response: authenticator.create(late, ORIGIN) },
    });
    offsetMs -= 5 * 60_000 + 1000;
    expect(expired.status).toBe(400);
    expect(expired.message).toBe(PASSKEY_TEXT.noChallenge);

    // Garbage in every place: the contract's shape, then what only the library can tell.
    const valid = authenticator.create(await fresh(), ORIGIN);
    const garbage: unknown[] = [
      'not json at all',
      { name: 'X', response: 'nope' },
      { name: 'X', response: { ...valid, type: 'password' } },
      { name: 'X', response: { ...valid, response: { clientDataJSON: 'e30', attestationObject: '!!' } } },
      { name: '', response: valid },
      { name: 'X', response: valid, extra: 1 },
    ];
    for (const body of garbage) {
      const res = await client.raw('POST', `/irontech/api/v1/users/passkeys`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    await fresh();
    const notCbor = await client.call(routes.passkeys.add, {
      body: { name: 'X', response: { ...valid, response: { ...valid.response, attestationObject: 'AAAA' } } },
    });
    expect(notCbor.status).toBe(400);
    expect(notCbor.message).toBe(PASSKEY_TEXT.notVerified);
    await fresh();
    const notJson = await client.call(routes.passkeys.add, {
      body: { name: 'X', response: { ...valid, response: { ...valid.response, clientDataJSON: 'bm90IGpzb24' } } },
    });
    expect(notJson.status).toBe(400);
    expect((await client.call(routes.passkeys.list)).data).toEqual([]);
  });
});

describe('the relying party', () => {
  it('is the host the request came to (port dropped for the rp id, kept in the origin): a passkey works there only', async () => {
    const email = 'passkey-host@example.com';
    await createUser(t, 1, email);
    const client = await signIn(t, email, PASSWORD);
    const other = { host: 'portal.example:8443' };
    const options = await client.call(routes.passkeys.registrationOptions, { body: {}, headers: other });
    expect(options.status).toBe(200);
    const creation = options.data as unknown as CreationOptions;
    expect(creation.rp.id).toBe('portal.example');
    const authenticator = new SoftwareAuthenticator();
    // The origin the browser shows there includes the port; without it the answer is refused.
    const wrong = await client.call(routes.passkeys.add, {
      body: { name: 'Elsewhere', response: authenticator.create(creation, 'http://portal.example') },
      headers: other,
    });
    expect(wrong.status).toBe(400);
    const again = (await client.call(routes.passkeys.registrationOptions, { body: {}, headers: other }))
      .data as unknown as CreationOptions;
    const added = await client.call(routes.passkeys.add, {
      body: { name: 'Elsewhere', response: authenticator.create(again, 'http://portal.example:8443') },
      headers: other,
    });
    expect(added.status).toBe(200);

    // Signing in on localhost: that passkey is not offered there; on its own host it signs in.
    const here = await passwordStep(email);
    const none = await here.client.call(routes.passkeys.signInOptions, { body: {} });
    expect(none.status).toBe(400);
    expect(none.message).toBe(PASSKEY_TEXT.noPasskeys);
    const there = t.client();
    await there.call(routes.auth.login, { body: { email, password: PASSWORD }, headers: other });
    const request = (await there.call(routes.passkeys.signInOptions, { body: {}, headers: other }))
      .data as unknown as RequestOptions;
    expect(request.rpId).toBe('portal.example');
    const done = await there.call(routes.passkeys.signIn, {
      body: { response: authenticator.get(request, 'http://portal.example:8443') },
      headers: other,
    });
    expect(done.status).toBe(200);
  });
});

describe('sign-in with a passkey', () => {
  it('offers the passkey first, mails nothing, and the assertion signs in (counter and last use kept)', async () => {
    const email = 'passkey-signin@example.com';
    const { authenticator } = await enrol(email);
    const { client, res, mailsBefore } = await passwordStep(email);
    expect(res.data.user).toMatchObject({ secondFactor: 'passkey', factors: ['passkey'] });
    expect(res.data.user.emailFallback).toBeUndefined();
    expect((await client.call(routes.auth.check)).data).toMatchObject({
      authed: false,
      user: { secondFactor: 'passkey', factors: ['passkey'] },
    });
    const options = await signInOptions(client);
    expect(options.rpId).toBe('localhost');
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: authenticator.id })]);

    const done = await client.call(routes.passkeys.signIn, { body: { response: authenticator.get(options, ORIGIN) } });
    expect(done.status).toBe(200);
    expect(done.data.user.email).toBe(email);
    expect((await client.call(routes.password.me)).status).toBe(200);
    expect(t.smtp.messages.slice(mailsBefore).filter((m) => m.to.includes(email))).toHaveLength(0);
    const list = (await client.call(routes.passkeys.list)).data;
    expect(list[0]!.lastUsedAt).not.toBeNull();
    const [row] = await t.db.select().from(userPasskeys).where(eq(userPasskeys.credentialId, authenticator.id));
    expect(row!.counter).toBe(1);
    expect(await actions(email)).toEqual(expect.arrayContaining(['user.passkey.use', 'user.signIn']));
  });

  it('refuses a replayed challenge, an expired one, a counter that does not go up, and another user’s passkey', async () => {
    const email = 'passkey-replay@example.com';
    const { authenticator } = await enrol(email);

    // Replay: the answer that signed in once, sent again in a new sign-in (whose challenge differs).
    const first = await passwordStep(email);
    const used = authenticator.get(await signInOptions(first.client), ORIGIN);
    expect((await first.client.call(routes.passkeys.signIn, { body: { response: used } })).status).toBe(200);
    const second = await passwordStep(email);
    await signInOptions(second.client);
    const replayed = await second.client.call(routes.passkeys.signIn, { body: { response: used } });
    expect(replayed.status).toBe(400);
    expect(replayed.message).toBe(PASSKEY_TEXT.notVerified);
    // The challenge went with that answer: a right answer to it is refused too.
    const stale = await second.client.call(routes.passkeys.signIn, {
      body: { response: authenticator.get({ challenge: 'x' }, ORIGIN) },
    });
    expect(stale.status).toBe(400);

    // Counter regression (a cloned authenticator): the stored counter is 1; an answer with 1 is refused.
    const third = await passwordStep(email);
    const options = await signInOptions(third.client);
    const cloned = authenticator.assert(options.challenge, ORIGIN, 'localhost', 1);
    expect((await third.client.call(routes.passkeys.signIn, { body: { response: cloned } })).status).toBe(400);
    const [row] = await t.db.select().from(userPasskeys).where(eq(userPasskeys.credentialId, authenticator.id));
    expect(row!.counter).toBe(1);

    // Expired: 5 minutes after the options, the right answer is refused.
    const fourth = await passwordStep(email);
    const late = await signInOptions(fourth.client);
    offsetMs += 5 * 60_000 + 1000;
    const expired = await fourth.client.call(routes.passkeys.signIn, {
      body: { response: authenticator.get(late, ORIGIN) },
    });
    offsetMs -= 5 * 60_000 + 1000;
    expect(expired.status).toBe(400);

    // Another user's passkey answering this user's challenge.
    const other = 'passkey-other@example.com';
    await enrol(other);
    const theirs = await passwordStep(other);
    const theirOptions = await signInOptions(theirs.client);
    const wrongUser = await theirs.client.call(routes.passkeys.signIn, {
      body: { response: authenticator.get(theirOptions, ORIGIN) },
    });
    expect(wrongUser.status).toBe(400);
    expect((await theirs.client.call(routes.password.me)).status).toBe(401);
  });

  it('counts wrong answers like wrong codes: the fifth ends the sign-in', async () => {
    const email = 'passkey-attempts@example.com';
    const { authenticator } = await enrol(email);
    const { client } = await passwordStep(email);
    for (let i = 0; i < 4; i++) {
      await signInOptions(client);
      const bad = authenticator.assert('wrong', ORIGIN, 'localhost', 100 + i);
      expect((await client.call(routes.passkeys.signIn, { body: { response: bad } })).status).toBe(400);
    }
    await signInOptions(client);
    const fifth = await client.call(routes.passkeys.signIn, {
      body: { response: authenticator.assert('wrong', ORIGIN, 'localhost', 200) },
    });
    expect(fifth.status).toBe(401);
    expect(fifth.message).toBe(API_MESSAGES.retriesExhausted);
  });

  it('answers 400 to garbage, and the options need a pending session with a passkey', async () => {
    const email = 'passkey-garbage@example.com';
    const { authenticator } = await enrol(email);
    const { client } = await passwordStep(email);
    const options = await signInOptions(client);
    const valid = authenticator.get(options, ORIGIN);
    for (const body of [
      '{"response":',
      { response: null },
      { response: { ...valid, response: { ...valid.response, signature: 'not base64url!' } } },
      { response: { ...valid, id: '' } },
    ]) {
      const res = await client.raw('POST', '/irontech/api/v1/auth/mfa/passkey', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    await signInOptions(client);
    const notCbor = await client.call(routes.passkeys.signIn, {
      body: {
        response: { ...valid, response: { ...valid.response, authenticatorData: 'AAAA', clientDataJSON: 'e30' } },
      },
    });
    expect(notCbor.status).toBe(400);

    // A user without a passkey has no options to ask for; nobody without a session does either.
    const plain = 'passkey-none@example.com';
    await createUser(t, 1, plain);
    const withoutPasskey = t.client();
    await withoutPasskey.call(routes.auth.login, { body: { email: plain, password: PASSWORD } });
    const none = await withoutPasskey.call(routes.passkeys.signInOptions, { body: {} });
    expect(none.status).toBe(400);
    expect(none.message).toBe(PASSKEY_TEXT.noPasskeys);
    expect((await t.client().call(routes.passkeys.signInOptions, { body: {} })).status).toBe(401);
  });

  it('offers the passkey before the app, and the app still signs in', async () => {
    const email = 'passkey-and-app@example.com';
    const { client } = await enrol(email);
    const started = await client.call(routes.twoFactor.start, { body: {} });
    const code = (steps = 0) =>
      generateSync({
        secret: started.data.secret,
        epoch: (Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS) + steps) * TOTP_PERIOD_SECONDS,
      });
    expect((await client.call(routes.twoFactor.confirm, { body: { code: code() } })).status).toBe(200);
    const { client: pending, res } = await passwordStep(email);
    expect(res.data.user).toMatchObject({ secondFactor: 'passkey', factors: ['passkey', 'authenticator'] });
    // The confirming code's step is spent: the next step's code.
    expect((await pending.call(routes.auth.mfa, { body: { code: code(1) } })).status).toBe(200);
  });

  it('lets the user switch: the emailed code stays the fallback', async () => {
    const email = 'passkey-fallback@example.com';
    await enrol(email);
    const { client } = await passwordStep(email);
    const before = t.smtp.messages.length;
    expect((await client.call(routes.twoFactor.emailCode, { body: {} })).status).toBe(200);
    const mail = await t.smtp.waitFor(email, (m) => t.smtp.messages.indexOf(m) >= before);
    expect((await client.call(routes.auth.mfa, { body: { code: codeFrom(mail) } })).status).toBe(200);
  });
});

describe('managing passkeys', () => {
  it('renames and removes (the password, not a guess); another user’s passkey is not found', async () => {
    const email = 'passkey-manage@example.com';
    const { client } = await enrol(email);
    const [passkey] = (await client.call(routes.passkeys.list)).data;
    const renamed = await client.call(routes.passkeys.rename, {
      params: { id: passkey!.id },
      body: { name: 'Phone' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.data.name).toBe('Phone');
    expect(
      (await client.call(routes.passkeys.rename, { params: { id: passkey!.id }, body: { name: '' } })).status,
    ).toBe(400);

    const other = 'passkey-manage-other@example.com';
    await createUser(t, 1, other);
    const otherClient = await signIn(t, other, PASSWORD);
    expect(
      (await otherClient.call(routes.passkeys.rename, { params: { id: passkey!.id }, body: { name: 'Mine' } })).status,
    ).toBe(404);
    expect(
      (
        await otherClient.call(routes.passkeys.remove, {
          params: { id: passkey!.id },
          body: { password: PASSWORD },
        })
      ).status,
    ).toBe(404);

    const wrong = await client.call(routes.passkeys.remove, {
      params: { id: passkey!.id },
      body: { password: 'not-the-password' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.message).toBe(PASSKEY_TEXT.wrongPassword);
    const guess = await client.call(routes.passkeys.remove, { params: { id: passkey!.id }, body: { code: '123456' } });
    expect(guess.status).toBe(400);
    expect(guess.message).toBe(PASSKEY_TEXT.wrongPasswordOrCode);
    const removed = await client.call(routes.passkeys.remove, {
      params: { id: passkey!.id },
      body: { password: PASSWORD },
    });
    expect(removed.status).toBe(200);
    expect(removed.message).toBe(PASSKEY_TEXT.removedMessage);
    expect((await client.call(routes.passkeys.list)).data).toEqual([]);
    expect(await actions(email)).toEqual(expect.arrayContaining(['user.passkey.add', 'user.passkey.remove']));
    // Back to the emailed code.
    const { res } = await passwordStep(email);
    expect(res.data.user.secondFactor).toBeUndefined();
    expect(res.data.user.factors).toBeUndefined();
  });
});

describe('company policy', () => {
  it('counts a passkey as a strong factor: no emailed fallback, and the last one cannot be removed', async () => {
    const email = 'passkey-policy@example.com';
    const { client } = await enrol(email);
    await t.db.update(companies).set({ requireAuthenticator: true }).where(eq(companies.id, 1));
    try {
      const { client: pending, res } = await passwordStep(email);
      expect(res.data.user).toMatchObject({ secondFactor: 'passkey', emailFallback: false });
      const refused = await pending.call(routes.twoFactor.emailCode, { body: {} });
      expect(refused.status).toBe(403);
      expect(refused.message).toBe(COMPANY_POLICY_TEXT.noEmailFallback);
      const [passkey] = (await client.call(routes.passkeys.list)).data;
      const last = await client.call(routes.passkeys.remove, {
        params: { id: passkey!.id },
        body: { password: PASSWORD },
      });
      expect(last.status).toBe(403);
      expect(last.message).toBe(PASSKEY_TEXT.lastStrongFactor);
    } finally {
      await t.db.update(companies).set({ requireAuthenticator: false }).where(eq(companies.id, 1));
    }
  });

  it('a user held to the set-up by the policy may add a passkey instead of an app', async () => {
    const email = 'passkey-held@example.com';
    await createUser(t, 1, email);
    await t.db.update(companies).set({ requireAuthenticator: true }).where(eq(companies.id, 1));
    try {
      const client = await signIn(t, email, PASSWORD);
      const held = await client.call(routes.vms.list, { query: {} });
      expect(held.status).toBe(403);
      expect(held.message).toBe(COMPANY_POLICY_TEXT.setUpRequired);
      // The passkey routes are part of the set-up, like the app's.
      expect((await client.call(routes.passkeys.list)).status).toBe(200);
      await addPasskey(client, new SoftwareAuthenticator());
      expect((await client.call(routes.passkeys.list)).data).toHaveLength(1);
      // The passkey is the strong factor the policy asks for: the hold is lifted.
      const after = await client.call(routes.vms.list, { query: {} });
      expect(after.status, after.message).toBe(200);
    } finally {
      await t.db.update(companies).set({ requireAuthenticator: false }).where(eq(companies.id, 1));
    }
  });
});
