/**
 * Step-up before the most destructive actions and the reseller's staff policy (issue 26 item 2; docs/two-factor.md
 * "Step-up", "Reseller staff policy"), through the real server on both engines. A fresh sign-in counts as stepped up
 * for 5 minutes; past that, deleting a VM (one or in bulk), rebuilding one, removing a user and rotating the billing
 * webhook's secret answer 403 "Confirm it is you" until POST /auth/stepUp proves the password, an app's code or a
 * passkey (answered by test/software-authenticator.ts: single use, the counter must rise, the user's own credential
 * only). An `act` API token passes. Another company's ids stay 404 after the step-up. The staff policy: no emailed
 * fallback for staff with a factor, its own wording, and the last factor kept.
 */
import { and, eq } from 'drizzle-orm';
import { generateSync } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESELLER_POLICY_TEXT } from '@portal/contract/company-policy';
import { PASSKEY_TEXT } from '@portal/contract/passkeys';
import { routes } from '@portal/contract/routes';
import { STEP_UP_TEXT } from '@portal/contract/step-up';
import { TOTP_PERIOD_SECONDS } from '@portal/contract/two-factor';
import { auditLog, companies } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, insertVm, PASSWORD } from '../../../test/fixtures.ts';
import {
  SoftwareAuthenticator,
  type CreationOptions,
  type RequestOptions,
} from '../../../test/software-authenticator.ts';

// The test client's requests come to Host localhost: the passkeys' rp id and the browser's origin.
const ORIGIN = 'http://localhost';

// A clock that moves only when told, 10 s into a time step: codes computed here cannot straddle a step.
const start = Math.floor(Date.now() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS * 1000 + 10_000;
let offsetMs = 0;
const clock = { now: () => new Date(start + offsetMs) };
const advance = (minutes: number) => (offsetMs += minutes * 60_000);
const RATE = 4;
let t: TestApp;
let admin: TestClient;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    env: { AUTH_RATE_LIMIT_PER_MINUTE: '100', BILLING_WEBHOOK_ALLOW_HTTP: 'true', EGRESS_ALLOW: '127.0.0.1/32' },
  });
  admin = await signIn(t);
});
afterAll(async () => t.close());

const codeNow = (secret: string) =>
  generateSync({
    secret,
    epoch: Math.floor(clock.now().getTime() / 1000 / TOTP_PERIOD_SECONDS) * TOTP_PERIOD_SECONDS,
  });

async function enrol(client: TestClient): Promise<string> {
  const started = await client.call(routes.twoFactor.start, { body: {} });
  expect(started.status, started.message).toBe(200);
  const confirmed = await client.call(routes.twoFactor.confirm, { body: { code: codeNow(started.data.secret) } });
  expect(confirmed.status, confirmed.message).toBe(200);
  advance(1);
  return started.data.secret;
}

async function addPasskey(client: TestClient, name = 'Laptop'): Promise<SoftwareAuthenticator> {
  const authenticator = new SoftwareAuthenticator();
  const options = await client.call(routes.passkeys.registrationOptions, { body: {} });
  expect(options.status, options.message).toBe(200);
  const added = await client.call(routes.passkeys.add, {
    body: { name, response: authenticator.create(options.data as unknown as CreationOptions, ORIGIN) },
  });
  expect(added.status, added.message).toBe(200);
  return authenticator;
}

async function stepUpOptions(client: TestClient): Promise<RequestOptions> {
  const res = await client.call(routes.stepUp.passkeyOptions, { body: {} });
  expect(res.status, res.message).toBe(200);
  return res.data as unknown as RequestOptions;
}

const stoppedVm = (name: string, companyId = 1) => insertVm(t, { companyId, teamId: null, name, status: 'Stopped' });

