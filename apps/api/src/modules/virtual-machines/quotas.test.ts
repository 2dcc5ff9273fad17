/**
 * Quotas (issue 22 point 5), both engines: the reseller sets a company's limits (owner; support reads; another
 * reseller's company is 404), the company administrator a team's within them; creates (numberOfInstances whole)
 * and upgrades over a limit are refused with a 409 naming it, in the transaction that queues them, so 20 creates at
 * once against 5 free places give exactly 5 machines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, isNull } from 'drizzle-orm';
import { API_MESSAGES } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { NO_LIMITS, QUOTA_TEXT, type QuotaLimits } from '@portal/contract/quotas';
import { auditLog, companies, virtualMachines } from '../../db/schema.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { ensureStaffCompany } from '../../../test/module-parts.ts';

const setCompany = routes.resellerQuotas.setCompany;
let t: TestApp;
let owner: TestClient;
let support: TestClient;
let otherOwner: TestClient;
let admin: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  await createUser(t, (await ensureStaffCompany(t.db, 1))!, 'quota-owner@northwind.example', { staffRole: 'owner' });
  await createUser(t, (await ensureStaffCompany(t.db, 1))!, 'quota-support@northwind.example', {
    staffRole: 'support',
  });
  const other = await createOtherCompany(t, 'quota-boss@other.example');
  const [otherCompany] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  await createUser(t, (await ensureStaffCompany(t.db, otherCompany!.resellerId))!, 'quota-owner@other.example', {
    staffRole: 'owner',
  });
  [owner, support, otherOwner, admin] = await Promise.all([
    signIn(t, 'quota-owner@northwind.example', PASSWORD),
    signIn(t, 'quota-support@northwind.example', PASSWORD),
    signIn(t, 'quota-owner@other.example', PASSWORD),
    signIn(t),
  ]);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t.close();
});

const limits = (l: Partial<QuotaLimits>): QuotaLimits => ({ ...NO_LIMITS, ...l });
const liveVms = async (teamId?: number) =>
  (
    await t.db
      .select({ id: virtualMachines.id })
      .from(virtualMachines)
      .where(
        and(
          eq(virtualMachines.companyId, 1),
          isNull(virtualMachines.deletedAt),
          teamId ? eq(virtualMachines.teamId, teamId) : undefined,
        ),
      )
  ).length;
const companyQuota = async () => (await owner.call(routes.resellerCompanies.detail, { params: { id: 1 } })).data.quota;

describe("a company's limits (reseller)", () => {
  it('are set by an owner, audited and shown with usage; support reads only; another reseller gets 404', async () => {
    const before = await companyQuota();
    expect(before.limits).toEqual(NO_LIMITS);
    const res = await owner.call(setCompany, { params: { id: 1 }, body: limits({ vms: 50, ramGb: 4096 }) });
    expect([res.status, res.message]).toEqual([200, QUOTA_TEXT.saved]);
    expect(res.data).toEqual({ limits: limits({ vms: 50, ramGb: 4096 }), usage: before.usage });
    expect((await companyQuota()).limits).toEqual(limits({ vms: 50, ramGb: 4096 }));
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'company.quota'));
    expect(entry).toMatchObject({ companyId: 1, targetId: '1', after: { vms: 50, ramGb: 4096, vcpus: null } });

    const denied = await support.call(setCompany, { params: { id: 1 }, body: limits({ vms: 1 }) });
    expect([denied.status, denied.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
    expect((await otherOwner.call(setCompany, { params: { id: 1 }, body: limits({ vms: 1 }) })).status).toBe(404);
    expect((await admin.call(setCompany, { params: { id: 1 }, body: limits({ vms: 1 }) })).status).toBe(403);
    expect((await companyQuota()).limits.vms).toBe(50);
  });

  it('refuses limits that are not whole numbers from 0 to the bound with a 400 naming the problem', async () => {
    for (const [body, text] of [
      [{ ...NO_LIMITS, vms: -1 }, 'A limit cannot be negative'],
      [{ ...NO_LIMITS, vms: 1.5 }, 'A limit must be a whole number'],
      [{ ...NO_LIMITS, vms: '5' }, 'A limit must be a whole number, or null for no limit'],
      [{ ...NO_LIMITS, diskGb: 2_000_000_000 }, 'A limit must not exceed 1,000,000,000'],
      [{ vms: 5 }, 'A limit must be a whole number, or null for no limit'],
      [{ ...NO_LIMITS, cpus: 5 }, ''],
    ] as const) {
      const res = await owner.call(setCompany, { params: { id: 1 }, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.message).toContain(text);
    }
  });
});

describe('creates and upgrades against the limits', () => {
  it('20 creates at once against 5 free places: exactly 5 machines, 15 refused with the limit named', async () => {
    const used = await liveVms();
    await owner.call(setCompany, { params: { id: 1 }, body: limits({ vms: used + 5 }) });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => admin.call(routes.vms.create, { body: catalog.createBody(`race-${i}`) })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    expect([ok.length, refused.length]).toEqual([5, 15]);
    for (const r of refused)
      expect(r.message).toBe(`This company may run at most ${used + 5} virtual machines: ${used + 5} are in use.`);
    expect(await liveVms()).toBe(used + 5);
    expect((await companyQuota()).usage.vms).toBe(used + 5);
  });

  it('counts numberOfInstances whole: 3 with 2 left is refused and makes nothing, 2 fit', async () => {
    const used = await liveVms();
    await owner.call(setCompany, { params: { id: 1 }, body: limits({ vms: used + 2 }) });
    const three = await admin.call(routes.vms.create, {
      body: { ...catalog.createBody('three'), numberOfInstances: 3 },
    });
    expect([three.status, three.message]).toEqual([
      409,
      `This company may run at most ${used + 2} virtual machines: ${used} are in use and this would add 3 virtual machines.`,
    ]);
    expect(await liveVms()).toBe(used);
    const two = await admin.call(routes.vms.create, { body: { ...catalog.createBody('two'), numberOfInstances: 2 } });
    expect(two.status).toBe(200);
    expect(await liveVms()).toBe(used + 2);
  });

  it('refuses an upgrade that would pass the vCPU limit, counts a queued upgrade at its new size', async () => {
    const [vm] = await t.db
      .select()
      .from(virtualMachines)
      .where(and(eq(virtualMachines.companyId, 1), isNull(virtualMachines.deletedAt)))
      .limit(1);
    await waitForStatus(vm!.id, 'Running');
    const usage = (await companyQuota()).usage;
    const growth = catalog.small.cpu - catalog.micro.cpu;
    await owner.call(setCompany, { params: { id: 1 }, body: limits({ vcpus: usage.vcpus + growth - 1 }) });
    const refused = await admin.call(routes.vms.changeConfiguration, {
      body: { id: vm!.id, configurationId: catalog.small.id },
    });
    expect([refused.status, refused.message]).toEqual([
      409,
      `This company may run at most ${usage.vcpus + growth - 1} vCPUs: ${usage.vcpus} are in use and this would add ${growth} ${growth === 1 ? 'vCPU' : 'vCPUs'}.`,
    ]);
    await owner.call(setCompany, { params: { id: 1 }, body: limits({ vcpus: usage.vcpus + growth }) });
    const upgraded = await admin.call(routes.vms.changeConfiguration, {
      body: { id: vm!.id, configurationId: catalog.small.id },
    });
    expect(upgraded.status).toBe(200);
    // Queued or done, the VM takes the larger size: nothing else fits now.
    expect((await companyQuota()).usage.vcpus).toBe(usage.vcpus + growth);
    const more = await admin.call(routes.vms.create, { body: catalog.createBody('one-more') });
    expect(more.status).toBe(409);
    expect(more.message).toContain('vCPUs');
    await owner.call(setCompany, { params: { id: 1 }, body: NO_LIMITS });
  });
});

describe("a team's limits (company administrator)", () => {
  it('are set within the company limits, shown with usage, and refuse creates in the team past them', async () => {
    const team = await createTeam(t, 1, 'Quota team');
    const otherTeam = await createTeam(t, (await createOtherCompany(t, 'quota-boss2@other.example')).companyId, 'X');
    const member = await createUser(t, 1, 'quota-member@example.com');
    const memberClient = await signIn(t, member.email, PASSWORD);
    await owner.call(setCompany, { params: { id: 1 }, body: limits({ vms: 100, vcpus: 100 }) });

    const above = await admin.call(routes.quotas.setTeam, { body: { teamId: team.id, limits: limits({ vms: 101 }) } });
    expect([above.status, above.message]).toEqual([400, QUOTA_TEXT.aboveCompany('vms', 100)]);
    expect(
      (await memberClient.call(routes.quotas.setTeam, { body: { teamId: team.id, limits: limits({ vms: 1 }) } }))
        .status,
    ).toBe(403);
    expect((await memberClient.call(routes.quotas.view)).status).toBe(403);
    expect(
      (await admin.call(routes.quotas.setTeam, { body: { teamId: otherTeam.id, limits: limits({ vms: 1 }) } })).status,
    ).toBe(404);

    const set = await admin.call(routes.quotas.setTeam, {
      body: { teamId: team.id, limits: limits({ vms: 1, diskGb: 500 }) },
    });
    expect([set.status, set.message]).toEqual([200, QUOTA_TEXT.saved]);
    expect(set.data).toEqual({
      limits: limits({ vms: 1, diskGb: 500 }),
      usage: { vms: 0, vcpus: 0, ramGb: 0, diskGb: 0 },
    });

    expect(
      (await admin.call(routes.vms.create, { body: { ...catalog.createBody('in-team'), teamId: team.id } })).status,
    ).toBe(200);
    const second = await admin.call(routes.vms.create, {
      body: { ...catalog.createBody('in-team-2'), teamId: team.id },
    });
    expect([second.status, second.message]).toEqual([409, 'This team may run at most 1 virtual machine: 1 is in use.']);
    expect(await liveVms(team.id)).toBe(1);
    // Outside the team only the company's limit applies.
    expect((await admin.call(routes.vms.create, { body: catalog.createBody('no-team') })).status).toBe(200);

    const view = await admin.call(routes.quotas.view);
    expect(view.status).toBe(200);
    expect(view.data.company.limits).toEqual(limits({ vms: 100, vcpus: 100 }));
    expect(view.data.company.usage.vms).toBe(await liveVms());
    expect(view.data.teams.find((x) => x.id === team.id)).toEqual({
      id: team.id,
      name: 'Quota team',
      limits: limits({ vms: 1, diskGb: 500 }),
      usage: { vms: 1, vcpus: catalog.micro.cpu, ramGb: catalog.micro.ram, diskGb: catalog.micro.disk },
    });
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'team.quota'));
    expect(entry).toMatchObject({ companyId: 1, targetType: 'team', targetId: String(team.id), after: { vms: 1 } });
  });
});

async function waitForStatus(id: number, status: string) {
  for (let i = 0; i < 200; i++) {
    const [vm] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id));
    if (vm?.status === status) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} never reached ${status}`);
}
