/**
 * Personal API tokens (issue 26 item 4; docs/api-tokens.md), through the server on both engines: the secret shown
 * once, bearer calls without cookie or CSRF, scopes (read-only, team-limited), expiry, revocation on a second
 * instance within a second (api-postgres: two apps on one database), the IP allow-list, tenant isolation, the
 * token routes refused to tokens, the audit entry naming the token, and failed bearer checks rate-limited.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { API_TOKEN_TEXT, type ApiToken } from '@portal/contract/api-tokens';
import { ADMIN_ROLE_ID } from '@portal/contract/constants';
import { allRoutes, routes } from '@portal/contract/routes';
import { buildApp, loggerOptions, type App } from '../../app.ts';
import { openDatabase, type Database } from '../../db/client.ts';
import { auditLog, users } from '../../db/schema.ts';
import { createTestApp, errorData, signIn, TestClient, ADMIN, type TestApp } from '../../../test/harness.ts';
import { A, runMatrix, type Cell } from '../../../test/authorization-matrix.ts';
import { createOtherCompany, createTeam, createUser, insertVm, PASSWORD } from '../../../test/fixtures.ts';
import { ed25519KeyLine } from '../../../test/ssh-key-lines.ts';

const TOKEN_ACTORS = ['session', 'tokenAct', 'tokenTeamA', 'tokenTeamB', 'tokenRead'] as const;
type TokenActor = (typeof TOKEN_ACTORS)[number];

/** A matrix caller with a bearer token (its cookie jar holds only the CSRF cookie, which bearer calls ignore). */
class BearerClient extends TestClient {
  constructor(
    portal: App,
    apiBase: string,
    private readonly token: string,
  ) {
    super(portal, apiBase);
  }
  override raw<T = unknown>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
    return super.raw<T>(method, url, body, { ...headers, authorization: `Bearer ${this.token}` });
  }
}

const crossInstance = inject('pgUrl') !== null;
const DAY = 86_400_000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

