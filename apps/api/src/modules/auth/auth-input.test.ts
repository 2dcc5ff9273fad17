/**
 * Bad input on every auth endpoint — missing fields, wrong types, unknown fields, huge bodies,
 * broken JSON — answers 400 with a message and changes nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import type { RouteDef } from '@portal/contract/common';
import { mailOutbox, mfaChallenges, oneTimeTokens, sessions, users } from '../../db/schema.ts';
import { createTestApp, errorData, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';

let t: TestApp;
let signedIn: TestClient;

beforeAll(async () => {
  t = await createTestApp();
  signedIn = await signIn(t);
  await t.portal.mailer.flush();
});
afterAll(async () => {
  await t.close();
});

async function snapshot() {
  const [u, s, c, o, m] = await Promise.all([
    t.db
      .select({
        id: users.id,
        hash: users.passwordHash,
        first: users.firstName,
        last: users.lastName,
        force: users.forcePasswordReset,
      })
      .from(users),
    t.db.select({ id: sessions.id, state: sessions.state }).from(sessions),
    t.db.select({ id: mfaChallenges.id, attempts: mfaChallenges.attempts }).from(mfaChallenges),
    t.db.select({ id: oneTimeTokens.id, used: oneTimeTokens.usedAt }).from(oneTimeTokens),
    t.db.select({ id: mailOutbox.id }).from(mailOutbox),
  ]);
  return JSON.stringify({ u: u.sort((a, b) => a.id - b.id), s: s.sort((a, b) => a.id.localeCompare(b.id)), c, o, m });
}

const huge = 'x'.repeat(200 * 1024);
const json = { 'content-type': 'application/json' };
const valid = { password: 'Valid-Password-1!', resetKey: 'k'.repeat(40) };

interface Case {
  name: string;
  route: RouteDef;
  params?: Record<string, string | number>;
  bodies: { label: string; body: unknown }[];
}

const cases: Case[] = [
  {
    name: 'login',
    route: routes.auth.login,
    bodies: [
      { label: 'missing fields', body: {} },
      { label: 'missing password', body: { email: 'admin@example.com' } },
      { label: 'wrong types', body: { email: 42, password: ['x'] } },
      { label: 'bad email', body: { email: 'not-an-email', password: 'x' } },
      { label: 'unknown field', body: { email: 'admin@example.com', password: 'x', isAdmin: true } },
      { label: 'huge field', body: { email: 'admin@example.com', password: huge } },
      { label: 'remember me not boolean', body: { email: 'admin@example.com', password: 'x', rememberMe: 'yes' } },
    ],
  },
  {
    name: 'mfa',
    route: routes.auth.mfa,
    bodies: [
      { label: 'missing code', body: {} },
      { label: 'wrong type', body: { code: 123456 } },
      { label: 'unknown field', body: { code: '123456', bypass: true } },
    ],
  },
  {
    name: 'forgotPassword',
    route: routes.password.forgotPassword,
    bodies: [
      { label: 'missing email', body: {} },
      { label: 'wrong type', body: { email: { $ne: null } } },
      { label: 'unknown field', body: { email: 'admin@example.com', admin: true } },
      { label: 'huge email', body: { email: `${huge}@example.com` } },
    ],
  },
  {
    name: 'resetPasswordFromEmail',
    route: routes.password.resetPasswordFromEmail,
    params: { token: 1 },
    bodies: [
      { label: 'missing fields', body: {} },
      { label: 'weak password', body: { ...valid, password: 'weakpassword' } },
      { label: 'password with spaces', body: { ...valid, password: 'Has Spaces-123!' } },
      { label: 'too long password', body: { ...valid, password: `Aa1!${'x'.repeat(60)}` } },
      { label: 'wrong types', body: { password: 1, resetKey: 2 } },
      { label: 'unknown field', body: { ...valid, userId: 2 } },
    ],
  },
  {
    name: 'confirmEmail',
    route: routes.password.confirmEmail,
    params: { token: 1 },
    bodies: [
      { label: 'missing names', body: valid },
      { label: 'wrong types', body: { ...valid, firstName: 1, lastName: null } },
      { label: 'unknown field', body: { ...valid, firstName: 'A', lastName: 'B', isCompanyAdmin: true } },
    ],
  },
];

describe('bad input on the auth endpoints', () => {
  for (const c of cases) {
    for (const { label, body } of c.bodies) {
      it(`${c.name}: ${label} → 400, nothing changed`, async () => {
        const before = await snapshot();
        const res = await t.client().call(c.route, { ...(c.params ? { params: c.params } : {}), body });
        expect(res.status).toBe(400);
        expect(res.message.length).toBeGreaterThan(3);
        expect(res.message).not.toMatch(/stack|at .*\.ts|SELECT/i);
        expect(await snapshot()).toBe(before);
      });
    }
  }

  it('updatePassword: missing, wrong-typed and unknown fields → 400, password unchanged', async () => {
    const before = await snapshot();
    for (const body of [
      {},
      { currentPassword: 1, password: 2 },
      { currentPassword: 'Admin-Password-1!', password: 'weak' },
      { currentPassword: 'Admin-Password-1!', password: 'Valid-Password-1!', extra: 1 },
    ]) {
      const res = await signedIn.call(routes.password.updatePassword, { body });
      expect(res.status).toBe(400);
    }
    expect(await snapshot()).toBe(before);
  });

  it('bodiless calls refuse unknown fields', async () => {
    for (const route of [routes.auth.refreshAuth, routes.auth.shouldResetPassword, routes.auth.logout]) {
      const res = await signedIn.call(route, { body: { sneaky: true } });
      expect(res.status).toBe(400);
    }
    // The session survived.
    expect((await signedIn.call(routes.password.me)).status).toBe(200);
  });

  it('refuses a body over the size limit with 400 and a message', async () => {
    const before = await snapshot();
    const res = await t
      .client()
      .raw('POST', `${t.config.API_BASE_PATH}/auth/login`, JSON.stringify({ email: 'a@b.co', password: huge }), json);
    expect(res.status).toBe(400);
    expect(res.message).toBe('Request body is too large');
    expect(await snapshot()).toBe(before);
  });

  it('refuses broken JSON and a non-numeric path id with 400', async () => {
    const broken = await t.client().raw('POST', `${t.config.API_BASE_PATH}/auth/login`, '{"email": "a@b.co", ', json);
    expect(broken.status).toBe(400);
    const noType = await t.client().raw('POST', `${t.config.API_BASE_PATH}/auth/login`, 'email=a@b.co');
    expect(noType.message).toBe('Content type must be application/json');
    expect(broken.status).toBe(400);
    expect(broken.message).toBe('Request body is not valid JSON');
    const badId = await t.client().raw('POST', `${t.config.API_BASE_PATH}/users/resetPasswordFromEmail/abc`, valid);
    expect(badId.status).toBe(400);
    expect(badId.message).toMatch(/number/i);
  });

  it('gives every answer a request id', async () => {
    const res = await t.client().call(routes.auth.login, { body: {} });
    expect(res.headers['x-request-id']).toMatch(/[0-9a-f-]{36}/);
    expect(errorData(res)?.requestId).toBe(res.headers['x-request-id']);
  });
});

describe('rate limits', () => {
  it('limits sign-in attempts per client and email', async () => {
    const limited = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const client = limited.client();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(
          (
            await client.call(routes.auth.login, {
              body: { email: 'admin@example.com', password: 'Wrong-Password-1!' },
            })
          ).status,
        );
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      const res = await client.call(routes.auth.login, {
        body: { email: 'admin@example.com', password: 'Wrong-Password-1!' },
      });
      expect(res.message).toBe('Too many requests. Please wait and try again.');
      // Codes and forgot-password are limited too.
      const forgot: number[] = [];
      for (let i = 0; i < 4; i++)
        forgot.push((await client.call(routes.password.forgotPassword, { body: { email: 'x@example.com' } })).status);
      expect(forgot).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('limits sign-in attempts per email across client addresses (behind a trusted proxy)', async () => {
    const limited = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'true' } });
    try {
      const login = (ip: string, email: string) =>
        limited
          .client()
          .raw(
            'POST',
            `${limited.config.API_BASE_PATH}/auth/login`,
            { email, password: 'Wrong-Password-1!' },
            { 'x-forwarded-for': ip },
          );
      const statuses: number[] = [];
      // Every attempt from another address: only the per-email limit can stop them.
      for (let i = 0; i < 4; i++) statuses.push((await login(`203.0.113.${i + 1}`, 'admin@example.com')).status);
      // The email is compared case-insensitively, as sign-in does.
      const upper = await login('203.0.113.50', 'ADMIN@Example.com');
      statuses.push(upper.status);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect(upper.message).toBe('Too many requests. Please wait and try again.');
      expect(Number(upper.headers['retry-after'])).toBeGreaterThan(0);
      // Another email from a fresh address is not held back by it.
      expect((await login('203.0.113.60', 'someone.else@example.com')).status).toBe(401);
      // Nor is the limited email's owner blocked from other limits: the per-address one still counts on its own.
      const sameIp: number[] = [];
      for (let i = 0; i < 4; i++) sameIp.push((await login('198.51.100.7', `other${i}@example.com`)).status);
      expect(sameIp).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.close();
    }
  });
});