describe('step-up before destructive actions', () => {
  it('a fresh sign-in counts for 5 minutes; then delete, bulk delete and rebuild answer 403 until a step-up', async () => {
    const fresh = await stoppedVm('step-up-fresh');
    const del = await admin.call(routes.vms.delete, { params: { id: fresh.id } });
    expect(del.status, del.message).toBe(200);

    advance(6);
    const stale = await stoppedVm('step-up-stale');
    const refused = await admin.call(routes.vms.delete, { params: { id: stale.id } });
    expect(refused.status).toBe(403);
    expect(refused.message).toBe(STEP_UP_TEXT.required);
    const bulk = await admin.call(routes.vms.bulk, { body: { action: 'delete', ids: [stale.id] } });
    expect([bulk.status, bulk.message]).toEqual([403, STEP_UP_TEXT.required]);
    const rebuild = await admin.call(routes.vms.rebuild, { params: { id: stale.id }, body: { image: 'Debian 12' } });
    expect([rebuild.status, rebuild.message]).toEqual([403, STEP_UP_TEXT.required]);
    // What is not destructive is not asked: a bulk start.
    const other = await stoppedVm('step-up-start');
    expect((await admin.call(routes.vms.bulk, { body: { action: 'start', ids: [other.id] } })).status).toBe(200);

    // Bad input is 400 in the envelope, never 500; a wrong password is 400.
    const empty = await admin.call(routes.stepUp.stepUp, { body: {} });
    expect([empty.status, empty.message]).toEqual([400, STEP_UP_TEXT.missing]);
    expect((await admin.call(routes.stepUp.stepUp, { body: { password: 42 } })).status).toBe(400);
    expect((await admin.call(routes.stepUp.stepUp, { body: { password: 'x', extra: 1 } })).status).toBe(400);
    const wrong = await admin.call(routes.stepUp.stepUp, { body: { password: 'not the password' } });
    expect([wrong.status, wrong.message]).toEqual([400, STEP_UP_TEXT.wrong]);

    const ok = await admin.call(routes.stepUp.stepUp, { body: { password: ADMIN.password } });
    expect(ok.status, ok.message).toBe(200);
    expect(new Date(ok.data.steppedUpUntil).getTime()).toBe(clock.now().getTime() + 5 * 60_000);
    expect((await admin.call(routes.vms.delete, { params: { id: stale.id } })).status).toBe(200);
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'user.stepUp'));
    expect(entry?.actorUserId).toBeTypeOf('number');

    // Another company's VM is still 404 to a stepped-up caller.
    const stranger = await createOtherCompany(t, 'boss@step-up-other.example');
    const theirs = await stoppedVm('their-vm', stranger.companyId);
    expect((await admin.call(routes.vms.delete, { params: { id: theirs.id } })).status).toBe(404);
  });

  it('removing a user needs it too; an authenticator code is accepted', async () => {
    const member = await createUser(t, 1, 'step-up-member@example.com', { isCompanyAdmin: true });
    const client = await signIn(t, member.email, PASSWORD);
    const secret = await enrol(client);
    const doomed = await createUser(t, 1, 'step-up-doomed@example.com');
    advance(6);
    const refused = await client.call(routes.users.delete, { params: { id: doomed.id } });
    expect([refused.status, refused.message]).toEqual([403, STEP_UP_TEXT.required]);
    const stepped = await client.call(routes.stepUp.stepUp, { body: { code: codeNow(secret) } });
    expect(stepped.status, stepped.message).toBe(200);
    // The same code again is a replay: refused.
    advance(0);
    const replay = await client.call(routes.stepUp.stepUp, { body: { code: codeNow(secret) } });
    expect(replay.status).toBe(400);
    expect((await client.call(routes.users.delete, { params: { id: doomed.id } })).status).toBe(200);
  });

  it('an act API token may delete (automation has no one to ask); a read token may not', async () => {
    const act = await admin.call(routes.apiTokens.create, {
      body: { name: 'ci', scope: 'act', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() },
    });
    expect(act.status, act.message).toBe(200);
    advance(10);
    const vm = await stoppedVm('step-up-token');
    const bearer = t.client();
    const del = await bearer.call(routes.vms.delete, {
      params: { id: vm.id },
      headers: { authorization: `Bearer ${act.data.token}` },
    });
    expect(del.status, del.message).toBe(200);
    const read = await admin.call(routes.stepUp.stepUp, { body: { password: ADMIN.password } });
    expect(read.status).toBe(200);
    const readToken = await admin.call(routes.apiTokens.create, {
      body: { name: 'ro', scope: 'read', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() },
    });
    const other = await stoppedVm('step-up-read-token');
    const refused = await t.client().call(routes.vms.delete, {
      params: { id: other.id },
      headers: { authorization: `Bearer ${readToken.data.token}` },
    });
    expect(refused.status).toBe(403);
    expect(refused.message).not.toBe(STEP_UP_TEXT.required);
    // And the step-up route itself is the session's: a token gets 403.
    const viaToken = await bearer.call(routes.stepUp.stepUp, {
      body: { password: ADMIN.password },
      headers: { authorization: `Bearer ${act.data.token}` },
    });
    expect(viaToken.status).toBe(403);
  });

  it('wrong answers are rate-limited per account', async () => {
    const limited = await createTestApp({ clock, env: { AUTH_RATE_LIMIT_PER_MINUTE: String(RATE) } });
    const user = await createUser(limited, 1, 'step-up-guesser@example.com');
    const client = await signIn(limited, user.email, PASSWORD);
    const statuses: number[] = [];
    for (let i = 0; i < RATE + 1; i++)
      statuses.push((await client.call(routes.stepUp.stepUp, { body: { password: `guess-${i}` } })).status);
    expect(statuses.slice(0, RATE).every((s) => s === 400)).toBe(true);
    expect(statuses[RATE]).toBe(429);
    // Even the right password waits out the minute.
    expect((await client.call(routes.stepUp.stepUp, { body: { password: PASSWORD } })).status).toBe(429);
    await limited.close();
  });
});