let t: TestApp;
let b: App;
let bDatabase: Database | null = null;
let admin: TestClient;
let companyId: number;
let adminId: number;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
  const [row] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  companyId = row!.companyId;
  adminId = row!.id;
  if (crossInstance) {
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

/** A client with no cookies at all: only the bearer header (no CSRF cookie or header either). */
function bearer(token: string, app: App = t.portal) {
  return {
    async call(route: Parameters<TestClient['call']>[0], input: Parameters<TestClient['call']>[1] = {}) {
      const { buildPath } = await import('@portal/contract/routes');
      const path = buildPath(route.path, (input.params ?? {}) as Record<string, string | number>);
      const qs = input.query
        ? `?${new URLSearchParams(Object.entries(input.query).map(([k, v]) => [k, String(v)])).toString()}`
        : '';
      const res = await app.app.inject({
        method: route.method,
        url: `${t.config.API_BASE_PATH}${path}${qs}`,
        headers: {
          authorization: `Bearer ${token}`,
          ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...input.headers,
        },
        ...(input.body !== undefined ? { payload: JSON.stringify(input.body) } : {}),
      });
      const parsed = res.json() as { message: string; data: unknown };
      return { status: res.statusCode, message: parsed.message, data: parsed.data as never, cookies: res.cookies };
    },
  };
}

async function create(client: TestClient, body: Record<string, unknown>) {
  const res = await client.call(routes.apiTokens.create, { body: { expiresAt: inDays(30), ...body } });
  expect(res.status, res.message).toBe(200);
  return res.data;
}

describe('personal API tokens', () => {
  it('shows the secret once; the list never carries it; bearer works on a customer route without cookie or CSRF', async () => {
    const { token, apiToken } = await create(admin, { name: 'ci', scope: 'act' });
    expect(token).toMatch(/^vmp_[A-Za-z0-9_-]{40,}$/);
    expect(apiToken.hint).toBe(token.slice(0, 10));
    const list = await admin.call(routes.apiTokens.list);
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.data)).not.toContain(token);
    expect(list.data.find((x) => x.id === apiToken.id)).toMatchObject({
      name: 'ci',
      state: 'active',
      lastUsedAt: null,
    });

    const api = bearer(token);
    const me = await api.call(routes.sshKeys.list);
    expect(me.status).toBe(200);
    // A write with neither the CSRF cookie nor its header.
    const added = await api.call(routes.sshKeys.add, { body: { name: 'from-token', publicKey: ed25519KeyLine() } });
    expect(added.status, added.message).toBe(200);
    // No cookie handed out to a token caller.
    expect(added.cookies).toHaveLength(0);
    // Last used time and address show in the list.
    const after = (await admin.call(routes.apiTokens.list)).data.find((x) => x.id === apiToken.id)!;
    expect(after.lastUsedAt).not.toBeNull();
    expect(after.lastUsedIp).toBe('127.0.0.1');

    // The audit log names the token that acted.
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'user.sshKey.add'), eq(auditLog.actorTokenId, apiToken.id)));
    expect(entry).toMatchObject({ actorUserId: adminId, actorTokenName: 'ci' });
    // And the company's activity log says so.
    const activity = await admin.call(routes.activity.list, { query: { rowsPerPage: 50 } });
    expect(activity.status).toBe(200);
    const shown = activity.data.data.find((e) => e.action === 'user.sshKey.add' && e.token !== null);
    expect(shown).toMatchObject({ actor: { id: adminId }, token: { id: apiToken.id, name: 'ci' } });
  });

  it('a read-only token reads and is refused every write (403)', async () => {
    const { token } = await create(admin, { name: 'reader', scope: 'read' });
    const api = bearer(token);
    expect((await api.call(routes.vms.list)).status).toBe(200);
    const write = await api.call(routes.sshKeys.add, { body: { name: 'nope', publicKey: ed25519KeyLine() } });
    expect(write.status).toBe(403);
    expect(write.message).toBe(API_TOKEN_TEXT.readOnly);
    // Reading a VM's credentials is refused too: they are the machine.
    const vm = await insertVm(t, { companyId, teamId: null, name: 'reader-vm', createdByUserId: adminId });
    for (const route of [routes.vms.getPassword, routes.vms.getAccessKey]) {
      const res = await api.call(route, { params: { id: vm.id } });
      expect(res.status, route.path).toBe(403);
      expect(res.message).toBe(API_TOKEN_TEXT.readOnly);
    }
    // A console belongs to the browser session that opens it: no token may ask for one.
    const { token: actor } = await create(admin, { name: 'console', scope: 'act' });
    const consoleRes = await bearer(actor).call(routes.vms.getConsole, { params: { id: vm.id } });
    expect(consoleRes.status).toBe(403);
    expect(consoleRes.message).toBe(API_TOKEN_TEXT.sessionOnly);
  });

  it('a token limited to one team does not see another team’s VMs (list filtered, details 404)', async () => {
    const mine = await createTeam(t, companyId, 'Token team A', [{ userId: adminId, roleId: ADMIN_ROLE_ID }]);
    const other = await createTeam(t, companyId, 'Token team B', [{ userId: adminId, roleId: ADMIN_ROLE_ID }]);
    const vmA = await insertVm(t, { companyId, teamId: mine.id, name: 'tok-a' });
    const vmB = await insertVm(t, { companyId, teamId: other.id, name: 'tok-b' });
    const { token } = await create(admin, { name: 'team-a', scope: 'act', teamIds: [mine.id] });
    const api = bearer(token);
    const list = await api.call(routes.vms.list, { query: { rowsPerPage: 100 } });
    expect(list.status).toBe(200);
    const names = (list.data as { data: { name: string }[] }).data.map((v) => v.name);
    expect(names).toContain('tok-a');
    expect(names).not.toContain('tok-b');
    expect((await api.call(routes.vms.details, { params: { id: vmA.id } })).status).toBe(200);
    expect((await api.call(routes.vms.details, { params: { id: vmB.id } })).status).toBe(404);
    // The session of the same user sees both.
    expect((await admin.call(routes.vms.details, { params: { id: vmB.id } })).status).toBe(200);
    // Another team's routes are not found either.
    expect((await api.call(routes.teams.details, { params: { id: other.id } })).status).toBe(404);
    // Only the user's own teams can be chosen.
    const foreign = await createTeam(t, companyId, 'Token team C');
    const refused = await admin.call(routes.apiTokens.create, {
      body: { name: 'x', scope: 'act', teamIds: [foreign.id], expiresAt: inDays(1) },
    });
    expect(refused.status).toBe(400);
    expect(errorData(refused)?.issues?.[0]).toMatchObject({ path: 'teamIds', message: API_TOKEN_TEXT.notYourTeam });
  });

  it('refuses bad input with 400 in the envelope (expiry past or over a year, bad range, teams on read)', async () => {
    for (const body of [
      { name: 'x', scope: 'read', expiresAt: inDays(-1) },
      { name: 'x', scope: 'read', expiresAt: inDays(400) },
      { name: 'x', scope: 'read', expiresAt: inDays(1), ipAllowList: ['10.0.0.0/33'] },
      { name: 'x', scope: 'read', expiresAt: inDays(1), teamIds: [1] },
      { name: '', scope: 'read', expiresAt: inDays(1) },
      { name: 'x', scope: 'admin', expiresAt: inDays(1) },
      { name: 'x', scope: 'read' },
    ]) {
      const res = await admin.call(routes.apiTokens.create, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.message).toBe('string');
    }
  });

  it('an expired token is refused with 401', async () => {
    const { token, apiToken } = await create(admin, { name: 'short', scope: 'read' });
    expect((await bearer(token).call(routes.vms.list)).status).toBe(200);
    const { personalTokens } = await import('../../db/schema.ts');
    await t.db
      .update(personalTokens)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(personalTokens.id, apiToken.id));
    const res = await bearer(token).call(routes.vms.list);
    expect(res.status).toBe(401);
    expect(res.message).toBe(API_TOKEN_TEXT.invalid);
    const listed = (await admin.call(routes.apiTokens.list)).data.find((x: ApiToken) => x.id === apiToken.id);
    expect(listed?.state).toBe('expired');
  });

  it('a token revoked on one instance is refused on the other within a second', async () => {
    const { token, apiToken } = await create(admin, { name: 'revoke-me', scope: 'act' });
    const onB = bearer(token, b);
    expect((await onB.call(routes.vms.list)).status).toBe(200);
    expect((await admin.call(routes.apiTokens.revoke, { params: { id: apiToken.id } })).status).toBe(200);
    const started = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - started < 1000) status = (await onB.call(routes.vms.list)).status;
    expect(status).toBe(401);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('the IP allow-list admits its ranges and refuses other addresses', async () => {
    const allowed = await create(admin, { name: 'lo', scope: 'read', ipAllowList: ['127.0.0.0/8'] });
    expect((await bearer(allowed.token).call(routes.vms.list)).status).toBe(200);
    const elsewhere = await create(admin, {
      name: 'far',
      scope: 'read',
      ipAllowList: ['203.0.113.7', '2001:db8::/32'],
    });
    expect(elsewhere.apiToken.ipAllowList).toEqual(['203.0.113.7/32', '2001:db8::/32']);
    const res = await bearer(elsewhere.token).call(routes.vms.list);
    expect(res.status).toBe(403);
    expect(res.message).toBe(API_TOKEN_TEXT.addressRefused);
  });

  it('a token cannot call the token routes, nor change the password', async () => {
    const { token } = await create(admin, { name: 'no-mint', scope: 'act' });
    const api = bearer(token);
    for (const [route, input] of [
      [routes.apiTokens.list, {}],
      [routes.apiTokens.create, { body: { name: 'child', scope: 'act', expiresAt: inDays(1) } }],
      [routes.apiTokens.revoke, { params: { id: 1 } }],
      [routes.apiTokens.companyList, {}],
      [routes.password.updatePassword, { body: { currentPassword: ADMIN.password, password: 'Another-Password-9!' } }],
    ] as const) {
      const res = await api.call(route, input as never);
      expect(res.status, route.path).toBe(403);
      expect(res.message).toBe(API_TOKEN_TEXT.sessionOnly);
    }
  });

  it('a token cannot reach the second factor (sessionOnly by declaration) nor the sign-in flow', async () => {
    // The two-factor routes say so in the contract (no path rule in the server names them any more).
    for (const route of Object.values(routes.twoFactor)) expect(route.sessionOnly, route.path).toBe(true);
    // So does every route of the sign-in flow a token could otherwise reach (public or 'user'): the server keeps no
    // '/auth/' path rule, so a new one without the flag fails here.
    for (const route of allRoutes())
      if (route.path.startsWith('/auth/') && (route.access === 'public' || route.access === 'user'))
        expect(route.sessionOnly, route.path).toBe(true);
    const { token } = await create(admin, { name: 'no-second-factor', scope: 'act' });
    const api = bearer(token);
    const before = (await admin.call(routes.twoFactor.status)).data;
    for (const [route, input] of [
      [routes.twoFactor.status, {}],
      [routes.twoFactor.start, { body: {} }],
      [routes.twoFactor.confirm, { body: { code: '123456' } }],
      [routes.twoFactor.regenerateRecoveryCodes, { body: { code: '123456' } }],
      [routes.twoFactor.remove, { body: { password: ADMIN.password } }],
      [routes.twoFactor.emailCode, { body: {} }],
      [routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } }],
      [routes.auth.mfa, { body: { code: '123456' } }],
      [routes.auth.check, {}],
      [routes.auth.logout, { body: {} }],
      [routes.auth.refreshAuth, { body: {} }],
      [routes.auth.shouldResetPassword, { body: {} }],
      [routes.singleSignOn.start, { body: { email: ADMIN.email } }],
      [routes.singleSignOn.callback, { body: { query: 'code=x&state=y' } }],
    ] as const) {
      const res = await api.call(route, input as never);
      expect([res.status, res.message], route.path).toEqual([403, API_TOKEN_TEXT.sessionOnly]);
    }
    expect((await admin.call(routes.twoFactor.status)).data).toEqual(before);
  });

  it("company administrators list and revoke their users' tokens; another company's ids are not found", async () => {
    const member = await createUser(t, companyId, 'token-member@example.com');
    const memberClient = await signIn(t, member.email, PASSWORD);
    const { token, apiToken } = await create(memberClient, { name: 'member-cli', scope: 'read' });
    // A plain member cannot use the company list.
    expect((await memberClient.call(routes.apiTokens.companyList)).status).toBe(403);
    // Nor revoke another user's token as their own.
    const mineOnly = await admin.call(routes.apiTokens.revoke, { params: { id: apiToken.id } });
    expect(mineOnly.status).toBe(404);
    const list = await admin.call(routes.apiTokens.companyList, { query: { userId: member.id } });
    expect(list.status).toBe(200);
    expect(list.data.map((x) => x.name)).toEqual(['member-cli']);
    expect(list.data[0]!.userEmail).toBe(member.email);
    expect(JSON.stringify(list.data)).not.toContain(token);
    const revoked = await admin.call(routes.apiTokens.companyRevoke, { params: { id: apiToken.id } });
    expect(revoked.status).toBe(200);
    expect(revoked.data.state).toBe('revoked');
    expect((await bearer(token).call(routes.vms.list)).status).toBe(401);

    const other = await createOtherCompany(t, 'token-boss@other.example');
    const otherClient = await signIn(t, other.admin.email, PASSWORD);
    const theirs = await create(otherClient, { name: 'theirs', scope: 'read' });
    expect((await admin.call(routes.apiTokens.companyRevoke, { params: { id: theirs.apiToken.id } })).status).toBe(404);
    expect((await admin.call(routes.apiTokens.revoke, { params: { id: theirs.apiToken.id } })).status).toBe(404);
    expect((await bearer(theirs.token).call(routes.vms.list)).status).toBe(200);
  });

  it('rate-limits failed bearer checks per address (429), valid or not', async () => {
    const limited = await createTestApp({ env: { AUTH_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const res = [];
      for (let i = 0; i < 4; i++)
        res.push((await bearer(`vmp_wrong${i}`, limited.portal).call(routes.vms.list)).status);
      expect(res).toEqual([401, 401, 401, 429]);
    } finally {
      await limited.close();
    }
  });

  it('never writes a bearer secret to the request log', async () => {
    const lines: string[] = [];
    const logged = await createTestApp({ env: { LOG_REQUESTS: 'true', LOG_LEVEL: 'info' } });
    const portal = await buildApp({
      config: logged.config,
      database: logged.database,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: { ...loggerOptions('info'), stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      await portal.app.ready();
      const client = await signIn(logged);
      const { token } = await create(client, { name: 'logged', scope: 'read' });
      expect((await bearer(token, portal).call(routes.vms.list)).status).toBe(200);
      expect((await bearer(`${token}x`, portal).call(routes.vms.list)).status).toBe(401);
      expect(lines.filter((l) => l.includes('incoming request')).length).toBeGreaterThanOrEqual(2);
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await portal.close();
      await logged.close();
    }
  });

  it('authorisation matrix for token callers: the user’s rights narrowed by the token’s scope', async () => {
    const teamA = await createTeam(t, companyId, 'Matrix team A', [{ userId: adminId, roleId: ADMIN_ROLE_ID }]);
    const teamB = await createTeam(t, companyId, 'Matrix team B', [{ userId: adminId, roleId: ADMIN_ROLE_ID }]);
    const vmA = await insertVm(t, { companyId, teamId: teamA.id, name: 'matrix-a' });
    const secrets = {
      tokenAct: (await create(admin, { name: 'm-act', scope: 'act' })).token,
      tokenTeamA: (await create(admin, { name: 'm-a', scope: 'act', teamIds: [teamA.id] })).token,
      tokenTeamB: (await create(admin, { name: 'm-b', scope: 'act', teamIds: [teamB.id] })).token,
      tokenRead: (await create(admin, { name: 'm-read', scope: 'read' })).token,
    };
    const clients: Record<TokenActor, TestClient> = {
      session: admin,
      tokenAct: new BearerClient(t.portal, t.config.API_BASE_PATH, secrets.tokenAct),
      tokenTeamA: new BearerClient(t.portal, t.config.API_BASE_PATH, secrets.tokenTeamA),
      tokenTeamB: new BearerClient(t.portal, t.config.API_BASE_PATH, secrets.tokenTeamB),
      tokenRead: new BearerClient(t.portal, t.config.API_BASE_PATH, secrets.tokenRead),
    };
    let n = 0;
    const cells: Cell<TokenActor>[] = [
      {
        call: 'GET vms.details (team A)',
        expect: { session: A, tokenAct: A, tokenTeamA: A, tokenTeamB: 404, tokenRead: A },
        run: (c) => c.call(routes.vms.details, { params: { id: vmA.id } }),
      },
      {
        call: 'GET teams.details (team A)',
        expect: { session: A, tokenAct: A, tokenTeamA: A, tokenTeamB: 404, tokenRead: A },
        run: (c) => c.call(routes.teams.details, { params: { id: teamA.id } }),
      },
      {
        call: 'POST teams.update (team A)',
        expect: { session: A, tokenAct: A, tokenTeamA: A, tokenTeamB: 404, tokenRead: 403 },
        run: (c) => c.call(routes.teams.update, { body: { teamId: teamA.id, name: `Matrix team A ${++n}` } }),
      },
      {
        call: 'POST sshKeys.add',
        expect: { session: A, tokenAct: A, tokenTeamA: A, tokenTeamB: A, tokenRead: 403 },
        run: (c) => c.call(routes.sshKeys.add, { body: { name: `matrix-${++n}`, publicKey: ed25519KeyLine() } }),
      },
      {
        call: 'GET apiTokens.list',
        expect: { session: A, tokenAct: 403, tokenTeamA: 403, tokenTeamB: 403, tokenRead: 403 },
        run: (c) => c.call(routes.apiTokens.list),
      },
    ];
    const snapshot = async () => {
      const rows = await t.db.execute(
        sql`select (select string_agg(name, ',' order by id) from teams) as teams, (select count(*) from ssh_keys) as keys`,
      );
      return JSON.stringify(rows.rows);
    };
    const { checked, failures } = await runMatrix({ cells, clients, actors: TOKEN_ACTORS, snapshot });
    console.log(
      `API token authorisation matrix: ${checked} cells checked (${cells.length} calls × ${TOKEN_ACTORS.length} callers)`,
    );
    expect(failures).toEqual([]);
  });
});
