/**
 * The VM list customers pick (issue 25 item 2), through the real server on PGlite and PostgreSQL: the added
 * columns, filters by status, region and team, natural name order, and bulk start/stop/delete with each VM's
 * outcome (refusals say why; another company's ids are refused as not found and never acted on).
 */
import { and, eq, inArray, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { OPERATOR_ROLE_ID, VIEWER_ROLE_ID } from '@portal/contract/permissions';
import { VM_BULK_LIMIT, VM_BULK_TEXT } from '@portal/contract/virtual-machines';
import type { VmStatus } from '@portal/contract/vm-lifecycle';
import { configurations, operations, providers, regions, users, virtualMachines } from '../../db/schema.ts';
import { createTestApp, errorData, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createTeam, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN } from '../../../test/database-templates.ts';

let t: TestApp;
let admin: TestClient;
let companyId: number;
let catalog: { east: number; west: number; micro: number; small: number; provider: number };

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
  const [me] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  companyId = me!.companyId!;
  const regionRows = await t.db.select().from(regions);
  const configRows = await t.db.select().from(configurations);
  const [provider] = await t.db.select().from(providers).limit(1);
  catalog = {
    east: regionRows.find((r) => r.name === 'US East')!.id,
    west: regionRows.find((r) => r.name !== 'US East')!.id,
    micro: configRows.find((c) => c.key === 'micro')!.id,
    small: configRows.find((c) => c.key === 'small')!.id,
    provider: provider!.id,
  };
});
afterAll(async () => {
  await t.close();
});

async function insert(
  names: string[],
  o: { status?: VmStatus; teamId?: number | null; regionId?: number; company?: number; small?: boolean } = {},
) {
  const rows = await t.db
    .insert(virtualMachines)
    .values(
      names.map((name) => ({
        companyId: o.company ?? companyId,
        teamId: o.teamId ?? null,
        name,
        status: o.status ?? 'Running',
        configurationId: o.small ? catalog.small : catalog.micro,
        regionId: o.regionId ?? catalog.east,
        image: 'Debian 12',
        providerId: catalog.provider,
        providerRef: `ref-${name}-${Math.random()}`,
        publicIp: '203.0.113.7',
        privateIp: '10.0.0.7',
      })),
    )
    .returning();
  return rows;
}

const list = (client: TestClient, query: Record<string, string | number | boolean | undefined>) =>
  client.call(routes.vms.list, { query: { rowsPerPage: 100, ...query } });