describe('a passkey as step-up proof', () => {
  it('stale: 403; the passkey proves it and the delete goes through; replays, stale counters and others refused', async () => {
    const user = await createUser(t, 1, 'step-up-passkey@example.com', { isCompanyAdmin: true });
    const client = await signIn(t, user.email, PASSWORD);
    const mine = await addPasskey(client);
    const stranger = await createUser(t, 1, 'step-up-passkey-other@example.com');
    const theirs = await addPasskey(await signIn(t, stranger.email, PASSWORD));

    advance(6);
    const vm = await stoppedVm('step-up-passkey');
    const refused = await client.call(routes.vms.delete, { params: { id: vm.id } });
    expect([refused.status, refused.message]).toEqual([403, STEP_UP_TEXT.required]);

    // Another user's credential, even over this session's challenge: refused (and the challenge is spent).
    let options = await stepUpOptions(client);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([mine.id]);
    const foreign = await client.call(routes.stepUp.stepUp, { body: { passkey: theirs.get(options, ORIGIN) } });
    expect([foreign.status, foreign.message]).toEqual([400, PASSKEY_TEXT.notVerified]);
    const late = await client.call(routes.stepUp.stepUp, { body: { passkey: mine.get(options, ORIGIN) } });
    expect([late.status, late.message]).toEqual([400, PASSKEY_TEXT.notVerified]);
    expect((await client.call(routes.vms.delete, { params: { id: vm.id } })).status).toBe(403);

    // An expired challenge (5 minutes): refused.
    options = await stepUpOptions(client);
    advance(6);
    expect((await client.call(routes.stepUp.stepUp, { body: { passkey: mine.get(options, ORIGIN) } })).status).toBe(
      400,
    );

    options = await stepUpOptions(client);
    const answer = mine.get(options, ORIGIN);
    const ok = await client.call(routes.stepUp.stepUp, { body: { passkey: answer } });
    expect(ok.status, ok.message).toBe(200);
    expect(ok.message).toBe(STEP_UP_TEXT.done);
    expect(new Date(ok.data.steppedUpUntil).getTime()).toBe(clock.now().getTime() + 5 * 60_000);
    expect((await client.call(routes.vms.delete, { params: { id: vm.id } })).status).toBe(200);

    // The same answer again: its challenge is gone, so it proves nothing.
    advance(6);
    const replay = await client.call(routes.stepUp.stepUp, { body: { passkey: answer } });
    expect([replay.status, replay.message]).toEqual([400, PASSKEY_TEXT.notVerified]);
    const next = await stoppedVm('step-up-passkey-replay');
    expect((await client.call(routes.vms.delete, { params: { id: next.id } })).status).toBe(403);
    // A counter that does not go up past the one just used (a cloned authenticator): refused.
    options = await stepUpOptions(client);
    const cloned = mine.assert(options.challenge, ORIGIN, 'localhost', mine.counter);
    const clone = await client.call(routes.stepUp.stepUp, { body: { passkey: cloned } });
    expect([clone.status, clone.message]).toEqual([400, PASSKEY_TEXT.notVerified]);
    expect((await client.call(routes.vms.delete, { params: { id: next.id } })).status).toBe(403);

    // Garbage is 400 in the envelope, never 500.
    const garbage = await client.call(routes.stepUp.stepUp, { body: { passkey: { id: 'x' } } });
    expect(garbage.status).toBe(400);
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.stepUp'), eq(auditLog.actorUserId, user.id)));
    expect(entry).toBeTruthy();
  });

  it('a user without a passkey on this host gets 400 from the options; a token 403', async () => {
    const none = await admin.call(routes.stepUp.passkeyOptions, { body: {} });
    expect([none.status, none.message]).toEqual([400, PASSKEY_TEXT.noPasskeys]);
    const token = await admin.call(routes.apiTokens.create, {
      body: { name: 'pk', scope: 'act', expiresAt: new Date(clock.now().getTime() + 86_400_000).toISOString() },
    });
    const viaToken = await t.client().call(routes.stepUp.passkeyOptions, {
      body: {},
      headers: { authorization: `Bearer ${token.data.token}` },
    });
    expect(viaToken.status).toBe(403);
  });
});

