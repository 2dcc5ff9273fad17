/**
 * The reseller area's invariants under concurrency (issue 21): a reseller keeps at least one owner when two owners
 * demote or remove each other at once, and two suspends (or resumes) of one company are one. A second connection
 * holds the row the API serialises on while both calls are sent, so both are surely in flight together; then the
 * same calls race freely for several rounds. PostgreSQL only (PGlite has one connection: nothing overlaps there).
 */
import { and, eq, inArray, notInArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { COMPANIES_TEXT, STAFF_TEXT } from '@portal/contract/reseller-companies';
import { auditLog, companies, users } from '../../db/schema.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { createTestApp, signIn, type CallResult, type TestApp, type TestClient } from '../../../test/harness.ts';
import { ensureStaffCompany } from './staff.ts';

const s = routes.resellerStaff;
const r = routes.resellerCompanies;
let t: TestApp;
let resellerId: number;
let staffCompanyId: number;
let customerCompanyId: number;

beforeAll(async () => {
  t = await createTestApp();
  const other = await createOtherCompany(t, 'admin@race-customer.example');
  customerCompanyId = other.companyId;
  const [company] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  resellerId = company!.resellerId;
  staffCompanyId = (await ensureStaffCompany(t.db, resellerId))!;
});
afterAll(async () => {
  await t.close();
});

/** Runs `calls` while a second connection holds `lockSql`'s row, then commits: the calls are in flight together. */
async function whileHeld<T>(lockSql: string, id: number, calls: () => Promise<T>): Promise<T> {
  const holder = await t.database.pool!.connect();
  try {
    await holder.query('begin');
    await holder.query(lockSql, [id]);
    const running = calls();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.query('commit');
    return await running;
  } finally {
    holder.release();
  }
}
const holdReseller = <T>(calls: () => Promise<T>) =>
  whileHeld('select id from resellers where id = $1 for update', resellerId, calls);

let n = 0;
/** Two fresh owners of the reseller (its only owners), signed in. */
async function twoOwners() {
  n++;
  const [a, b] = await Promise.all([
    createUser(t, staffCompanyId, `owner-a${n}@race.example`, { staffRole: 'owner' }),
    createUser(t, staffCompanyId, `owner-b${n}@race.example`, { staffRole: 'owner' }),
  ]);
  // Earlier rounds' survivors step down: each round starts with exactly these two owners.
  await t.db
    .update(users)
    .set({ staffRole: 'support' })
    .where(
      and(eq(users.companyId, staffCompanyId), eq(users.staffRole, 'owner'), notInArray(users.id, [a!.id, b!.id])),
    );
  const [ca, cb] = await Promise.all([signIn(t, a!.email, PASSWORD), signIn(t, b!.email, PASSWORD)]);
  return { a: { id: a!.id, client: ca }, b: { id: b!.id, client: cb } };
}
const owners = async () =>
  (
    await t.db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, staffCompanyId), eq(users.staffRole, 'owner')))
  ).map((row) => row.id);

/** One call went through; the other was refused as the loser of the race (or, after it, as no longer an owner). */
function oneWins(results: CallResult[], loser: readonly (readonly [number, string])[]) {
  const statuses = results.map((res) => res.status).sort();
  expect(statuses[0]).toBe(200);
  const lost = results.find((res) => res.status !== 200)!;
  expect(loser).toContainEqual([lost.status, lost.message]);
}
const raced = [409, STAFF_TEXT.lastOwner] as const;
/** A call that starts after the other committed: its session no longer says owner, or no longer exists. */
const after = [
  [403, API_MESSAGES.staffReadOnly],
  [401, API_MESSAGES.notAuthenticated],
] as const;

const demoteEachOther = (o: Awaited<ReturnType<typeof twoOwners>>) =>
  Promise.all([
    o.a.client.call(s.changeRole, { params: { id: o.b.id }, body: { role: 'support' } }),
    o.b.client.call(s.changeRole, { params: { id: o.a.id }, body: { role: 'support' } }),
  ]);
const removeEachOther = (o: Awaited<ReturnType<typeof twoOwners>>) =>
  Promise.all([
    o.a.client.call(s.remove, { params: { id: o.b.id } }),
    o.b.client.call(s.remove, { params: { id: o.a.id } }),
  ]);

describe('a reseller keeps at least one owner', () => {
  it('two owners demoting each other at once: one is demoted, the other call is a 409, one owner remains', async () => {
    const o = await twoOwners();
    const results = await holdReseller(() => demoteEachOther(o));
    oneWins(results, [raced]);
    expect((await owners()).length).toBe(1);
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'staff.role'), inArray(auditLog.targetId, [String(o.a.id), String(o.b.id)])));
    expect(audited.length).toBe(1);
  });

  it('two owners removing each other at once: one is removed, the other call is a 409, one owner remains', async () => {
    const o = await twoOwners();
    oneWins(await holdReseller(() => removeEachOther(o)), [raced]);
    expect((await owners()).length).toBe(1);
  });

  it('racing freely, round after round: never no owner', async () => {
    for (let round = 0; round < 5; round++) {
      const o = await twoOwners();
      oneWins(await (round % 2 ? removeEachOther(o) : demoteEachOther(o)), [raced, ...after]);
      expect(await owners()).toHaveLength(1);
    }
  });
});

describe('suspending twice at once is one suspension', () => {
  let owner: TestClient;
  beforeAll(async () => {
    const u = await createUser(t, staffCompanyId, 'suspender@race.example', { staffRole: 'owner' });
    owner = await signIn(t, u.email, PASSWORD);
  });
  const holdCompany = <T>(calls: () => Promise<T>) =>
    whileHeld('select id from companies where id = $1 for update', customerCompanyId, calls);
  const audits = async (action: string) =>
    (
      await t.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, action), eq(auditLog.targetId, String(customerCompanyId))))
    ).length;

  it('two suspends in flight together: one 200, one 409 "already suspended", one audit entry; resumes likewise', async () => {
    const suspend = () => owner.call(r.suspend, { params: { id: customerCompanyId }, body: { reason: 'race' } });
    const results = await holdCompany(() => Promise.all([suspend(), suspend()]));
    expect(results.map((res) => [res.status, res.message]).sort()).toEqual([
      [200, COMPANIES_TEXT.suspended],
      [409, COMPANIES_TEXT.alreadySuspended],
    ]);
    expect(await audits('company.suspend')).toBe(1);

    const resume = () => owner.call(r.resume, { params: { id: customerCompanyId } });
    const resumed = await holdCompany(() => Promise.all([resume(), resume()]));
    expect(resumed.map((res) => [res.status, res.message]).sort()).toEqual([
      [200, COMPANIES_TEXT.resumed],
      [409, COMPANIES_TEXT.notSuspended],
    ]);
    expect(await audits('company.resume')).toBe(1);
  });

  it('racing freely, round after round: one suspension and one audit entry each time', async () => {
    for (let round = 0; round < 5; round++) {
      const before = await audits('company.suspend');
      const results = await Promise.all(
        [1, 2, 3].map(() => owner.call(r.suspend, { params: { id: customerCompanyId }, body: {} })),
      );
      expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409]);
      expect(await audits('company.suspend')).toBe(before + 1);
      expect((await owner.call(r.resume, { params: { id: customerCompanyId } })).status).toBe(200);
    }
  });
});