describe('the list', () => {
  it('sorts names naturally, both ways, and by size then name', async () => {
    await insert(['nat-10', 'nat-2', 'nat-1', 'Nat-3', 'nat-1b', 'nat-100', 'nat-9'], { status: 'Stopped' });
    const res = await list(admin, { search: 'nat-', sortColumn: 'name' });
    expect(res.status).toBe(200);
    expect(res.data.data.map((v) => v.name)).toEqual([
      'nat-1',
      'nat-1b',
      'nat-2',
      'Nat-3',
      'nat-9',
      'nat-10',
      'nat-100',
    ]);
    const desc = await list(admin, { search: 'nat-', sortColumn: 'name', sortDescending: 'true' });
    expect(desc.data.data.map((v) => v.name)).toEqual([
      'nat-100',
      'nat-10',
      'nat-9',
      'Nat-3',
      'nat-2',
      'nat-1b',
      'nat-1',
    ]);
    // Paged on the server: page 2 of 3 per page continues the natural order.
    const page2 = await admin.call(routes.vms.list, {
      query: { search: 'nat-', sortColumn: 'name', rowsPerPage: 3, page: 2 },
    });
    expect(page2.data.data.map((v) => v.name)).toEqual(['Nat-3', 'nat-9', 'nat-10']);
    expect(page2.data.totalPages).toBe(3);
    await insert(['nat-5'], { small: true });
    const bySize = await list(admin, { search: 'nat-', sortColumn: 'configuration' });
    expect(bySize.data.data.map((v) => v.name).slice(0, 3)).toEqual(['nat-1', 'nat-1b', 'nat-2']);
    expect(bySize.data.data.at(-1)!.name).toBe('nat-5');
  });

  it("answers the added columns and the caller's permissions per row", async () => {
    const team = await createTeam(t, companyId, 'Columns team');
    await insert(['cols-1'], { teamId: team.id, regionId: catalog.west });
    const row = (await list(admin, { search: 'cols-1' })).data.data[0]!;
    expect(row).toMatchObject({
      name: 'cols-1',
      team: 'Columns team',
      teamId: team.id,
      regionId: catalog.west,
      image: 'Debian 12',
      publicIp: '203.0.113.7',
      privateIp: '10.0.0.7',
    });
    expect(typeof row.region).toBe('string');
    expect(row.permissions).toEqual(expect.arrayContaining(['vm.view', 'vm.operate', 'vm.delete']));
    // A viewer of the team sees the row with view only.
    const viewer = await createUser(t, companyId, 'cols-viewer@example.com');
    await t.db.insert((await import('../../db/schema.ts')).teamMembers).values({
      teamId: team.id,
      userId: viewer.id,
      roleId: VIEWER_ROLE_ID,
    });
    const asViewer = await signIn(t, viewer.email, PASSWORD);
    const seen = (await list(asViewer, { search: 'cols-1' })).data.data[0]!;
    expect(seen.permissions).toEqual(['vm.view']);
  });

  it('filters by status, region and team, alone and together, with the facets to choose from', async () => {
    const team = await createTeam(t, companyId, 'Filter team');
    await insert(['flt-a', 'flt-b'], { status: 'Stopped', teamId: team.id, regionId: catalog.west });
    await insert(['flt-c'], { status: 'Running', teamId: team.id, regionId: catalog.east });
    await insert(['flt-d'], { status: 'Stopped', regionId: catalog.east });
    const names = async (q: Record<string, string | number>) =>
      (await list(admin, { search: 'flt-', sortColumn: 'name', ...q })).data.data.map((v) => v.name);
    expect(await names({ status: 'Stopped' })).toEqual(['flt-a', 'flt-b', 'flt-d']);
    expect(await names({ regionId: catalog.west })).toEqual(['flt-a', 'flt-b']);
    expect(await names({ teamId: team.id })).toEqual(['flt-a', 'flt-b', 'flt-c']);
    expect(await names({ status: 'Stopped', regionId: catalog.east })).toEqual(['flt-d']);
    expect(await names({ status: 'Running', teamId: team.id, regionId: catalog.east })).toEqual(['flt-c']);
    const facets = await admin.call(routes.vms.listFacets);
    expect(facets.status).toBe(200);
    expect(facets.data.teams.map((x) => x.name)).toContain('Filter team');
    expect(facets.data.regions.map((r) => r.id)).toEqual(expect.arrayContaining([catalog.east, catalog.west]));
  });

  it('refuses bad filters with a 400 in the envelope', async () => {
    for (const query of [{ status: 'Sleeping' }, { regionId: 'x' }, { regionId: -1 }, { teamId: 0 }]) {
      const res = await list(admin, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.message).toBeTruthy();
    }
  });

  it("never shows another company's VMs or its regions and teams", async () => {
    const other = await createOtherCompany(t, 'list-boss@other.example');
    const otherTeam = await createTeam(t, other.companyId, 'Secret other team');
    await insert(['leak-1'], { company: other.companyId, teamId: otherTeam.id });
    expect((await list(admin, { search: 'leak-' })).data.data).toEqual([]);
    expect((await admin.call(routes.vms.listFacets)).data.teams.map((x) => x.name)).not.toContain('Secret other team');
    // Its team id as a filter is not found, as every other route answers it.
    expect((await list(admin, { teamId: otherTeam.id })).status).toBe(404);
  });
});

