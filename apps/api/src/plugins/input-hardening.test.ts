/**
 * Input PostgreSQL would choke on — a NUL or other control character in a text field, an id beyond the
 * int range — is bad input: 400 with a message, never a 500, and nothing is stored. A spoofed
 * X-Forwarded-For does not change the client address unless TRUST_PROXY says a proxy sets it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { VALIDATION } from '@portal/contract/messages';
import { mailOutbox, supportMessages, teams, users } from '../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../test/harness.ts';

let t: TestApp;
let admin: TestClient;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
  await t.portal.mailer.flush();
});
afterAll(async () => {
  await t.close();
});

const NUL = '\u0000';
const INT_MAX = 2147483647;

async function counts() {
  const [u, tm, s, m] = await Promise.all([
    t.db.select({ id: users.id }).from(users),
    t.db.select({ id: teams.id }).from(teams),
    t.db.select({ id: supportMessages.id }).from(supportMessages),
    t.db.select({ id: mailOutbox.id }).from(mailOutbox),
  ]);
  return { users: u.length, teams: tm.length, support: s.length, mail: m.length };
}

function expectBadInput(res: { status: number; message: string }) {
  expect(res.status).toBe(400);
  expect(res.message.length).toBeGreaterThan(3);
  expect(res.message).not.toMatch(/byte sequence|0x00|SELECT|insert/i);
}

describe('NUL and control characters', () => {
  it('login email with a NUL → 400 with the email format message', async () => {
    const res = await t
      .client()
      .call(routes.auth.login, { body: { email: `admin${NUL}@example.com`, password: ADMIN.password } });
    expectBadInput(res);
    expect(res.message).toContain(VALIDATION.emailFormat);
    const trailing = await t
      .client()
      .call(routes.auth.login, { body: { email: `admin@example.com${NUL}`, password: ADMIN.password } });
    expectBadInput(trailing);
  });

  it('forgot-password email with a NUL → 400', async () => {
    expectBadInput(
      await t.client().call(routes.password.forgotPassword, { body: { email: `admin@example.com${NUL}` } }),
    );
  });

  it('list search with a NUL → 400 on every list', async () => {
    for (const route of [routes.users.list, routes.teams.list]) {
      const res = await admin.call(route, { query: { search: `ad${NUL}min` } });
      expectBadInput(res);
      expect(res.message).toMatch(/control characters/);
    }
    const team = await admin.call(routes.teams.create, { body: { name: 'Search Team' } });
    expect(team.status).toBe(200);
    const teamId = team.data.teamId as number;
    expectBadInput(await admin.call(routes.teams.details, { params: { id: teamId }, query: { search: NUL } }));
    expectBadInput(await admin.call(routes.users.teams, { params: { userId: 1 }, query: { search: `x${NUL}` } }));
    // An ordinary search still works.
    expect((await admin.call(routes.users.list, { query: { search: 'admin' } })).status).toBe(200);
  });

  it('support message with a NUL → 400, nothing kept or mailed; newlines and tabs are fine', async () => {
    const before = await counts();
    const res = await admin.call(routes.platform.sendSupportEmail, { body: { message: `Help${NUL}me` } });
    expectBadInput(res);
    expect(res.message).toMatch(/control characters/);
    expectBadInput(await admin.call(routes.platform.sendSupportEmail, { body: { message: 'bell \u0007' } }));
    expect(await counts()).toEqual(before);
    const ok = await admin.call(routes.platform.sendSupportEmail, {
      body: { message: 'Line one\n\tLine two\r\nLine three' },
    });
    expect(ok.status).toBe(200);
  });

  it('team name, VM name and image, user names and invite email with control characters → 400', async () => {
    const before = await counts();
    expectBadInput(await admin.call(routes.teams.create, { body: { name: `Ops${NUL}` } }));
    expectBadInput(await admin.call(routes.teams.create, { body: { name: 'Ops\nTeam' } }));
    expectBadInput(
      await admin.call(routes.users.create, { body: { email: `new${NUL}@example.com`, roleId: 2, teamIds: [] } }),
    );
    expectBadInput(await admin.call(routes.users.edit, { body: { id: 1, firstName: `Ada${NUL}`, lastName: 'Admin' } }));
    const vm = {
      regionId: 1,
      image: 'ubuntu-24.04',
      configurationId: 1,
      providerId: 1,
      name: 'web-1',
      numberOfInstances: 1,
    };
    expectBadInput(await admin.call(routes.vms.create, { body: { ...vm, image: `ubuntu${NUL}` } }));
    expectBadInput(await admin.call(routes.vms.create, { body: { ...vm, name: `web${NUL}1` } }));
    expectBadInput(
      await admin.call(routes.vms.fetchConfigurations, { params: { regionId: 1 }, query: { image: `ubuntu${NUL}` } }),
    );
    expect(await counts()).toEqual(before);
  });

  it('client log report with a NUL → 400; a multi-line stack is fine', async () => {
    expectBadInput(await t.client().call(routes.platform.logging, { body: { message: `boom${NUL}` } }));
    expectBadInput(await t.client().call(routes.platform.logging, { body: { message: 'boom', stack: `at x${NUL}` } }));
    expectBadInput(
      await t.client().call(routes.platform.logging, { body: { message: 'boom', url: `https://x.example/${NUL}` } }),
    );
    expectBadInput(
      await t.client().call(routes.platform.logging, { body: { message: 'boom', userAgent: `UA${NUL}` } }),
    );
    const ok = await t
      .client()
      .call(routes.platform.logging, { body: { message: 'boom', stack: 'Error: boom\n\tat f (a.js:1:1)' } });
    expect(ok.status).toBe(200);
  });
});

describe('lone UTF-16 surrogates (not text; PostgreSQL json refuses them)', () => {
  const LONE = '\ud800';
  it('in a team name or a client log report → 400 with a message, nothing stored', async () => {
    const before = await counts();
    const team = await admin.call(routes.teams.create, { body: { name: `Ops${LONE}` } });
    expect(team.status).toBe(400);
    expect(team.message).toBe(VALIDATION.malformedText);
    for (const field of ['message', 'stack', 'url', 'userAgent'] as const) {
      const res = await t.client().call(routes.platform.logging, { body: { message: 'boom', [field]: `x${LONE}` } });
      expect(res.status).toBe(400);
      expect(res.message).toBe(VALIDATION.malformedText);
    }
    expect(await counts()).toEqual(before);
    // A well-formed pair (an emoji) is text like any other.
    const emoji = await admin.call(routes.teams.create, { body: { name: 'Ops \ud83d\ude80' } });
    expect(emoji.status).toBe(200);
  });
});

describe('ids beyond the PostgreSQL int range', () => {
  it('invite teamIds and roleId → 400', async () => {
    const before = await counts();
    for (const body of [
      { email: 'big@example.com', roleId: 2, teamIds: [INT_MAX + 1] },
      { email: 'big@example.com', roleId: 2, teamIds: [1e20] },
      { email: 'big@example.com', roleId: INT_MAX + 1, teamIds: [] },
      { email: 'big@example.com', roleId: 2, teamIds: [0] },
    ]) {
      expectBadInput(await admin.call(routes.users.create, { body }));
    }
    expect(await counts()).toEqual(before);
  });

  it('ids in params, queries and bodies → 400', async () => {
    expectBadInput(await admin.call(routes.users.details, { params: { id: String(INT_MAX + 1) } }));
    expectBadInput(await admin.call(routes.teams.list, { query: { excludeTeamId: String(INT_MAX + 1) } }));
    expectBadInput(await admin.call(routes.vms.list, { query: { teamId: '99999999999999999999' } }));
    expectBadInput(await admin.call(routes.teams.addUser, { body: { teamId: INT_MAX + 1, userId: 1, roleId: 2 } }));
    expectBadInput(
      await admin.call(routes.permissions.assign, {
        body: { teamId: 1, assignments: [{ userId: INT_MAX + 1, roleId: 2 }] },
      }),
    );
    // The largest int is a valid id that simply does not exist.
    expect((await admin.call(routes.users.details, { params: { id: INT_MAX } })).status).toBe(404);
  });
});

describe('client address and X-Forwarded-For', () => {
  /** Failed sign-ins with a limit of 3 a minute: the status of each, given its email and X-Forwarded-For. */
  async function signInStatuses(app: TestApp, attempts: { email: string; forwardedFor: string }[]): Promise<number[]> {
    const client = app.client();
    const statuses: number[] = [];
    for (const { email, forwardedFor } of attempts) {
      const res = await client.raw(
        'POST',
        `${app.config.API_BASE_PATH}/auth/login`,
        { email, password: 'Wrong-Password-1!' },
        { 'x-forwarded-for': forwardedFor },
      );
      statuses.push(res.status);
    }
    return statuses;
  }
  const attempts = (n: number, email: (i: number) => string, forwardedFor: (i: number) => string) =>
    Array.from({ length: n }, (_, i) => ({ email: email(i), forwardedFor: forwardedFor(i) }));

  it('ignores a spoofed X-Forwarded-For by default, so it cannot escape the per-address limit', async () => {
    const limited = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const statuses = await signInStatuses(
        limited,
        attempts(
          5,
          (i) => `user${i}@example.com`,
          (i) => `198.51.100.${i + 1}`,
        ),
      );
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('honours X-Forwarded-For from a trusted proxy (TRUST_PROXY)', async () => {
    // inject() connects from 127.0.0.1: trust exactly that proxy.
    const proxied = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '127.0.0.1' } });
    try {
      const statuses = await signInStatuses(
        proxied,
        attempts(
          5,
          (i) => `user${i}@example.com`,
          (i) => `198.51.100.${i + 1}`,
        ),
      );
      // Distinct clients behind the proxy, distinct emails: nobody is over the limit.
      expect(statuses).toEqual([401, 401, 401, 401, 401]);
    } finally {
      await proxied.close();
    }
  });

  it('with a hop count, believes only the entries the trusted hops added', async () => {
    // One proxy: the client is the last X-Forwarded-For entry; whatever the client put before it is ignored.
    const oneHop = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: '1' } });
    try {
      const spoofed = await signInStatuses(
        oneHop,
        attempts(
          4,
          (i) => `hop${i}@example.com`,
          (i) => `192.0.2.${i + 1}, 198.51.100.77`,
        ),
      );
      expect(spoofed).toEqual([401, 401, 401, 429]);
      // Distinct clients behind that proxy are distinct clients.
      const behind = await signInStatuses(
        oneHop,
        attempts(
          4,
          (i) => `behind${i}@example.com`,
          (i) => `192.0.2.1, 198.51.100.${i + 1}`,
        ),
      );
      expect(behind).toEqual([401, 401, 401, 401]);
    } finally {
      await oneHop.close();
    }
  });
});
