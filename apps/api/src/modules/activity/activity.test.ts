/**
 * Company administration from the portal and the activity log, through the real server on both engines:
 * who may grant and revoke, the last-administrator rule and its race, and whose log each caller reads.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIVITY_TEXT } from '@portal/contract/activity';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, users } from '../../db/schema.ts';
import { createAudit } from '../../lib/audit.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';

let t: TestApp;
let admin: TestClient;
let deputy: TestClient;
let boss: TestClient;
let staffA: TestClient;
let staffB: TestClient;
let ids: { admin: number; deputy: number; boss: number; other: number };

async function staffOf(resellerId: number, email: string, staffRole: 'owner' | 'support') {
  const [company] = await t.db
    .insert(companies)
    .values({ resellerId, name: `Staff ${email}`, kind: 'staff' })
    .returning();
  await createUser(t, company!.id, email, { staffRole });
  return signIn(t, email, PASSWORD);
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  // The session cache on: a grant or revocation must still count on the very next request.
  t = await createTestApp({ env: { SESSION_CACHE: 'true' } });
  const [demo] = await t.db.select().from(companies).where(eq(companies.id, 1));
  const [seedAdmin] = await t.db.select().from(users).where(eq(users.isCompanyAdmin, true));
  const other = await createOtherCompany(t);
  const deputyRow = await createUser(t, 1, 'deputy@example.com', { firstName: 'Dana', lastName: 'Deputy' });
  ids = { admin: seedAdmin!.id, deputy: deputyRow.id, boss: other.admin.id, other: other.companyId };
  const [otherCompany] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  [admin, deputy, boss, staffA, staffB] = await Promise.all([
    signIn(t),
    signIn(t, 'deputy@example.com', PASSWORD),
    signIn(t, 'boss@other.example', PASSWORD),
    staffOf(demo!.resellerId, 'support@reseller-a.example', 'support'),
    staffOf(otherCompany!.resellerId, 'owner@reseller-b.example', 'owner'),
  ]);
});
afterAll(async () => {
  await t.close();
});

const setAdmin = (c: TestClient, id: number, isCompanyAdmin: boolean) =>
  c.call(routes.companyAdmin.set, { params: { id }, body: { isCompanyAdmin } });

describe('company administration', () => {
  it('is granted and revoked by company administrators only, in their company, and counts at once', async () => {
    expect(await setAdmin(deputy, ids.deputy, true)).toMatchObject({ status: 403, message: ACTIVITY_TEXT.adminsOnly });
    expect((await deputy.call(routes.activity.list)).status).toBe(403);
    expect(await setAdmin(admin, ids.boss, false)).toMatchObject({ status: 404, message: 'User not found' });
    expect((await setAdmin(admin, ids.deputy, 'yes' as unknown as boolean)).status).toBe(400);

    const granted = await setAdmin(admin, ids.deputy, true);
    expect(granted).toMatchObject({ status: 200, message: 'Dana Deputy is now a company administrator' });
    expect(granted.data.isCompanyAdmin).toBe(true);
    // The deputy's own session (cached) holds the new right on its next request.
    expect((await deputy.call(routes.activity.list)).status).toBe(200);
    expect((await deputy.call(routes.users.details, { params: { id: ids.deputy } })).data.isCompanyAdmin).toBe(true);
    // Granting again changes nothing and says so the same way.
    expect((await setAdmin(admin, ids.deputy, true)).status).toBe(200);

    // An administrator may step down while another remains; the last one may not.
    expect(await setAdmin(admin, ids.admin, false)).toMatchObject({ status: 200 });
    expect((await admin.call(routes.activity.list)).status).toBe(403);
    expect(await setAdmin(admin, ids.deputy, false)).toMatchObject({ status: 403 });
    expect(await setAdmin(deputy, ids.deputy, false)).toMatchObject({ status: 409, message: ACTIVITY_TEXT.lastAdmin });
  });

  it('never leaves a company without an administrator when two revoke each other at once', async () => {
    expect((await setAdmin(deputy, ids.admin, true)).status).toBe(200);
    const results = await Promise.all([setAdmin(admin, ids.deputy, false), setAdmin(deputy, ids.admin, false)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    const admins = await t.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, 1), eq(users.isCompanyAdmin, true)));
    expect(admins).toHaveLength(1);
    // Restore the seed administrator for the activity tests.
    const remaining = admins[0]!.id === ids.admin ? admin : deputy;
    expect((await setAdmin(remaining, admins[0]!.id === ids.admin ? ids.deputy : ids.admin, true)).status).toBe(200);
  });
});

describe('activity log', () => {
  it('shows a company administrator their company only, newest first, with who, what and which target', async () => {
    const res = await admin.call(routes.activity.list, { query: { rowsPerPage: 100 } });
    expect(res.status).toBe(200);
    const rows = res.data.data;
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.every((r) => r.company?.id === 1)).toBe(true);
    expect(rows.map((r) => r.createdAt)).toEqual([...rows.map((r) => r.createdAt)].sort().reverse());
    const grant = rows.find((r) => r.action === 'user.companyAdmin.grant' && r.targetId === String(ids.deputy));
    expect(grant).toMatchObject({
      actor: { id: ids.admin, email: 'admin@example.com' },
      actorKind: 'user',
      targetType: 'user',
      targetName: 'Dana Deputy',
    });
    expect(rows.some((r) => r.action === 'user.signIn' && r.actor?.id === ids.deputy)).toBe(true);

    const theirs = await boss.call(routes.activity.list, { query: { rowsPerPage: 100 } });
    expect(theirs.data.data.length).toBeGreaterThan(0);
    expect(theirs.data.data.every((r) => r.company?.id === ids.other)).toBe(true);

    const filters = await admin.call(routes.activity.filters);
    expect(filters.data.actions).toEqual(expect.arrayContaining(['user.signIn', 'user.companyAdmin.revoke']));
    expect(filters.data.users.map((u) => u.email)).toEqual(['admin@example.com', 'deputy@example.com']);
    expect(filters.data.companies).toEqual([]);
  });

  it('filters by user, action and dates, and refuses bad dates with a clear 400', async () => {
    const list = (query: Record<string, string | number>) => admin.call(routes.activity.list, { query });
    const revokes = await list({ action: 'user.companyAdmin.revoke' });
    expect(revokes.data.data.length).toBeGreaterThanOrEqual(2);
    expect(revokes.data.data.every((r) => r.action === 'user.companyAdmin.revoke')).toBe(true);
    const byDeputy = await list({ userId: ids.deputy });
    expect(byDeputy.data.data.length).toBeGreaterThan(0);
    expect(byDeputy.data.data.every((r) => r.actor?.id === ids.deputy)).toBe(true);
    expect((await list({ from: day(-1), to: day(1) })).data.data.length).toBeGreaterThan(0);
    expect((await list({ from: day(2) })).data).toEqual({ data: [], totalPages: 0 });
    expect((await list({ to: day(-2) })).data).toEqual({ data: [], totalPages: 0 });
    expect(await list({ from: day(1), to: day(0) })).toMatchObject({
      status: 400,
      message: expect.stringContaining(ACTIVITY_TEXT.datesOrder),
    });
    expect((await list({ from: '2026-13-01' })).status).toBe(400);
    expect((await list({ action: "x' or 1=1" })).status).toBe(400);
    expect((await list({ page: 1, rowsPerPage: 2 })).data.data).toHaveLength(2);
  });

  it('names entries without a user as the operator or the system', async () => {
    const audit = createAudit(t.db);
    const base = { companyId: 1, actorUserId: null, targetType: 'user', targetId: ids.deputy } as const;
    await audit.record({ ...base, action: 'user.passwordReset.link', after: { by: 'operator command' } });
    await audit.record({ ...base, action: 'user.system.test' });
    const rows = (await admin.call(routes.activity.list, { query: { rowsPerPage: 2 } })).data.data;
    expect(rows.map((r) => [r.action, r.actorKind, r.actor])).toEqual([
      ['user.system.test', 'system', null],
      ['user.passwordReset.link', 'operator', null],
    ]);
  });

  it("shows reseller staff their reseller's companies and staff only, and keeps the two areas apart", async () => {
    const a = await staffA.call(routes.activity.resellerList, { query: { rowsPerPage: 100 } });
    expect(a.status).toBe(200);
    const companyIds = new Set(a.data.data.map((r) => r.company?.id));
    expect(companyIds.has(1)).toBe(true);
    expect(companyIds.has(ids.other)).toBe(false);
    // The staff member's own sign-in is there (recorded in the reseller's staff company).
    expect(a.data.data.some((r) => r.action === 'user.signIn' && r.actor?.email === 'support@reseller-a.example')).toBe(
      true,
    );
    const only1 = await staffA.call(routes.activity.resellerList, { query: { companyId: 1, rowsPerPage: 100 } });
    expect(only1.data.data.every((r) => r.company?.id === 1)).toBe(true);
    expect(await staffA.call(routes.activity.resellerList, { query: { companyId: ids.other } })).toMatchObject({
      status: 404,
      message: ACTIVITY_TEXT.companyNotFound,
    });
    const filters = await staffA.call(routes.activity.resellerFilters);
    expect(filters.data.companies.map((c) => c.id)).toContain(1);
    expect(filters.data.companies.map((c) => c.id)).not.toContain(ids.other);

    const b = await staffB.call(routes.activity.resellerList, { query: { rowsPerPage: 100 } });
    expect(b.data.data.some((r) => r.company?.id === ids.other)).toBe(true);
    expect(b.data.data.some((r) => r.company?.id === 1)).toBe(false);

    expect(await admin.call(routes.activity.resellerList)).toMatchObject({
      status: 403,
      message: API_MESSAGES.staffOnly,
    });
    expect(await staffA.call(routes.activity.list)).toMatchObject({
      status: 403,
      message: API_MESSAGES.staffUseResellerArea,
    });
    expect(
      await staffA.call(routes.companyAdmin.set, { params: { id: ids.deputy }, body: { isCompanyAdmin: false } }),
    ).toMatchObject({ status: 403 });
    expect(await t.db.select().from(auditLog).where(eq(auditLog.companyId, ids.other))).not.toHaveLength(0);
  });
});