describe("a reseller owner's staff policy", () => {
  let resellerId: number;
  let owner: TestClient;
  let support: TestClient;
  beforeAll(async () => {
    const other = await createOtherCompany(t, 'admin@staff-policy.example');
    const [company] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
    resellerId = company!.resellerId;
    const [staff] = await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning();
    await createUser(t, staff!.id, 'owner@staff-policy.example', { staffRole: 'owner' });
    await createUser(t, staff!.id, 'support@staff-policy.example', { staffRole: 'support' });
    owner = await signIn(t, 'owner@staff-policy.example', PASSWORD);
    support = await signIn(t, 'support@staff-policy.example', PASSWORD);
  });

  it("is the owner's to change, once they have a factor; staff without one are held to the set-up", async () => {
    expect((await support.call(routes.resellerPolicy.get)).data).toEqual({ requireStaffAuthenticator: false });
    const bySupport = await support.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: true } });
    expect([bySupport.status, bySupport.message]).toEqual([403, RESELLER_POLICY_TEXT.ownerOnly]);
    const noFactor = await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: true } });
    expect([noFactor.status, noFactor.message]).toEqual([409, RESELLER_POLICY_TEXT.ownFactorFirst]);
    expect((await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: 'yes' } })).status).toBe(
      400,
    );
    // Customers have no say (and no view).
    expect((await admin.call(routes.resellerPolicy.get)).status).toBe(403);

    await enrol(owner);
    const on = await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: true } });
    expect(on.status, on.message).toBe(200);
    expect(on.message).toBe(RESELLER_POLICY_TEXT.onMessage);

    // Support has no factor: held on the reseller area's calls, but the set-up and the policy answer.
    const held = await support.call(routes.resellerCompanies.list, { query: {} });
    // In the reseller's words, not the company's (docs/two-factor.md "Reseller staff policy").
    expect([held.status, held.message]).toEqual([403, RESELLER_POLICY_TEXT.setUpRequired]);
    expect((await support.call(routes.resellerPolicy.get)).status).toBe(200);
    expect((await support.call(routes.auth.check)).data).toMatchObject({ authed: true, mustSetUpTwoFactor: true });
    await enrol(support);
    expect((await support.call(routes.resellerCompanies.list, { query: {} })).status).toBe(200);
    // The owner, with a factor, was never held; the customers of the reseller are not touched by it.
    const customer = await signIn(t, 'admin@staff-policy.example', PASSWORD);
    expect((await customer.call(routes.vms.list, { query: {} })).status).toBe(200);

    const off = await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: false } });
    expect([off.status, off.message]).toEqual([200, RESELLER_POLICY_TEXT.offMessage]);
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'reseller.policy.update'));
    expect(entry?.targetId).toBe(String(resellerId));
  });

  it('staff with a factor get no emailed fallback, and keep their last factor', async () => {
    // Support has an app (the test above); the policy goes on again.
    expect((await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: true } })).status).toBe(
      200,
    );
    const pending = t.client();
    const login = await pending.call(routes.auth.login, {
      body: { email: 'support@staff-policy.example', password: PASSWORD },
    });
    expect(login.status, login.message).toBe(200);
    expect(login.data.user).toMatchObject({ secondFactor: 'authenticator', emailFallback: false });
    const mailed = await pending.call(routes.twoFactor.emailCode);
    expect([mailed.status, mailed.message]).toEqual([403, RESELLER_POLICY_TEXT.noEmailFallback]);

    // The app is support's only factor: it stays.
    const removeApp = await support.call(routes.twoFactor.remove, { body: { password: PASSWORD } });
    expect([removeApp.status, removeApp.message]).toEqual([403, RESELLER_POLICY_TEXT.lastStrongFactor]);
    // With a passkey beside it, the app may go; then the passkey is the last one and stays.
    await addPasskey(support);
    expect((await support.call(routes.twoFactor.remove, { body: { password: PASSWORD } })).status).toBe(200);
    const [key] = (await support.call(routes.passkeys.list)).data;
    const removeKey = await support.call(routes.passkeys.remove, {
      params: { id: key!.id },
      body: { password: PASSWORD },
    });
    expect([removeKey.status, removeKey.message]).toEqual([403, RESELLER_POLICY_TEXT.lastStrongFactor]);

    // Off again: the emailed code is offered once more.
    expect((await owner.call(routes.resellerPolicy.set, { body: { requireStaffAuthenticator: false } })).status).toBe(
      200,
    );
    const again = await t.client().call(routes.auth.login, {
      body: { email: 'support@staff-policy.example', password: PASSWORD },
    });
    expect(again.data.user.emailFallback).toBeUndefined();
  });

  it("rotating the billing webhook's secret needs a step-up", async () => {
    const hook = await owner.call(routes.billing.setWebhook, {
      body: { url: 'http://127.0.0.1:9999/step-up-hook', enabled: false },
    });
    expect(hook.status, hook.message).toBe(200);
    advance(6);
    const refused = await owner.call(routes.billing.rotateSecret);
    expect([refused.status, refused.message]).toEqual([403, STEP_UP_TEXT.required]);
    expect((await owner.call(routes.stepUp.stepUp, { body: { password: PASSWORD } })).status).toBe(200);
    expect((await owner.call(routes.billing.rotateSecret)).status).toBe(200);
  });
});
