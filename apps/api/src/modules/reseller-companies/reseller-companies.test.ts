/**
 * The reseller area's companies (issue 13): staff sign-in, the two areas kept apart, tenant scope by reseller,
 * read-only support, create with the first administrator's invitation, suspend (sessions, sign-in, VMs) and resume.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { COMPANIES_TEXT } from '@portal/contract/reseller-companies';
import { auditLog, companies, resellerDomains, users, virtualMachines, vmSizePeriods } from '../../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { linkFrom } from '../../../test/smtp-catcher.ts';
import { ensureStaffCompany } from './staff.ts';
import { monthStartOf } from './companies.repository.ts';

const r = routes.resellerCompanies;
let t: TestApp;
let owner: TestClient;
let support: TestClient;
let otherOwner: TestClient;
let customer: TestClient;
let otherCompanyId: number;

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  const staffOf = async (resellerId: number) => (await ensureStaffCompany(t.db, resellerId))!;
  await createUser(t, await staffOf(1), 'owner@northwind.example', { staffRole: 'owner' });
  await createUser(t, await staffOf(1), 'support@northwind.example', { staffRole: 'support' });
  const other = await createOtherCompany(t);
  otherCompanyId = other.companyId;
  const [otherCompany] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  await createUser(t, await staffOf(otherCompany!.resellerId), 'owner@other.example', { staffRole: 'owner' });
  [owner, support, otherOwner, customer] = await Promise.all([
    signIn(t, 'owner@northwind.example', PASSWORD),
    signIn(t, 'support@northwind.example', PASSWORD),
    signIn(t, 'owner@other.example', PASSWORD),
    signIn(t),
  ]);
});
afterAll(async () => {
  await t.close();
});

describe('the two areas', () => {
  it('signs staff in as staff and keeps them out of the customer portal, and customers out of the reseller area', async () => {
    const check = await owner.call(routes.auth.check);
    expect(check.data).toMatchObject({ authed: true, user: { staffRole: 'owner' } });
    const teams = await owner.call(routes.teams.list, { query: {} });
    expect([teams.status, teams.message]).toEqual([403, API_MESSAGES.staffUseResellerArea]);
    for (const [route, input] of [
      [r.list, {}],
      [r.detail, { params: { id: 1 } }],
      [r.create, { body: { name: 'X', adminEmail: 'x@x.example', adminFirstName: 'X', adminLastName: 'Y' } }],
      [r.suspend, { params: { id: 1 } }],
      [r.resume, { params: { id: 1 } }],
    ] as const) {
      const res = await customer.call(route, input);
      expect([route.path, res.status, res.message]).toEqual([route.path, 403, API_MESSAGES.staffOnly]);
    }
    expect((await t.client().call(r.list)).status).toBe(401);
  });
});

describe('companies', () => {
  it("lists the reseller's customer companies only, with counts, this month's VM-hours, search and paging", async () => {
    // A VM that existed since before this month: its hours count from the first of the month only.
    const [vm] = await t.db
      .insert(virtualMachines)
      .values({
        companyId: 1,
        teamId: null,
        name: 'hours-vm',
        status: 'Stopped',
        configurationId: 1,
        regionId: 1,
        image: 'Debian 12',
        providerId: 1,
        deletedAt: new Date(),
      })
      .returning();
    await t.db.insert(vmSizePeriods).values({
      vmId: vm!.id,
      companyId: 1,
      configurationId: 1,
      startedAt: new Date(Date.now() - 40 * 86_400_000),
    });
    const list = await owner.call(r.list, { query: {} });
    expect(list.status).toBe(200);
    expect(list.data.data.map((c) => c.name)).toEqual(['Demo Company']);
    const demo = list.data.data[0]!;
    expect(demo).toMatchObject({ id: 1, status: 'active', userCount: 1, vmCount: 0 });
    const expected = (Date.now() - monthStartOf(new Date()).getTime()) / 3_600_000;
    expect(Math.abs(demo.vmHoursThisMonth - expected)).toBeLessThan(0.1);

    expect((await owner.call(r.list, { query: { search: 'nothing-like-it' } })).data).toEqual({
      data: [],
      totalPages: 0,
    });
    const other = await otherOwner.call(r.list, { query: {} });
    expect(other.data.data.map((c) => c.id)).toEqual([otherCompanyId]);
    expect((await support.call(r.list, { query: { rowsPerPage: 1 } })).data.totalPages).toBe(1);
  });

  it('pages: page 2 holds the next rows by name and totalPages counts only this reseller’s customer companies', async () => {
    const seeded = await t.db
      .insert(companies)
      .values(['Paging 4', 'Paging 2', 'Paging 1', 'Paging 3'].map((name) => ({ resellerId: 1, name })))
      .returning({ id: companies.id });
    try {
      // Demo Company + 4: three pages of two (the staff company and the other reseller's are not counted).
      const page = async (n: number) => (await support.call(r.list, { query: { page: n, rowsPerPage: 2 } })).data;
      const second = await page(2);
      expect([second.data.map((c) => c.name), second.totalPages]).toEqual([['Paging 2', 'Paging 3'], 3]);
      const third = await page(3);
      expect([third.data.map((c) => c.name), third.totalPages]).toEqual([['Paging 4'], 3]);
      expect((await page(4)).data).toEqual([]);
    } finally {
      await t.db.delete(companies).where(
        inArray(
          companies.id,
          seeded.map((c) => c.id),
        ),
      );
    }
  });

  it("answers 404 for another reseller's company and 403 to support staff on every change", async () => {
    for (const res of [
      await otherOwner.call(r.detail, { params: { id: 1 } }),
      await otherOwner.call(r.suspend, { params: { id: 1 }, body: {} }),
      await otherOwner.call(r.resume, { params: { id: 1 } }),
      await owner.call(r.detail, { params: { id: otherCompanyId } }),
    ])
      expect([res.status, res.message]).toEqual([404, COMPANIES_TEXT.notFound]);
    const body = { name: 'Nope', adminEmail: 'nope@example.com', adminFirstName: 'No', adminLastName: 'Pe' };
    for (const res of [
      await support.call(r.create, { body }),
      await support.call(r.suspend, { params: { id: 1 }, body: {} }),
      await support.call(r.resume, { params: { id: 1 } }),
    ])
      expect([res.status, res.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
    const [demo] = await t.db.select().from(companies).where(eq(companies.id, 1));
    expect(demo!.suspendedAt).toBeNull();
    // Support may look.
    const detail = await support.call(r.detail, { params: { id: 1 } });
    expect(detail.status).toBe(200);
    expect(detail.data.users.map((u) => u.email)).toEqual([ADMIN.email]);
    expect((await owner.call(r.create, { body: { ...body, adminEmail: 'not-an-email' } })).status).toBe(400);
  });

  it('creates a company with its first administrator, who accepts the mailed invitation; a taken email is a 409', async () => {
    const res = await owner.call(r.create, {
      body: { name: 'Acme Ltd', adminEmail: 'Boss@Acme.example', adminFirstName: 'Bea', adminLastName: 'Boss' },
    });
    expect(res.status).toBe(200);
    expect(res.message).toBe(COMPANIES_TEXT.created('boss@acme.example'));
    const taken = await owner.call(r.create, {
      body: { name: 'Acme Two', adminEmail: ADMIN.email, adminFirstName: 'A', adminLastName: 'B' },
    });
    expect([taken.status, taken.message]).toEqual([409, COMPANIES_TEXT.emailTaken]);
    expect((await owner.call(r.list, { query: { search: 'acme' } })).data.data.map((c) => c.name)).toEqual([
      'Acme Ltd',
    ]);

    const mail = await t.smtp.waitFor('boss@acme.example', (m) => /invited/i.test(m.subject));
    expect(mail.text).toContain('invited you to Acme Ltd');
    const link = linkFrom(mail);
    expect(link.pathname).toBe('/confirmNewUser');
    expect(Number(link.searchParams.get('id'))).toBe(res.data.adminUserId);
    const ok = await t.client().call(routes.password.confirmEmail, {
      params: { token: res.data.adminUserId },
      body: {
        resetKey: link.searchParams.get('token')!,
        password: 'Acme-Boss-Pass-1!',
        firstName: 'Bea',
        lastName: 'Boss',
      },
    });
    expect(ok.status).toBe(200);
    const boss = await signIn(t, 'boss@acme.example', 'Acme-Boss-Pass-1!');
    const me = await boss.call(routes.auth.check);
    expect(me.data).toMatchObject({
      authed: true,
      user: { companyName: 'Acme Ltd', isCompanyAdmin: true, staffRole: null },
    });
    const detail = await owner.call(r.detail, { params: { id: res.data.id } });
    expect(detail.data.users).toEqual([expect.objectContaining({ email: 'boss@acme.example', confirmed: true })]);
    // The invitation is recorded as the owner's, not the operator's.
    const [ownerRow] = await t.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.email, 'owner@northwind.example'));
    const invites = await t.db
      .select({ actorUserId: auditLog.actorUserId, after: auditLog.after })
      .from(auditLog)
      .where(eq(auditLog.targetId, String(res.data.adminUserId)));
    expect(invites.filter((a) => (a.after as { email?: string } | null)?.email === 'boss@acme.example')).toEqual([
      { actorUserId: ownerRow!.id, after: { email: 'boss@acme.example' } },
    ]);
  });

  it("suspends: its users' sessions end, sign-in is refused with the message, running VMs stop; resume lets them in", async () => {
    const countries = (await customer.call(routes.vms.listCountries)).data;
    const us = countries.find((c) => c.name === 'United States')!;
    const east = (await customer.call(routes.vms.listRegions, { params: { id: us.id } })).data.find(
      (x) => x.name === 'US East',
    )!;
    const micro = (await customer.call(routes.vms.listConfigurations)).data.find((c) => c.key === 'micro')!;
    const provider = (
      await customer.call(routes.vms.listProviders, {
        params: { regionId: east.id },
        query: { configurationId: micro.id },
      })
    ).data[0]!;
    const created = await customer.call(routes.vms.create, {
      body: {
        regionId: east.id,
        image: 'Debian 12',
        configurationId: micro.id,
        providerId: provider.id,
        name: 'to-stop',
        numberOfInstances: 1,
      },
    });
    const vmId = created.data.ids[0]!;
    const statusOf = async () =>
      (await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vmId)))[0]!.status;
    const waitFor = async (status: string) => {
      const deadline = Date.now() + 10_000;
      while ((await statusOf()) !== status) {
        if (Date.now() > deadline) throw new Error(`VM is ${await statusOf()}, not ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await waitFor('Running');

    const suspended = await owner.call(r.suspend, { params: { id: 1 }, body: { reason: 'Unpaid invoice' } });
    expect(suspended.status).toBe(200);
    expect(suspended.data).toEqual({ stoppedVms: 1 });
    expect((await owner.call(r.suspend, { params: { id: 1 }, body: {} })).status).toBe(409);
    expect((await customer.call(routes.auth.check)).status).toBe(401);
    const login = await t.client().call(routes.auth.login, { body: { email: ADMIN.email, password: ADMIN.password } });
    expect([login.status, login.message]).toEqual([403, "Your company's account is suspended. Contact your provider."]);
    await waitFor('Stopped');
    const row = (await owner.call(r.detail, { params: { id: 1 } })).data.company;
    expect(row).toMatchObject({ status: 'suspended', suspendedReason: 'Unpaid invoice' });

    expect((await owner.call(r.resume, { params: { id: 1 } })).status).toBe(200);
    expect((await owner.call(r.resume, { params: { id: 1 } })).status).toBe(409);
    const back = await signIn(t);
    expect((await back.call(routes.vms.details, { params: { id: vmId } })).data.status).toBe('Stopped');
  });
});

describe('staff', () => {
  const s = routes.resellerStaff;
  it('lists staff to any staff member; owners invite, change roles and remove, never themselves nor another reseller’s', async () => {
    expect((await support.call(s.list)).data.map((m) => [m.email, m.role])).toEqual([
      ['owner@northwind.example', 'owner'],
      ['support@northwind.example', 'support'],
    ]);
    const denied = await support.call(s.invite, { body: { email: 'x@northwind.example', role: 'support' } });
    expect([denied.status, denied.message]).toEqual([403, API_MESSAGES.staffReadOnly]);

    // The invitation's link uses the reseller's primary custom domain, not the configured public URL.
    await t.db
      .insert(resellerDomains)
      .values({ host: 'portal.northwind.example.test', resellerId: 1, isPrimary: true, verifiedAt: new Date() });
    const invited = await owner.call(s.invite, { body: { email: 'New.Staff@northwind.example', role: 'support' } });
    await t.db.delete(resellerDomains).where(eq(resellerDomains.host, 'portal.northwind.example.test'));
    expect(invited.status).toBe(200);
    const mail = await t.smtp.waitFor('new.staff@northwind.example', (m) => /invited/i.test(m.subject));
    const link = linkFrom(mail);
    expect([link.protocol, link.host, link.pathname]).toEqual([
      'https:',
      'portal.northwind.example.test',
      '/confirmNewUser',
    ]);
    // Recorded as the owner who invited, not as the operator.
    const me0 = (await owner.call(s.list)).data.find((m) => m.email === 'owner@northwind.example')!;
    const audited = await t.db
      .select({ actorUserId: auditLog.actorUserId, after: auditLog.after })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'staff.invite'), eq(auditLog.targetId, String(invited.data.id))));
    expect(audited).toEqual([
      {
        actorUserId: me0.id,
        after: { email: 'new.staff@northwind.example', role: 'support', resellerId: 1 },
      },
    ]);
    expect((await owner.call(s.invite, { body: { email: ADMIN.email, role: 'owner' } })).status).toBe(409);

    const id = invited.data.id;
    expect((await otherOwner.call(s.changeRole, { params: { id }, body: { role: 'owner' } })).status).toBe(404);
    expect((await owner.call(s.changeRole, { params: { id }, body: { role: 'owner' } })).status).toBe(200);
    const me = (await owner.call(s.list)).data.find((m) => m.email === 'owner@northwind.example')!;
    expect((await owner.call(s.remove, { params: { id: me.id } })).status).toBe(409);
    expect((await otherOwner.call(s.remove, { params: { id } })).status).toBe(404);
    expect((await owner.call(s.remove, { params: { id } })).status).toBe(200);
    expect((await owner.call(s.list)).data.map((m) => m.email)).toEqual([
      'owner@northwind.example',
      'support@northwind.example',
    ]);
  });
});
