/**
 * The account page's calls (issue 25 item 7; docs/account.md) through the real server, on both engines: the own
 * password change (wrong current password 400 with its message, a weak new one 400 with the spec's rule, success
 * ends every other session at once and keeps this one, audited), the sessions list and "Sign out everywhere else"
 * (audited; on PostgreSQL a second instance refuses the ended session too), preferences that round-trip and survive
 * signing out, and API tokens refused on the session-only calls.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACCOUNT_TEXT, DEFAULT_PREFERENCES } from '@portal/contract/account';
import { API_TOKEN_TEXT } from '@portal/contract/api-tokens';
import { API_MESSAGES, VALIDATION } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { type App, buildApp } from '../../app.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { auditLog, users } from '../../db/schema.ts';
import { createTestApp, errorData, signIn, type TestApp, TestClient } from '../../../test/harness.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';

const crossInstance = inject('pgUrl') !== null;
let t: TestApp;
let b: App;
let bDatabase: Database | null = null;

beforeAll(async () => {
  t = await createTestApp();
  if (crossInstance) {
    // A second instance on the same database: its session cache must hear of the ended sessions.
    const url = (t.database.pool!.options as { connectionString: string }).connectionString;
    bDatabase = await openDatabase({ databaseUrl: url, poolSize: 3 });
    b = await buildApp({
      config: t.config,
      database: bDatabase,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: false,
    });
    await b.app.ready();
  } else {
    b = t.portal;
  }
});

afterAll(async () => {
  if (crossInstance) {
    await b.close();
    await bDatabase?.close();
  }
  await t.close();
});

/** The same cookies, sent to the second instance. */
function onB(client: TestClient): TestClient {
  const other = new TestClient(b, t.config.API_BASE_PATH);
  for (const [k, v] of client.cookies) other.cookies.set(k, v);
  return other;
}

/** Waits until `probe` answers `status` (another instance hears of a change by notification), at most 2 s. */
async function eventually(probe: () => Promise<{ status: number }>, status: number): Promise<number> {
  const until = Date.now() + 2_000;
  let last = (await probe()).status;
  while (last !== status && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 25));
    last = (await probe()).status;
  }
  return last;
}

const auditOf = async (userId: number, action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.actorUserId, userId), eq(auditLog.action, action)));

