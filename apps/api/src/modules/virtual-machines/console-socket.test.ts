/**
 * The console websockets on a real listening server (simulator VMs: a serial shell, no display): a live token
 * opens the serial console and it answers what is typed; reused, expired, other-session and other-VM tokens,
 * a signed-out session and a user who lost access are refused before the upgrade, and so is another site's page
 * (Origin); open and close are audited.
 * (libvirt-console.test.ts does the same against a real QEMU: the RFB handshake and the serial login.)
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { routes } from '@portal/contract/routes';
import { OPERATOR_ROLE_ID } from '@portal/contract/permissions';
import { auditLog, companies, consoleTokens, resellerDomains, teamMembers, users } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
let admin: TestClient;
let origin = '';

beforeAll(async () => {
  t = await createTestApp({
    env: {
      SIMULATOR_STEP_MS: '30',
      VM_RUNNER_POLL_MS: '20',
      VM_RECONCILE_INTERVAL_MS: '100000',
      VM_STREAM_SESSION_CHECK_MS: '200',
    },
  });
  t.portal.startWorkers();
  await t.portal.app.listen({ host: '127.0.0.1', port: 0 });
  const addr = t.portal.app.server.address();
  origin = `ws://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  admin = await signIn(t);
});
afterAll(async () => {
  await t.close();
});

async function createRunningVm(name: string, teamId?: number): Promise<number> {
  const regions = (
    await admin.call(routes.vms.listRegions, {
      params: { id: (await admin.call(routes.vms.listCountries)).data.find((c) => c.name === 'United States')!.id },
    })
  ).data;
  const east = regions.find((r) => r.name === 'US East')!;
  const micro = (
    await admin.call(routes.vms.fetchConfigurations, { params: { regionId: east.id }, query: { image: 'Debian 12' } })
  ).data.find((c) => c.key === 'micro')!;
  const provider = (
    await admin.call(routes.vms.listProviders, { params: { regionId: east.id }, query: { configurationId: micro.id } })
  ).data[0]!;
  const res = await admin.call(routes.vms.create, {
    body: {
      regionId: east.id,
      image: 'Debian 12',
      configurationId: micro.id,
      providerId: provider.id,
      name,
      numberOfInstances: 1,
      ...(teamId ? { teamId } : {}),
    },
  });
  const id = res.data.ids[0]!;
  const deadline = Date.now() + 10_000;
  while ((await admin.call(routes.vms.details, { params: { id } })).data.status !== 'Running') {
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return id;
}

const cookieOf = (c: TestClient) => [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');

/** A console link as the portal hands it out, turned into the websocket URL of one kind. */
async function consoleSocketUrl(client: TestClient, id: number, kind: 'vnc' | 'serial'): Promise<string> {
  const link = (await client.call(routes.vms.getConsole, { params: { id } })).data.consoleUrl;
  const u = new URL(link, 'http://x');
  return `${origin}${u.pathname}/${kind}${u.search}`;
}

/** Opens the socket: the open socket, or the HTTP status that refused the upgrade. */
function connect(
  url: string,
  client: TestClient,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket; status: 101 } | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { cookie: cookieOf(client), ...headers } });
    // Frames can arrive in the same read as the upgrade: keep them for readUntil.
    const received: Buffer[] = [];
    ws.on('message', (d: Buffer) => received.push(d));
    seen.set(ws, received);
    ws.once('open', () => resolve({ ws, status: 101 }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
    });
    ws.once('error', reject);
  });
}

async function open(url: string, client: TestClient): Promise<WebSocket> {
  const r = await connect(url, client);
  if (!('ws' in r)) throw new Error(`refused with ${r.status}`);
  return r.ws;
}

const seen = new WeakMap<WebSocket, Buffer[]>();