describe('bulk actions', () => {
  it('stops 12 chosen VMs where 2 are refused, saying why, and acts on none of another company', async () => {
    const operators = await createTeam(t, companyId, 'Bulk ops');
    const locked = await createTeam(t, companyId, 'Bulk locked');
    const member = await createUser(t, companyId, 'bulk-member@example.com');
    const { teamMembers } = await import('../../db/schema.ts');
    await t.db.insert(teamMembers).values([
      { teamId: operators.id, userId: member.id, roleId: OPERATOR_ROLE_ID },
      { teamId: locked.id, userId: member.id, roleId: VIEWER_ROLE_ID },
    ]);
    const running = await insert(
      Array.from({ length: 10 }, (_, i) => `bulk-${i + 1}`),
      { teamId: operators.id },
    );
    const [stopped] = await insert(['bulk-11'], { teamId: operators.id, status: 'Stopped' });
    const [viewOnly] = await insert(['bulk-12'], { teamId: locked.id });
    const other = await createOtherCompany(t, 'bulk-boss@other.example');
    const [foreign] = await insert(['foreign-1'], { company: other.companyId });
    const client = await signIn(t, member.email, PASSWORD);
    const ids = [...running.map((v) => v.id), stopped!.id, viewOnly!.id, foreign!.id, 2_000_000];
    const res = await client.call(routes.vms.bulk, { body: { action: 'stop', ids } });
    expect(res.status).toBe(200);
    expect(res.data.done).toBe(10);
    expect(res.data.refused).toBe(4);
    const byId = new Map(res.data.outcomes.map((o) => [o.id, o]));
    expect(byId.get(stopped!.id)).toEqual({
      id: stopped!.id,
      name: 'bulk-11',
      outcome: 'refused',
      reason: 'The VM cannot be stopped while it is Stopped',
    });
    expect(byId.get(viewOnly!.id)).toMatchObject({
      name: 'bulk-12',
      outcome: 'refused',
      reason: VM_BULK_TEXT.roleLacks('stop', 'Bulk locked'),
    });
    // Another company's VM and an id that does not exist read alike: no name, not found.
    for (const id of [foreign!.id, 2_000_000])
      expect(byId.get(id)).toEqual({ id, name: null, outcome: 'refused', reason: VM_BULK_TEXT.notFound });
    // The ten were queued (their own route's status and operation); the refused ones are untouched.
    const after = await t.db
      .select({ id: virtualMachines.id, status: virtualMachines.status })
      .from(virtualMachines)
      .where(inArray(virtualMachines.id, ids));
    const status = new Map(after.map((r) => [r.id, r.status]));
    for (const v of running) expect(status.get(v.id)).toBe('Stopping');
    expect(status.get(stopped!.id)).toBe('Stopped');
    expect(status.get(viewOnly!.id)).toBe('Running');
    expect(status.get(foreign!.id)).toBe('Running');
    const foreignOps = await t.db.select().from(operations).where(eq(operations.vmId, foreign!.id));
    expect(foreignOps).toEqual([]);
    // A second stop of the same VMs: each is refused as busy or stopping, none acted on twice.
    const again = await client.call(routes.vms.bulk, { body: { action: 'stop', ids: running.map((v) => v.id) } });
    expect(again.data.done).toBe(0);
    expect(again.data.outcomes[0]!.reason).toMatch(/Stopping|operation/);
  });

  it('acts on all VMs matching the filters, and only on those', async () => {
    const team = await createTeam(t, companyId, 'Matching team');
    const target = await insert(['match-1', 'match-2', 'match-3'], { teamId: team.id, status: 'Stopped' });
    const [elsewhere] = await insert(['match-4'], { teamId: team.id, status: 'Stopped', regionId: catalog.west });
    const [runningOne] = await insert(['match-5'], { teamId: team.id, status: 'Running' });
    const res = await admin.call(routes.vms.bulk, {
      body: {
        action: 'start',
        matching: { search: 'match-', status: 'Stopped', regionId: catalog.east, teamId: team.id },
      },
    });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ action: 'start', done: 3, refused: 0 });
    expect(res.data.outcomes.map((o) => o.name).sort()).toEqual(['match-1', 'match-2', 'match-3']);
    const rows = await t.db
      .select({ id: virtualMachines.id, status: virtualMachines.status })
      .from(virtualMachines)
      .where(and(eq(virtualMachines.teamId, team.id)));
    const status = new Map(rows.map((r) => [r.id, r.status]));
    for (const v of target) expect(status.get(v.id)).toBe('Starting');
    expect(status.get(elsewhere!.id)).toBe('Stopped');
    expect(status.get(runningOne!.id)).toBe('Running');
  });

  it('deletes chosen VMs, reporting each', async () => {
    const [a, b] = await insert(['del-1', 'del-2'], { status: 'Stopped' });
    const res = await admin.call(routes.vms.bulk, { body: { action: 'delete', ids: [a!.id, b!.id, a!.id] } });
    expect(res.status).toBe(200);
    // A repeated id counts once.
    expect(res.data).toMatchObject({ action: 'delete', done: 2, refused: 0 });
    expect(res.data.outcomes).toHaveLength(2);
  });

  it('refuses bad bodies with a 400 in the envelope and acts on nothing', async () => {
    const [vm] = await insert(['bad-body-1'], { status: 'Stopped' });
    const bodies: unknown[] = [
      {},
      { action: 'start' },
      { action: 'reboot', ids: [vm!.id] },
      { action: 'start', ids: [] },
      { action: 'start', ids: ['x'] },
      { action: 'start', ids: [vm!.id], matching: { search: '' } },
      { action: 'start', ids: Array.from({ length: VM_BULK_LIMIT + 1 }, (_, i) => i + 1) },
      { action: 'start', matching: { status: 'Asleep' } },
      { action: 'start', matching: { search: '', extra: 1 } },
      { action: 'start', ids: [vm!.id], extra: true },
    ];
    for (const body of bodies) {
      const res = await admin.call(routes.vms.bulk, { body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.message).toBeTruthy();
      expect(errorData(res)).toBeTruthy();
    }
    const [still] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, vm!.id));
    expect(still!.status).toBe('Stopped');
  });

  it(`refuses "all matching" over ${VM_BULK_LIMIT} VMs with a 400 asking to narrow the filters`, async () => {
    await insert(
      Array.from({ length: VM_BULK_LIMIT + 1 }, (_, i) => `many-${i}`),
      { status: 'Stopped' },
    );
    const res = await admin.call(routes.vms.bulk, { body: { action: 'start', matching: { search: 'many-' } } });
    expect(res.status).toBe(400);
    expect(res.message).toBe(VM_BULK_TEXT.tooMany);
    const started = await t.db
      .select({ id: virtualMachines.id })
      .from(virtualMachines)
      .where(and(eq(virtualMachines.status, 'Starting'), like(virtualMachines.name, 'many-%')));
    expect(started).toEqual([]);
  });
});