describe('account: own password', () => {
  it('refuses a wrong current password with a clear 400 and a weak new one with the spec rule', async () => {
    const user = await createUser(t, 1, 'account-pw-wrong@example.com');
    const me = await signIn(t, user.email, PASSWORD);
    const wrong = await me.call(routes.password.updatePassword, {
      body: { currentPassword: 'Not-The-Password-1!', password: 'Another-Password-2!' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.message).toBe(API_MESSAGES.currentPasswordWrong);
    expect(wrong.data).toEqual(expect.objectContaining({ requestId: expect.any(String) }));

    const weak = await me.call(routes.password.updatePassword, {
      body: { currentPassword: PASSWORD, password: 'short' },
    });
    expect(weak.status).toBe(400);
    expect(JSON.stringify(errorData(weak))).toContain(VALIDATION.passwordMin);

    const empty = await me.call(routes.password.updatePassword, { body: {} });
    expect(empty.status).toBe(400);
    // Nothing changed: the old password still signs in.
    await signIn(t, user.email, PASSWORD);
  });

  it('ends every other session at once (a second cookie gets 401), keeps this one, and is audited', async () => {
    const user = await createUser(t, 1, 'account-pw-change@example.com');
    const here = await signIn(t, user.email, PASSWORD);
    const there = await signIn(t, user.email, PASSWORD);
    const thereOnB = onB(there);
    // Warm both instances' caches with the other session.
    expect((await there.call(routes.password.me)).status).toBe(200);
    expect((await thereOnB.call(routes.password.me)).status).toBe(200);

    const next = 'Changed-Password-9!';
    const changed = await here.call(routes.password.updatePassword, {
      body: { currentPassword: PASSWORD, password: next },
    });
    expect(changed.status, changed.message).toBe(200);
    expect(changed.message).toBe(API_MESSAGES.passwordUpdated);

    expect((await there.call(routes.password.me)).status).toBe(401);
    expect(await eventually(() => thereOnB.call(routes.password.me), 401)).toBe(401);
    expect((await here.call(routes.password.me)).status).toBe(200);
    const sessions = await here.call(routes.account.sessions);
    expect(sessions.data.map((s) => s.current)).toEqual([true]);

    // The new password signs in, the old one no longer does.
    await signIn(t, user.email, next);
    const old = await t.client().call(routes.auth.login, { body: { email: user.email, password: PASSWORD } });
    expect(old.status).toBe(401);

    const [entry] = await auditOf(user.id, 'user.password.change');
    expect(entry).toEqual(expect.objectContaining({ targetType: 'user', targetId: String(user.id) }));
    expect(entry!.after).toEqual({ otherSessionsEnded: 1 });
  });
});

describe('account: the password change is rate-limited', () => {
  it('past the per-minute limit a guess is 429 in the envelope, not checked', async () => {
    const limited = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const user = await createUser(limited, 1, 'account-pw-limit@example.com');
      const me = await signIn(limited, user.email, PASSWORD);
      const guess = () =>
        me.call(routes.password.updatePassword, {
          body: { currentPassword: 'Guess-Password-1!', password: 'Another-Password-2!' },
        });
      for (let i = 0; i < 3; i += 1) expect((await guess()).status).toBe(400);
      const refused = await guess();
      expect(refused.status).toBe(429);
      expect(refused.message).toBe(API_MESSAGES.tooManyRequests);
    } finally {
      await limited.close();
    }
  });
});

describe('account: sessions', () => {
  it('lists the signed-in sessions with address and agent, the current one marked first', async () => {
    const user = await createUser(t, 1, 'account-sessions@example.com');
    const first = await signIn(t, user.email, PASSWORD);
    const second = await signIn(t, user.email, PASSWORD);
    const list = await second.call(routes.account.sessions);
    expect(list.status).toBe(200);
    expect(list.data).toHaveLength(2);
    expect(list.data[0]!.current).toBe(true);
    expect(list.data[1]!.current).toBe(false);
    for (const s of list.data) {
      expect(s.id).toMatch(/^.{12}$/);
      expect(s.ip).toBe('127.0.0.1');
      expect(Date.parse(s.createdAt)).not.toBeNaN();
      expect(Date.parse(s.lastSeenAt)).not.toBeNaN();
    }
    // Another user's sessions are never listed.
    const other = await signIn(t, (await createUser(t, 1, 'account-sessions-2@example.com')).email, PASSWORD);
    expect((await other.call(routes.account.sessions)).data).toHaveLength(1);
    expect((await first.call(routes.account.sessions)).data[0]!.current).toBe(true);
  });

  it('"Sign out everywhere else" ends the others at once on every instance, keeps this one, audited', async () => {
    const user = await createUser(t, 1, 'account-revoke@example.com');
    const here = await signIn(t, user.email, PASSWORD);
    const a = await signIn(t, user.email, PASSWORD);
    const bClient = await signIn(t, user.email, PASSWORD);
    const bOnB = onB(bClient);
    expect((await a.call(routes.password.me)).status).toBe(200);
    expect((await bOnB.call(routes.password.me)).status).toBe(200);

    const res = await here.call(routes.account.revokeOtherSessions, { body: {} });
    expect(res.status, res.message).toBe(200);
    expect(res.data).toEqual({ ended: 2 });
    expect(res.message).toBe(ACCOUNT_TEXT.signedOutOthers(2));

    expect((await a.call(routes.password.me)).status).toBe(401);
    expect(await eventually(() => bOnB.call(routes.password.me), 401)).toBe(401);
    expect((await here.call(routes.password.me)).status).toBe(200);
    expect((await here.call(routes.account.sessions)).data).toHaveLength(1);

    const again = await here.call(routes.account.revokeOtherSessions, { body: {} });
    expect(again.data).toEqual({ ended: 0 });
    expect(await auditOf(user.id, 'user.sessions.revokeOthers')).toHaveLength(2);

    // A body it does not take is 400 in the envelope, never 500.
    const bad = await here.call(routes.account.revokeOtherSessions, { body: { all: true } });
    expect(bad.status).toBe(400);
  });
});

describe('account: preferences', () => {
  it('round-trip, ride on the signed-in user, and survive signing out', async () => {
    const user = await createUser(t, 1, 'account-prefs@example.com');
    const me = await signIn(t, user.email, PASSWORD);
    expect((await me.call(routes.account.preferences)).data).toEqual(DEFAULT_PREFERENCES);
    const checked = await me.call(routes.auth.check);
    expect(checked.data.authed && checked.data.user.preferences).toEqual(DEFAULT_PREFERENCES);

    const set = await me.call(routes.account.updatePreferences, { body: { theme: 'dark', dateFormat: 'iso' } });
    expect(set.status, set.message).toBe(200);
    expect(set.message).toBe(ACCOUNT_TEXT.preferencesSaved);
    expect(set.data).toEqual({ theme: 'dark', dateFormat: 'iso' });
    // One field at a time leaves the other as it was.
    const partial = await me.call(routes.account.updatePreferences, { body: { dateFormat: 'us' } });
    expect(partial.data).toEqual({ theme: 'dark', dateFormat: 'us' });
    // The signed-in user carries them at once (the profile cache forgot the old ones).
    const after = await me.call(routes.auth.check);
    expect(after.data.authed && after.data.user.preferences).toEqual({ theme: 'dark', dateFormat: 'us' });

    expect((await me.call(routes.auth.logout, { body: {} })).status).toBe(200);
    const again = await signIn(t, user.email, PASSWORD);
    expect((await again.call(routes.account.preferences)).data).toEqual({ theme: 'dark', dateFormat: 'us' });
    const [row] = await t.db.select().from(users).where(eq(users.id, user.id));
    expect([row!.theme, row!.dateFormat]).toEqual(['dark', 'us']);
  });

  it('refuses values it does not know with 400 in the envelope', async () => {
    const me = await signIn(t, (await createUser(t, 1, 'account-prefs-bad@example.com')).email, PASSWORD);
    for (const body of [{ theme: 'purple' }, { dateFormat: 'yyyy' }, { theme: 'dark', colour: 'red' }, 'nonsense']) {
      const res = await me.call(routes.account.updatePreferences, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.message).toBe('string');
    }
    expect((await me.call(routes.account.preferences)).data).toEqual(DEFAULT_PREFERENCES);
  });
});

describe('account: API tokens', () => {
  it('a token is refused on the session-only calls (password, sessions), and changes nothing', async () => {
    const user = await createUser(t, 1, 'account-token@example.com');
    const me = await signIn(t, user.email, PASSWORD);
    const created = await me.call(routes.apiTokens.create, {
      body: { name: 'script', scope: 'act', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
    });
    expect(created.status, created.message).toBe(200);
    const token = created.data.token;
    const asToken = async (route: (typeof routes.account)[keyof typeof routes.account], body?: unknown) => {
      const { buildPath } = await import('@portal/contract/routes');
      const res = await t.portal.app.inject({
        method: route.method,
        url: `${t.config.API_BASE_PATH}${buildPath(route.path, {})}`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, message: (res.json() as { message: string }).message };
    };
    for (const [route, body] of [
      [routes.account.sessions, undefined],
      [routes.account.revokeOtherSessions, {}],
    ] as const) {
      const res = await asToken(route, body);
      expect(res.status, route.path).toBe(403);
      expect(res.message).toBe(API_TOKEN_TEXT.sessionOnly);
    }
    const { buildPath } = await import('@portal/contract/routes');
    const pw = await t.portal.app.inject({
      method: 'POST',
      url: `${t.config.API_BASE_PATH}${buildPath(routes.password.updatePassword.path, {})}`,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ currentPassword: PASSWORD, password: 'Token-Changed-9!' }),
    });
    expect(pw.statusCode).toBe(403);
    // The session is still there, the password unchanged.
    expect((await me.call(routes.account.sessions)).data).toHaveLength(1);
    await signIn(t, user.email, PASSWORD);
    // Preferences are the account's own settings, not credentials: a token acting for the user may read them.
    expect((await asToken(routes.account.preferences)).status).toBe(200);
  });
});