/** Waits until what the socket received (and was not read yet) matches; consumes it. */
async function readUntil(ws: WebSocket, re: RegExp, ms = 5000): Promise<string> {
  const received = seen.get(ws)!;
  const deadline = Date.now() + ms;
  for (;;) {
    const text = Buffer.concat(received).toString('utf8');
    if (re.test(text)) {
      received.length = 0;
      return text;
    }
    if (Date.now() > deadline) throw new Error(`no ${re} in ${JSON.stringify(text)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the serial console websocket', () => {
  let id = 0;
  beforeAll(async () => {
    id = await createRunningVm('console-sim');
  });

  it('opens with a live token and relays what is typed and what the machine answers', async () => {
    const ws = await open(await consoleSocketUrl(admin, id, 'serial'), admin);
    await readUntil(ws, /console-sim login: $/);
    ws.send(Buffer.from('root\r'));
    await readUntil(ws, /Password: $/);
    ws.send(Buffer.from('secret\r'));
    await readUntil(ws, /root@console-sim:~# $/);
    const answer = readUntil(ws, /console-sim\r\n/);
    ws.send(Buffer.from('hostname\r'));
    expect(await answer).toContain('hostname');
    ws.close();
  });

  it('refuses a reused, an expired, another session’s and another VM’s token, and a display the VM lacks', async () => {
    const url = await consoleSocketUrl(admin, id, 'serial');
    (await open(url, admin)).close();
    expect((await connect(url, admin)).status).toBe(403);

    const expired = await consoleSocketUrl(admin, id, 'serial');
    await t.db.update(consoleTokens).set({ expiresAt: new Date(Date.now() - 1000) });
    expect((await connect(expired, admin)).status).toBe(403);

    const other = await signIn(t);
    expect((await connect(await consoleSocketUrl(admin, id, 'serial'), other)).status).toBe(403);

    const otherVm = await createRunningVm('console-other');
    const forOther = await consoleSocketUrl(admin, otherVm, 'serial');
    expect((await connect(forOther.replace(`/console/${otherVm}/`, `/console/${id}/`), admin)).status).toBe(403);

    expect((await connect(await consoleSocketUrl(admin, id, 'vnc'), admin)).status).toBe(404);
    expect(
      (await connect((await consoleSocketUrl(admin, id, 'serial')).replace(`/console/${id}/`, '/console/abc/'), admin))
        .status,
    ).toBe(400);
  });

  it('refuses a token after logout, and one of a user who lost access since it was issued', async () => {
    const me = await signIn(t);
    const url = await consoleSocketUrl(me, id, 'serial');
    await me.call(routes.auth.logout);
    expect((await connect(url, me)).status).toBe(403);

    const [{ companyId }] = (await t.db
      .select({ companyId: users.companyId })
      .from(users)
      .where(eq(users.email, ADMIN.email))) as [{ companyId: number }];
    const user = await createUser(t, companyId, 'operator-console@example.com');
    const team = await createTeam(t, companyId, 'Console team', [{ userId: user.id, roleId: OPERATOR_ROLE_ID }]);
    const teamVm = await createRunningVm('console-team', team.id);
    const operator = await signIn(t, 'operator-console@example.com', PASSWORD);
    const live = await open(await consoleSocketUrl(operator, teamVm, 'serial'), operator);
    const pending = await consoleSocketUrl(operator, teamVm, 'serial');
    const closed = new Promise<number>((resolve) => live.once('close', (code) => resolve(code)));
    await t.db.delete(teamMembers).where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, user.id)));
    expect([403, 404]).toContain((await connect(pending, operator)).status);
    // The open console ends too, at the next session check.
    expect(await closed).toBe(4403);
  });

  it('records each console session opened and closed, with who, the kind and how long', async () => {
    const ws = await open(await consoleSocketUrl(admin, id, 'serial'), admin);
    await readUntil(ws, /login: $/);
    await new Promise((r) => setTimeout(r, 50));
    ws.close();
    const deadline = Date.now() + 5000;
    for (;;) {
      const rows = await t.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetType, 'vm'), eq(auditLog.targetId, String(id))));
      const closes = rows.filter((r) => r.action === 'vm.console.close');
      if (closes.length >= 3) {
        expect(rows.filter((r) => r.action === 'vm.console.open').length).toBeGreaterThanOrEqual(closes.length);
        const last = closes.at(-1)!;
        expect(last.actorUserId).not.toBeNull();
        expect(last.after).toMatchObject({ kind: 'serial' });
        expect((last.after as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(40);
        break;
      }
      if (Date.now() > deadline) throw new Error(`audit rows: ${JSON.stringify(rows.map((r) => r.action))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it("refuses another site's page (Origin) before the upgrade, without spending the token; the portal's own hosts open", async () => {
    const [{ companyId }] = (await t.db
      .select({ companyId: users.companyId })
      .from(users)
      .where(eq(users.email, ADMIN.email))) as [{ companyId: number }];
    const [{ resellerId }] = (await t.db
      .select({ resellerId: companies.resellerId })
      .from(companies)
      .where(eq(companies.id, companyId))) as [{ resellerId: number }];
    await t.db.insert(resellerDomains).values([
      { host: 'cloud.verified-reseller.test', resellerId, isPrimary: false, verifiedAt: new Date() },
      { host: 'cloud.pending-reseller.test', resellerId, isPrimary: false, verifiedAt: null },
    ]);
    const withOrigin = async (origin: string | null) => {
      const url = await consoleSocketUrl(admin, id, 'serial');
      const r = await connect(url, admin, origin === null ? {} : { origin });
      if ('ws' in r) r.ws.close();
      return { url, status: r.status };
    };

    for (const foreign of [
      'https://evil.example',
      'null',
      'http://cloud.pending-reseller.test',
      `http://127.0.0.2:${new URL(origin).port}`,
      'not a url',
    ]) {
      const { url, status } = await withOrigin(foreign);
      expect([foreign, status]).toEqual([foreign, 403]);
      // The refusal came first: the link still opens from the portal itself.
      const r = await connect(url, admin, { origin: origin.replace('ws:', 'http:') });
      expect([foreign, r.status]).toEqual([foreign, 101]);
      if ('ws' in r) r.ws.close();
    }
    const refused = await connect(await consoleSocketUrl(admin, id, 'serial'), admin, {
      origin: 'https://evil.example',
    });
    expect(refused.status).toBe(403);

    for (const own of [
      origin.replace('ws:', 'http:'), // the request's own host
      'http://portal.test', // PUBLIC_URL
      'https://cloud.verified-reseller.test', // a verified reseller domain
      null, // no Origin: not a browser
    ])
      expect([own, (await withOrigin(own)).status]).toEqual([own, 101]);
  });
});
