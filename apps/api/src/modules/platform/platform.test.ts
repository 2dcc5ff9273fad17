/** Support, branding, imports, logging, profiling, metrics, health and debug through the real server. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import {
  auditLog,
  clientLogs,
  companies,
  distributors,
  mailOutbox,
  resellers,
  supportMessages,
  users,
} from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOperatorTokens } from '../../../test/module-parts.ts';
import { openDatabase } from '../../db/client.ts';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';

let t: TestApp;
let admin: TestClient;
let token: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
  token = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('tests')
  ).token;
});
afterAll(async () => {
  await t.close();
});

const bearer = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
const api = (path: string) => `${t.config.API_BASE_PATH}${path}`;

describe('support', () => {
  it("mails the message to the reseller's support address with the sender as reply-to, and keeps it", async () => {
    const res = await admin.call(routes.platform.sendSupportEmail, { body: { message: 'My VM web-1 does not boot.' } });
    expect(res.status).toBe(200);
    const mail = await t.smtp.waitFor('support@northwind.example');
    expect(mail.subject).toBe('Support request from Ada Admin (Demo Company)');
    expect(mail.replyTo).toContain('admin@example.com');
    expect(mail.text).toContain('My VM web-1 does not boot.');
    expect(mail.text).toContain('Company: Demo Company');
    const [saved] = await t.db.select().from(supportMessages).where(eq(supportMessages.id, res.data.id));
    expect(saved!.message).toBe('My VM web-1 does not boot.');
    expect(saved!.outboxId).not.toBeNull();
  });

  it('keeps the message when mail is down and delivers it on retry', async () => {
    t.smtp.setDown(true);
    const res = await admin.call(routes.platform.sendSupportEmail, { body: { message: 'Sent while mail is down' } });
    expect(res.status).toBe(200);
    await t.portal.mailer.flush();
    const [saved] = await t.db.select().from(supportMessages).where(eq(supportMessages.id, res.data.id));
    const [row] = await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, saved!.outboxId!));
    expect(row!.status).toBe('pending');
    t.smtp.setDown(false);
    await t.db
      .update(mailOutbox)
      .set({ nextAttemptAt: new Date(Date.now() - 1000) })
      .where(eq(mailOutbox.id, row!.id));
    await t.portal.mailer.flush();
    await t.smtp.waitFor('support@northwind.example', (m) => m.text.includes('Sent while mail is down'));
  });

  it('refuses empty and over-long messages, and limits the rate', async () => {
    expect((await admin.call(routes.platform.sendSupportEmail, { body: { message: '   ' } })).status).toBe(400);
    const long = await admin.call(routes.platform.sendSupportEmail, { body: { message: 'x'.repeat(5001) } });
    expect(long.status).toBe(400);
    expect(long.message).toContain('Message must not exceed 5000 characters');
    expect((await t.client().call(routes.platform.sendSupportEmail, { body: { message: 'hi' } })).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await admin.call(routes.platform.sendSupportEmail, { body: { message: `n${i}` } })).status);
    expect(statuses).toContain(429);
  });
});

describe('branding', () => {
  it("comes from the user's reseller, else its distributor", async () => {
    const res = await admin.call(routes.platform.getLogoUrl);
    expect(res.data.resellerName).toBe('Northwind Hosting');
    expect(res.data.logoUrl).toMatch(/^data:image\/svg\+xml/);
    await t.db.update(resellers).set({ logoUrl: null, tabLogoUrl: null }).where(eq(resellers.id, 1));
    await t.db
      .update(distributors)
      .set({ logoUrl: 'https://cdn.example.com/dist.png', tabLogoUrl: 'https://cdn.example.com/dist.ico' })
      .where(eq(distributors.id, 1));
    const fallback = await admin.call(routes.platform.getLogoUrl);
    expect(fallback.data).toEqual({
      resellerName: 'Northwind Hosting',
      logoUrl: 'https://cdn.example.com/dist.png',
      tabLogoUrl: 'https://cdn.example.com/dist.ico',
    });
    expect((await admin.call(routes.password.me)).data.logoUrl).toBe('https://cdn.example.com/dist.png');
  });
});

describe('imports', () => {
  it('needs an operator token, never a portal session', async () => {
    const body = { rows: [{ externalId: 'd-x', name: 'X' }] };
    expect((await admin.call(routes.platform.importDistributors, { body })).status).toBe(401);
    expect(
      (await t.client().raw('POST', api('/imports/distributer'), body, { authorization: 'Bearer op_wrong' })).status,
    ).toBe(401);
  });

  it('creates, updates and rejects row by row, idempotently, without half-writes', async () => {
    const dist = await t.client().call(routes.platform.importDistributors, {
      headers: bearer(),
      body: {
        rows: [
          {
            externalId: 'dist-a',
            name: 'Dist A',
            email: 'noreply@dist-a.example',
            supportEmail: 'help@dist-a.example',
          },
          { externalId: 'dist-b', name: '' },
          { name: 'No id' },
          { externalId: 'dist-c', name: 'Dist C', logoUrl: 'not a url' },
        ],
      },
    });
    expect(dist.status).toBe(200);
    expect(dist.data).toMatchObject({ created: 1, updated: 0, rejected: 3 });
    expect(dist.data.rows[1]).toMatchObject({ outcome: 'rejected', externalId: 'dist-b' });
    expect(dist.data.rows[1]?.reason).toMatch(/^name:/);

    const rs = await t.client().call(routes.platform.importResellers, {
      headers: bearer(),
      body: {
        rows: [
          {
            externalId: 'res-a',
            distributorExternalId: 'dist-a',
            name: 'Reseller A',
            logoUrl: 'https://a.example/logo.svg',
            tabLogoUrl: 'https://a.example/tab.svg',
            email: 'portal@a.example',
            supportEmail: 'support@a.example',
          },
          { externalId: 'res-x', distributorExternalId: 'nope', name: 'Orphan' },
        ],
      },
    });
    expect(rs.data).toMatchObject({ created: 1, rejected: 1 });
    expect(rs.data.rows[1]?.reason).toContain('no distributor "nope"');
    expect(await t.db.select().from(resellers).where(eq(resellers.externalId, 'res-x'))).toEqual([]);

    const co = await t.client().call(routes.platform.importCompanies, {
      headers: bearer(),
      body: { rows: [{ externalId: 'co-a', resellerExternalId: 'res-a', name: 'Company A' }] },
    });
    expect(co.data).toMatchObject({ created: 1 });

    // Running the same rows again updates instead of duplicating.
    const again = await t.client().call(routes.platform.importResellers, {
      headers: bearer(),
      body: { rows: [{ externalId: 'res-a', distributorExternalId: 'dist-a', name: 'Reseller A (renamed)' }] },
    });
    expect(again.data).toMatchObject({ created: 0, updated: 1, rejected: 0 });
    const all = await t.db.select().from(resellers).where(eq(resellers.externalId, 'res-a'));
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ name: 'Reseller A (renamed)', logoUrl: 'https://a.example/logo.svg' });
    expect(await t.db.select().from(companies).where(eq(companies.externalId, 'co-a'))).toHaveLength(1);
  });

  it('answers 400 for a malformed body', async () => {
    expect(
      (await t.client().call(routes.platform.importCompanies, { headers: bearer(), body: { rows: [] } })).status,
    ).toBe(400);
    expect(
      (await t.client().call(routes.platform.importCompanies, { headers: bearer(), body: { items: [] } })).status,
    ).toBe(400);
  });
});

describe('logging, profiling, metrics, debug, health', () => {
  it('stores client error reports, bounded in size', async () => {
    const res = await t.client().call(routes.platform.logging, {
      body: {
        level: 'error',
        message: 'TypeError: x is undefined',
        url: 'http://portal/x',
        stack: 'at f (app.js:1)',
      },
    });
    expect(res.status).toBe(200);
    const [row] = await t.db.select().from(clientLogs);
    expect(row).toMatchObject({ level: 'error', message: 'TypeError: x is undefined' });
    expect((await t.client().call(routes.platform.logging, { body: { message: 'x'.repeat(4001) } })).status).toBe(400);
    expect((await t.client().call(routes.platform.logging, { body: { level: 'panic', message: 'x' } })).status).toBe(
      400,
    );
  });

  it('keeps profiling, metrics and debug for the operator', async () => {
    expect((await admin.call(routes.platform.loadCpu, { body: { durationMs: 50 } })).status).toBe(401);
    const cpu = await t.client().call(routes.platform.loadCpu, { headers: bearer(), body: { durationMs: 50 } });
    expect(cpu.status).toBe(200);
    expect(cpu.data.iterations).toBeGreaterThan(0);
    expect(
      (await t.client().call(routes.platform.loadCpu, { headers: bearer(), body: { durationMs: 60_000 } })).status,
    ).toBe(400);

    expect((await admin.raw('GET', api('/metrics'))).status).toBe(401);
    const metrics = await t.portal.app.inject({ url: api('/metrics'), headers: { authorization: `Bearer ${token}` } });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(
      /portal_http_requests_total\{method="POST",route="\/irontech\/api\/v1\/auth\/login",status="200"\} \d+/,
    );
    expect(metrics.body).toContain('portal_http_request_duration_seconds_bucket');
    expect(metrics.body).toContain('portal_operations{state="pending"}');

    expect((await admin.call(routes.platform.debug)).status).toBe(401);
    const debug = await t.client().call(routes.platform.debug, { headers: { authorization: `Bearer ${token}` } });
    expect(debug.status).toBe(200);
    expect(debug.data[0]).toMatchObject({ driver: 'simulator', healthy: true });
  });

  it('answers health checks with statuses a load balancer understands', async () => {
    expect((await t.client().call(routes.platform.healthApi)).status).toBe(200);
    const db = await t.client().call(routes.platform.healthDatabase);
    expect(db.status).toBe(200);
    expect(db.data.checks.database?.status).toBe('ok');
    const remote = await t.client().call(routes.platform.healthRemoteApi);
    expect(remote.status).toBe(200);
    // Anyone may ask (load balancers); only the operator learns which providers and drivers there are.
    expect(Object.keys(remote.data.checks)).toEqual(['provider-1', 'provider-2']);
    expect(Object.values(remote.data.checks).map((c) => (c as { detail: string | null }).detail)).toEqual([null, null]);
    const named = await t
      .client()
      .call(routes.platform.healthRemoteApi, { headers: { authorization: `Bearer ${token}` } });
    expect(Object.keys(named.data.checks)).toEqual(['Northwind Cloud', 'Irontech Metal']);
    expect(named.data.checks['Northwind Cloud']?.detail).toBe('simulator');

    const database = await openDatabase({ dataDir: 'memory://' });
    const down = await buildApp({
      config: loadConfig({ LOG_LEVEL: 'silent' }),
      database,
      secret: 'test-secret-that-is-long-enough-0123456789',
      logger: false,
      webDistDir: '/nonexistent',
    });
    await database.close();
    const res = await down.app.inject({ url: api('/healthCheck/database') });
    expect(res.statusCode).toBe(503);
    expect(res.json().data.status).toBe('down');
    await down.close();
  });
});

// Each command opens the embedded database from its data dir in this process (a PGlite boot, seconds under load):
// a test of four or six commands needs more than the default 30 s on a loaded 2-core runner (31 s seen in a full run).
describe('operator command', { timeout: 120_000 }, () => {
  it('creates, lists and revokes tokens', async () => {
    const { runOperatorCommand } = await import('../../cli/operator.ts');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/op-`);
    const out = await runOperatorCommand(['token', 'create', 'prometheus'], { DATA_DIR: dir, LOG_LEVEL: 'silent' });
    expect(out).toMatch(/op_[\w-]{20,}/);
    expect(await runOperatorCommand(['token', 'list'], { DATA_DIR: dir })).toMatch(/#1\tprometheus/);
    expect(await runOperatorCommand(['token', 'revoke', '1'], { DATA_DIR: dir })).toBe('Revoked token #1.');
    await expect(runOperatorCommand(['nope'], { DATA_DIR: dir })).rejects.toThrow(/Usage/);
  });

  it('grants and revokes company administration', async () => {
    const { runOperatorCommand } = await import('../../cli/operator.ts');
    const { seedDemoTenant, seedReferenceData } = await import('../../seed/seed.ts');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/op-`);
    const database = await openDatabase({ dataDir: dir });
    await seedReferenceData(database.db);
    await seedDemoTenant(database.db, { adminEmail: 'owner@example.com', adminPassword: 'Owner-Password-1!' });
    await database.db
      .insert(users)
      .values({ companyId: 1, email: 'deputy@example.com', firstName: 'Dep', lastName: 'Uty' });
    await database.close();
    expect(await runOperatorCommand(['company-admin', 'grant', 'Deputy@example.com'], { DATA_DIR: dir })).toMatch(
      /^deputy@example.com is now an administrator of company #1/,
    );
    const admins = (await runOperatorCommand(['company-admin', 'list'], { DATA_DIR: dir })).split('\n');
    expect(admins).toEqual(['Demo Company\tdeputy@example.com', 'Demo Company\towner@example.com']);
    expect(await runOperatorCommand(['company-admin', 'revoke', 'deputy@example.com'], { DATA_DIR: dir })).toBe(
      'deputy@example.com is no longer a company administrator.',
    );
    expect(await runOperatorCommand(['company-admin', 'grant', 'nobody@example.com'], { DATA_DIR: dir })).toBe(
      'No user nobody@example.com.',
    );
    const check = await openDatabase({ dataDir: dir });
    const [deputy] = await check.db.select().from(users).where(eq(users.email, 'deputy@example.com'));
    expect(deputy!.isCompanyAdmin).toBe(false);
    const entries = await check.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.targetId, String(deputy!.id)));
    expect(entries.map((e) => e.action)).toEqual(['user.companyAdmin.grant', 'user.companyAdmin.revoke']);
    await check.close();
  });
});
