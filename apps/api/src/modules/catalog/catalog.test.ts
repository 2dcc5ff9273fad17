/**
 * The reseller area's catalog and hosts (issue 13): owners price and offer sizes and edit their hosts, support
 * only reads, another reseller's staff never reach them, customers are refused; the customer's create-VM
 * catalog and placement follow what the reseller offers (docs/decisions/0014-reseller-catalog.md).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { CATALOG_TEXT, regionInUseText } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, hosts, providerOfferings, providers, users } from '../../db/schema.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let customerA: TestClient;
let customerB: TestClient;
let ownerA: TestClient;
let supportA: TestClient;
let ownerB: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;
let resellerA: number;
let resellerB: number;

async function staffCompany(resellerId: number) {
  const [row] = await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning();
  return row!.id;
}
async function resellerOf(companyId: number) {
  const [row] = await t.db.select().from(companies).where(eq(companies.id, companyId));
  return row!.resellerId;
}

beforeAll(async () => {
  // The hosts tests register a reseller host on loopback over plain TCP: the operator allows both here (issue 21).
  t = await createTestApp({ env: { RESELLER_HOST_TCP: 'true', EGRESS_ALLOW: '127.0.0.0/8' } });
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  resellerA = await resellerOf(admin!.companyId);
  const other = await createOtherCompany(t);
  resellerB = await resellerOf(other.companyId);
  const staffA = await staffCompany(resellerA);
  const staffB = await staffCompany(resellerB);
  await createUser(t, staffA, 'owner@a.example', { staffRole: 'owner' });
  await createUser(t, staffA, 'support@a.example', { staffRole: 'support' });
  await createUser(t, staffB, 'owner@b.example', { staffRole: 'owner' });
  [customerA, customerB, ownerA, supportA, ownerB] = await Promise.all([
    signIn(t),
    signIn(t, other.admin.email, PASSWORD),
    signIn(t, 'owner@a.example', PASSWORD),
    signIn(t, 'support@a.example', PASSWORD),
    signIn(t, 'owner@b.example', PASSWORD),
  ]);
  catalog = await seededCatalog(customerA);
});
afterAll(async () => {
  await t.close();
});

const offer = (monthlyPrice: string, hourlyPrice: string, offered = true) => ({ monthlyPrice, hourlyPrice, offered });

it('tenant matrix: customers get 403 on every call, support on every write', async () => {
  const calls = [
    [c.listSizes, {}],
    [c.listRegions, {}],
    [c.listHosts, {}],
    [c.saveSize, { params: { id: catalog.micro.id }, body: offer('1', '0.1') }],
    [c.registerHost, { body: { name: 'x', uri: 'qemu:///system', providerId: 1, regionId: 1 } }],
    [c.updateHost, { params: { id: 1 }, body: { draining: true } }],
    [c.listProviders, {}],
    [c.createProvider, { body: { name: 'x', driver: 'simulator', enabled: true } }],
    [c.updateProvider, { params: { id: 1 }, body: { enabled: false } }],
    [c.setProviderRegions, { params: { id: 1 }, body: { regionIds: [] } }],
    [c.saveImage, { body: { regionId: 1, image: 'Debian 12', offered: false } }],
  ] as const;
  for (const [route, input] of calls) {
    for (const customer of [customerA, customerB]) {
      const res = await customer.call(route, input);
      expect([route.path, res.status, res.message]).toEqual([route.path, 403, API_MESSAGES.staffOnly]);
    }
    const support = await supportA.call(route, input);
    if (route.method === 'GET') expect([route.path, support.status]).toEqual([route.path, 200]);
    else expect([route.path, support.status, support.message]).toEqual([route.path, 403, API_MESSAGES.staffReadOnly]);
  }
  expect((await t.client().call(c.listSizes)).status).toBe(401);
});

describe('sizes and prices', () => {
  it('customers are refused; support reads but may not change', async () => {
    const customer = await customerA.call(c.listSizes);
    expect(customer.status).toBe(403);
    expect(customer.message).toBe(API_MESSAGES.staffOnly);
    const read = await supportA.call(c.listSizes);
    expect(read.status).toBe(200);
    expect(read.data).toMatchObject({ currency: 'USD', pricesSet: false });
    expect(read.data.sizes.every((s) => s.offered && s.monthlyPrice === null)).toBe(true);
    const write = await supportA.call(c.saveSize, { params: { id: catalog.micro.id }, body: offer('10', '0.014') });
    expect(write.status).toBe(403);
    expect(write.message).toBe(API_MESSAGES.staffReadOnly);
  });

  it('refuses bad prices and unknown sizes', async () => {
    const bad = [
      [offer('10.123', '0.01'), CATALOG_TEXT.monthlyPrice],
      [offer('0', '0.01'), CATALOG_TEXT.monthlyPrice],
      [offer('10', '-1'), CATALOG_TEXT.hourlyPrice],
      [offer('10', '0.000001'), CATALOG_TEXT.hourlyPrice],
      [{ monthlyPrice: 10, hourlyPrice: '0.01', offered: true }, CATALOG_TEXT.monthlyPrice],
    ] as const;
    for (const [body, message] of bad) {
      const res = await ownerA.call(c.saveSize, { params: { id: catalog.micro.id }, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res)).toContain(message);
    }
    expect((await ownerA.call(c.saveSize, { params: { id: 999_999 }, body: offer('1', '0.1') })).status).toBe(404);
  });

  it('an owner offers a size at a price; its customers see only that size, other resellers are untouched', async () => {
    expect((await customerA.call(routes.vms.listConfigurations)).data).toHaveLength(6);
    const saved = await ownerA.call(c.saveSize, {
      params: { id: catalog.micro.id },
      body: offer('12.50', '0.01712'),
    });
    expect(saved.status).toBe(200);
    expect(saved.data).toMatchObject({ offered: true, monthlyPrice: '12.50', hourlyPrice: '0.01712' });

    const sizes = (await supportA.call(c.listSizes)).data;
    expect(sizes.pricesSet).toBe(true);
    expect(sizes.sizes.filter((s) => s.offered).map((s) => s.key)).toEqual(['micro']);

    expect((await customerA.call(routes.vms.listConfigurations)).data.map((s) => s.key)).toEqual(['micro']);
    const inRegion = await customerA.call(routes.vms.fetchConfigurations, { params: { regionId: catalog.east.id } });
    expect(inRegion.data.map((s) => s.key)).toEqual(['micro']);
    // The create form's size cards show the reseller's own prices (issue 25 item 3).
    expect(inRegion.data[0]).toMatchObject({ monthlyPrice: '12.50', hourlyPrice: '0.01712', currency: 'USD' });
    const small = await customerA.call(routes.vms.create, {
      body: { ...catalog.createBody('not-offered'), configurationId: catalog.small.id },
    });
    expect(small.status).toBe(400);
    expect(small.message).toBe(CATALOG_TEXT.sizeNotOffered);

    // Reseller B sees neither A's prices nor a change in its own customers' catalog.
    expect((await ownerB.call(c.listSizes)).data.pricesSet).toBe(false);
    expect((await customerB.call(routes.vms.listConfigurations)).data).toHaveLength(6);
    const inRegionB = await customerB.call(routes.vms.fetchConfigurations, { params: { regionId: catalog.east.id } });
    expect(inRegionB.data.map((s) => [s.key, s.monthlyPrice, s.hourlyPrice])).toEqual(
      inRegionB.data.map((s) => [s.key, null, null]),
    );
    expect(inRegionB.data).toHaveLength(6);

    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'catalog.size.save'), eq(auditLog.targetId, String(catalog.micro.id))));
    expect(entry).toMatchObject({ after: { monthlyPrice: '12.50', hourlyPrice: '0.01712', offered: true } });
  });

  it('withdrawing a size keeps its price and takes it out of the create form', async () => {
    await ownerA.call(c.saveSize, { params: { id: catalog.small.id }, body: offer('20', '0.03') });
    const withdrawn = await ownerA.call(c.saveSize, {
      params: { id: catalog.small.id },
      body: offer('20', '0.03', false),
    });
    expect(withdrawn.data).toMatchObject({ offered: false, monthlyPrice: '20.00' });
    expect((await customerA.call(routes.vms.listConfigurations)).data.map((s) => s.key)).toEqual(['micro']);
  });
});

describe('hosts', () => {
  let libvirtA: number;
  let libvirtB: number;
  let hostId: number;

  it("registers a host of the reseller's own provider through the hosts service; others cannot reach it", async () => {
    [libvirtA, libvirtB] = (
      await t.db
        .insert(providers)
        .values([
          { name: 'A libvirt', driver: 'libvirt', resellerId: resellerA },
          { name: 'B libvirt', driver: 'libvirt', resellerId: resellerB },
        ])
        .returning()
    ).map((p) => p.id) as [number, number];
    const body = {
      name: 'a-host-1',
      uri: 'qemu+tcp://127.0.0.1:1/system',
      providerId: libvirtA,
      regionId: catalog.east.id,
      cpus: 16,
      ramGb: 64,
      diskGb: 1000,
    };
    expect((await supportA.call(c.registerHost, { body })).status).toBe(403);
    const res = await ownerA.call(c.registerHost, { body });
    expect(res.status).toBe(200);
    // Nothing listens there: registered with the capacity given, as not answering.
    expect(res.data).toMatchObject({ name: 'a-host-1', cpus: 16, health: 'unreachable', enabled: true });
    hostId = res.data.id;

    // Reseller B: A's host is not in its list, not found by id, its provider not found, its name taken.
    expect((await ownerB.call(c.listHosts)).data.hosts).toEqual([]);
    expect((await ownerB.call(c.updateHost, { params: { id: hostId }, body: { draining: true } })).status).toBe(404);
    expect((await ownerB.call(c.registerHost, { body: { ...body, name: 'b-host' } })).status).toBe(404);
    const taken = await ownerB.call(c.registerHost, { body: { ...body, providerId: libvirtB } });
    expect(taken.status).toBe(409);
    expect(taken.message).toBe(CATALOG_TEXT.hostNameTaken);
    expect((await customerA.call(c.listHosts)).status).toBe(403);
  });

  it('edits capacity and overcommit with validation, audited', async () => {
    for (const [body, message] of [
      [{ cpuOvercommit: 100 }, CATALOG_TEXT.overcommit],
      [{ cpus: 0 }, CATALOG_TEXT.cpus],
      [{ ramGb: -4 }, CATALOG_TEXT.ramGb],
      [{}, CATALOG_TEXT.noChange],
    ] as const) {
      const res = await ownerA.call(c.updateHost, { params: { id: hostId }, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res)).toContain(message);
    }
    expect((await supportA.call(c.updateHost, { params: { id: hostId }, body: { cpus: 32 } })).status).toBe(403);
    const res = await ownerA.call(c.updateHost, { params: { id: hostId }, body: { cpus: 32, cpuOvercommit: 2 } });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ cpus: 32, cpuOvercommit: 2 });
    const [entry] = await t.db.select().from(auditLog).where(eq(auditLog.action, 'host.update'));
    expect(entry).toMatchObject({ before: { cpus: 16, cpuOvercommit: 4 }, after: { cpus: 32, cpuOvercommit: 2 } });
  });

  it("customers create on their reseller's providers only, and a draining host takes no new VM", async () => {
    const [own] = await t.db
      .insert(providers)
      .values({ name: 'A cloud', driver: 'simulator', resellerId: resellerA })
      .returning();
    await t.db
      .insert(providerOfferings)
      .values({ providerId: own!.id, regionId: catalog.east.id, configurationId: catalog.micro.id });
    const seen = { lastSeenAt: new Date(), cpus: 8, ramGb: 32, diskGb: 500 };
    const [h1, h2] = await t.db
      .insert(hosts)
      .values([
        { name: 'a-sim-1', uri: 'test:///default', providerId: own!.id, regionId: catalog.east.id, ...seen },
        { name: 'a-sim-2', uri: 'test:///default', providerId: own!.id, regionId: catalog.east.id, ...seen },
      ])
      .returning();

    // A's customers now see A's provider only; B's customers never see it (B runs its own provider, offering nothing yet).
    const listA = await customerA.call(routes.vms.listProviders, {
      params: { regionId: catalog.east.id },
      query: { configurationId: catalog.micro.id },
    });
    expect(listA.data).toEqual([{ id: own!.id, name: 'A cloud' }]);
    const listB = await customerB.call(routes.vms.listProviders, {
      params: { regionId: catalog.east.id },
      query: { configurationId: catalog.micro.id },
    });
    expect(listB.status).toBe(200);
    expect(listB.data).toEqual([]);
    const platform = await customerA.call(routes.vms.create, { body: catalog.createBody('on-platform') });
    expect(platform.status).toBe(400);

    const drain = await ownerA.call(c.updateHost, { params: { id: h1!.id }, body: { draining: true } });
    expect(drain.data).toMatchObject({ draining: true, health: 'healthy' });
    const body = { ...catalog.createBody('placed'), providerId: own!.id, numberOfInstances: 2 };
    expect((await customerA.call(routes.vms.create, { body })).status).toBe(200);
    const used = Object.fromEntries((await ownerA.call(c.listHosts)).data.hosts.map((h) => [h.name, h.used]));
    expect(used['a-sim-1']).toEqual({ vms: 0, cpu: 0, ram: 0, disk: 0 });
    expect(used['a-sim-2']).toEqual({ vms: 2, cpu: 4, ram: 8, disk: 160 });

    await ownerA.call(c.updateHost, { params: { id: h2!.id }, body: { enabled: false } });
    const none = await customerA.call(routes.vms.create, { body: { ...body, name: 'nowhere', numberOfInstances: 1 } });
    expect(none.status).toBe(400);
    // The customer hears why by count, not the reseller's host names (issue 23 item 3).
    expect(none.message).toBe(
      'No host in US East has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: 1 draining, 1 disabled)',
    );
  });

  it('lists the regions and images its providers serve', async () => {
    const res = await supportA.call(c.listRegions);
    expect(res.data.ownProviders).toBe(true);
    expect(res.data.regions).toEqual([
      expect.objectContaining({
        name: 'US East',
        providers: ['A cloud'],
        hosts: 3,
        images: expect.arrayContaining(['Debian 12']),
      }),
    ]);
  });
});

describe('providers, the regions they serve and the images offered', () => {
  let west: number;
  let westName: string;
  let providerId: number;

  /** The regions a customer of reseller A sees, over every country. */
  async function customerRegions(client: TestClient) {
    const names: string[] = [];
    for (const country of (await client.call(routes.vms.listCountries)).data)
      names.push(
        ...(await client.call(routes.vms.listRegions, { params: { id: country.id } })).data.map((r) => r.name),
      );
    return names;
  }

  it('an owner creates a provider, validated, audited; support may not; names are distinct', async () => {
    const body = { name: 'A west cloud', driver: 'simulator', enabled: true } as const;
    const support = await supportA.call(c.createProvider, { body });
    expect([support.status, support.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
    for (const [bad, message] of [
      [{ ...body, name: '  ' }, CATALOG_TEXT.providerName],
      [{ ...body, name: 'x'.repeat(101) }, CATALOG_TEXT.providerName],
      [{ ...body, driver: 'vmware' }, CATALOG_TEXT.providerDriver],
      [{ ...body, settings: {} }, ''],
    ] as const) {
      const res = await ownerA.call(c.createProvider, { body: bad });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(JSON.stringify(res)).toContain(message);
    }
    const created = await ownerA.call(c.createProvider, { body });
    expect(created.status).toBe(200);
    expect(created.message).toBe(CATALOG_TEXT.providerCreated);
    expect(created.data).toMatchObject({ name: 'A west cloud', driver: 'simulator', enabled: true, regionIds: [] });
    providerId = created.data.id;
    const taken = await ownerA.call(c.createProvider, { body: { ...body, name: 'a WEST cloud' } });
    expect([taken.status, taken.message]).toEqual([409, CATALOG_TEXT.providerNameTaken]);
    // Another reseller may use the same name.
    expect((await ownerB.call(c.createProvider, { body })).status).toBe(200);

    const list = (await supportA.call(c.listProviders)).data;
    expect(list.providers.map((p) => p.name)).toEqual(['A cloud', 'A libvirt', 'A west cloud']);
    expect(list.providers.find((p) => p.name === 'A cloud')).toMatchObject({ hosts: 2, vms: 2 });
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'provider.create'), eq(auditLog.targetId, String(providerId))));
    expect(entry).toMatchObject({ after: { name: 'A west cloud', driver: 'simulator', enabled: true } });
    const other = list.regions.find((r) => r.name !== 'US East')!;
    [west, westName] = [other.id, other.name];
  });

  it("serving a region puts it in the customers' create form; another reseller's provider is not found", async () => {
    expect(await customerRegions(customerA)).not.toContain(westName);
    for (const [regionIds, status, message] of [
      [[west, west], 400, CATALOG_TEXT.regionIds],
      [['x'], 400, ''],
      [[999_999], 404, CATALOG_TEXT.regionNotFound],
    ] as const) {
      const res = await ownerA.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds } });
      expect(res.status, JSON.stringify(regionIds)).toBe(status);
      expect(JSON.stringify(res)).toContain(message);
    }
    const b = await ownerB.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [west] } });
    expect([b.status, b.message]).toEqual([404, CATALOG_TEXT.providerNotFound]);
    expect((await ownerB.call(c.updateProvider, { params: { id: providerId }, body: { enabled: false } })).status).toBe(
      404,
    );
    expect(
      (await supportA.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [] } })).status,
    ).toBe(403);

    const served = await ownerA.call(c.setProviderRegions, { params: { id: providerId }, body: { regionIds: [west] } });
    expect(served.status).toBe(200);
    expect(served.data.regionIds).toEqual([west]);
    expect(await customerRegions(customerA)).toContain(westName);
    const providersThere = await customerA.call(routes.vms.listProviders, {
      params: { regionId: west },
      query: { configurationId: catalog.micro.id },
    });
    expect(providersThere.data).toEqual([{ id: providerId, name: 'A west cloud' }]);
    // Reseller B's customers see none of it.
    expect(await customerRegions(customerB)).not.toContain(westName);
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'provider.regions'), eq(auditLog.targetId, String(providerId))));
    expect(entry).toMatchObject({ before: { regionIds: [] }, after: { regionIds: [west] } });

    // Disabled, it leaves the create form; its driver may change while it has no hosts nor VMs.
    const disabled = await ownerA.call(c.updateProvider, {
      params: { id: providerId },
      body: { enabled: false, driver: 'libvirt' },
    });
    expect(disabled.data).toMatchObject({ enabled: false, driver: 'libvirt' });
    expect(await customerRegions(customerA)).not.toContain(westName);
    await ownerA.call(c.updateProvider, { params: { id: providerId }, body: { enabled: true, driver: 'simulator' } });
    expect(await customerRegions(customerA)).toContain(westName);
    expect((await ownerA.call(c.updateProvider, { params: { id: providerId }, body: {} })).message).toBe(
      CATALOG_TEXT.noChange,
    );
  });

  it('a region with live VMs of the provider stays served; a provider with VMs keeps its driver', async () => {
    const aCloud = (await ownerA.call(c.listProviders)).data.providers.find((p) => p.name === 'A cloud')!;
    const drop = await ownerA.call(c.setProviderRegions, { params: { id: aCloud.id }, body: { regionIds: [] } });
    expect([drop.status, drop.message]).toEqual([409, regionInUseText('US East', 'A cloud', 2)]);
    const driver = await ownerA.call(c.updateProvider, { params: { id: aCloud.id }, body: { driver: 'libvirt' } });
    expect([driver.status, driver.message]).toEqual([409, CATALOG_TEXT.driverLocked]);
    // Adding a region keeps the one in use.
    const added = await ownerA.call(c.setProviderRegions, {
      params: { id: aCloud.id },
      body: { regionIds: [catalog.east.id, west] },
    });
    expect(added.data.regionIds).toEqual([catalog.east.id, west].sort((a, b) => a - b));
  });

  it("a withdrawn image leaves the customers' image list and is refused at create; others are untouched", async () => {
    const image = { regionId: catalog.east.id, image: 'Debian 12' };
    expect((await supportA.call(c.saveImage, { body: { ...image, offered: false } })).status).toBe(403);
    const missing = await ownerA.call(c.saveImage, { body: { ...image, image: 'Plan 9', offered: false } });
    expect([missing.status, missing.message]).toEqual([404, CATALOG_TEXT.imageNotFound]);

    const withdrawn = await ownerA.call(c.saveImage, { body: { ...image, offered: false } });
    expect([withdrawn.status, withdrawn.message]).toEqual([200, CATALOG_TEXT.imageWithdrawn]);
    expect(withdrawn.data.regions.find((r) => r.id === catalog.east.id)?.withdrawnImages).toEqual(['Debian 12']);
    const images = (await customerA.call(routes.vms.listImages, { params: { id: catalog.east.id } })).data;
    expect(images).not.toContain('Debian 12');
    expect(images.length).toBeGreaterThan(0);
    const aCloud = (await ownerA.call(c.listProviders)).data.providers.find((p) => p.name === 'A cloud')!;
    await ownerA.call(c.updateHost, {
      params: { id: (await ownerA.call(c.listHosts)).data.hosts.find((h) => h.name === 'a-sim-2')!.id },
      body: { enabled: true },
    });
    const body = { ...catalog.createBody('withdrawn-image'), providerId: aCloud.id };
    const refused = await customerA.call(routes.vms.create, { body });
    expect([refused.status, refused.message]).toEqual([400, CATALOG_TEXT.imageNotOffered]);
    expect((await customerB.call(routes.vms.listImages, { params: { id: catalog.east.id } })).data).toContain(
      'Debian 12',
    );

    const offered = await ownerA.call(c.saveImage, { body: { ...image, offered: true } });
    expect(offered.message).toBe(CATALOG_TEXT.imageOffered);
    expect((await customerA.call(routes.vms.listImages, { params: { id: catalog.east.id } })).data).toContain(
      'Debian 12',
    );
    expect((await customerA.call(routes.vms.create, { body })).status).toBe(200);
    const entries = await t.db.select().from(auditLog).where(eq(auditLog.action, 'catalog.image.save'));
    expect(entries.map((e) => e.after)).toEqual([
      { ...image, offered: false },
      { ...image, offered: true },
    ]);
  });
});
