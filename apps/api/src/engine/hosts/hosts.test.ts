/**
 * Hosts and public addresses through the operator's imports API, and the public address a VM gets from its
 * region's pool (on the simulator: no libvirt needed) and gives back when it is deleted. A region's image list
 * follows its hosts' pools (the host monitor, against stub drivers standing in for libvirt hosts).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '@portal/contract/routes';
import { hosts, providerOfferings, providers, publicAddresses, regions, virtualMachines } from '../../db/schema.ts';
import type { ProviderDriver } from '../../providers/provider.ts';
import { createProviderRegistry } from '../../providers/registry.ts';
import { createHostMonitor } from '../host-monitor.ts';
import { hostLoads } from '../placement.ts';
import { createVmEvents } from '../vm-events.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { createOperatorTokens } from '../../../test/module-parts.ts';

let t: TestApp;
let admin: TestClient;
let token: string;
beforeAll(async () => {
  t = await createTestApp({ env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20' } });
  t.portal.startWorkers();
  admin = await signIn(t);
  token = (
    await createOperatorTokens({ db: t.db, secret: 'test-secret-that-is-long-enough-0123456789' }).create('tests')
  ).token;
});
afterAll(async () => {
  await t.close();
});
const bearer = () => ({ authorization: `Bearer ${token}` });

it('registers hosts and public addresses through the imports API, row by row', async () => {
  const [libvirt] = await t.db
    .insert(providers)
    .values({ name: 'Lab libvirt', driver: 'libvirt', settings: {} })
    .returning();
  const res = await t.client().call(routes.platform.importHosts, {
    headers: bearer(),
    body: {
      rows: [
        // Nothing listens there: given capacity, it is registered as not answering.
        {
          name: 'lab-1',
          uri: 'qemu+tcp://127.0.0.1:1/system',
          provider: libvirt!.id,
          region: 'US West',
          cpus: 16,
          ramGb: 64,
          diskGb: 1000,
        },
        { name: 'lab-2', uri: 'qemu+tcp://127.0.0.1:1/system', provider: 'Lab libvirt', region: 'US West' },
        {
          name: 'lab-3',
          uri: 'qemu:///system',
          provider: 'Northwind Cloud',
          region: 'US West',
          cpus: 1,
          ramGb: 1,
          diskGb: 1,
        },
        { name: 'bad name!', uri: 'x', provider: 1, region: 1 },
      ],
    },
  });
  expect(res.status).toBe(200);
  expect(res.data).toMatchObject({ created: 1, rejected: 3 });
  expect(res.data.rows[1]!.reason).toMatch(
    /^Could not read the capacity of qemu\+tcp:\/\/127\.0\.0\.1:1\/system \([\s\S]*\); give --cpus, --ram-gb and --disk-gb$/,
  );
  expect(res.data.rows[2]!.reason).toBe(
    'Provider "Northwind Cloud" uses the simulator driver; hosts belong to libvirt providers',
  );
  const [lab1] = await t.db.select().from(hosts).where(eq(hosts.name, 'lab-1'));
  expect(lab1).toMatchObject({ cpus: 16, ramGb: 64, diskGb: 1000, enabled: true, draining: false, lastSeenAt: null });
  expect(lab1!.lastError).toBeTruthy();

  // The operator's health view names it (down); the public one does not.
  const named = await t.client().call(routes.platform.healthRemoteApi, { headers: bearer() });
  expect(named.status).toBe(503);
  expect(named.data.checks['host lab-1']).toMatchObject({ status: 'down' });
  const anonymous = await t.client().call(routes.platform.healthRemoteApi);
  expect(anonymous.data.checks[`host-${lab1!.id}`]).toEqual({ status: 'down', detail: null, latencyMs: 0 });
  expect(JSON.stringify(anonymous.data)).not.toContain('lab-1');

  // A create in the region of a host that never answered is refused with the reason.
  const regionId = (await t.db.select().from(regions)).find((r) => r.name === 'US West')!.id;
  const configurationId = (await seededCatalog(admin)).micro.id;
  await t.db.insert(providerOfferings).values({ providerId: libvirt!.id, regionId, configurationId });
  const refused = await admin.call(routes.vms.create, {
    body: {
      regionId,
      image: 'Debian 12',
      configurationId,
      providerId: libvirt!.id,
      name: 'nowhere',
      numberOfInstances: 1,
    },
  });
  expect(refused.status).toBe(400);
  expect(refused.message).toMatch(
    /^No host in US West has room for Micro \(2 cores, 4 GB RAM, 80 GB disk\) now \(hosts: 1 (not seen yet|unreachable)\)$/,
  );

  // (Company 1 is the signed-in admin's.) Seen and healthy, but its 4 CPUs are taken by two live Micro VMs (a deleted one no longer counts): full.
  await t.db
    .update(hosts)
    .set({ lastSeenAt: new Date(), lastError: null, cpus: 4, cpuOvercommit: 1 })
    .where(eq(hosts.id, lab1!.id));
  const vm = (name: string, deletedAt: Date | null = null) => ({
    companyId: 1,
    name,
    status: 'Running' as const,
    configurationId,
    regionId,
    image: 'Debian 12',
    providerId: libvirt!.id,
    hostId: lab1!.id,
    deletedAt,
  });
  await t.db.insert(virtualMachines).values([vm('taken-1'), vm('taken-2'), vm('gone', new Date())]);
  const loads = await t.db.transaction((tx) => hostLoads(tx, libvirt!.id, regionId));
  expect(loads.map((l) => [l.host.name, l.used])).toEqual([['lab-1', { cpu: 4, ram: 8, disk: 160 }]]);
  const full = await admin.call(routes.vms.create, {
    body: {
      regionId,
      image: 'Debian 12',
      configurationId,
      providerId: libvirt!.id,
      name: 'no-room',
      numberOfInstances: 1,
    },
  });
  expect(full.status).toBe(400);
  expect(full.message).toBe(
    'No host in US West has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: 1 full)',
  );

  const addresses = await t.client().call(routes.platform.importPublicAddresses, {
    headers: bearer(),
    body: {
      rows: [
        { region: 'US East', address: '203.0.113.10-11' },
        { region: 'US East', address: '203.0.113.10' },
        { region: 'Nowhere', address: '198.51.100.1' },
      ],
    },
  });
  expect(addresses.data).toMatchObject({ created: 1, updated: 1, rejected: 1 });
  expect(addresses.data.rows[2]!.reason).toBe('No region "Nowhere"');
});

it("gives a VM a public address from its region's pool, never the same twice, and takes it back at delete", async () => {
  const catalog = await seededCatalog(admin);
  // Its own pool (the import above registered it already when it ran: then this changes nothing), so a failure there
  // does not fail this test too.
  const pool = await t.client().call(routes.platform.importPublicAddresses, {
    headers: bearer(),
    body: { rows: [{ region: 'US East', address: '203.0.113.10-11' }] },
  });
  expect(pool.data.rejected).toBe(0);
  const [regionId, configurationId, providerId] = [catalog.east.id, catalog.micro.id, catalog.provider.id];
  const created = await admin.call(routes.vms.create, {
    body: { regionId, image: 'Debian 12', configurationId, providerId, name: 'pub', numberOfInstances: 3 },
  });
  expect(created.status).toBe(200);
  const ips = await Promise.all(
    created.data.ids.map(
      async (id) => (await admin.call(routes.vms.details, { params: { id } })).data.virtualMachine.network.publicIp,
    ),
  );
  // Two addresses in the pool: two VMs get one each, the third none from the pool.
  expect(ips.slice(0, 2).sort()).toEqual(['203.0.113.10', '203.0.113.11']);
  expect(ips[2] ?? '').not.toMatch(/^203\.0\.113\./);
  const [first] = created.data.ids;
  const deadline = Date.now() + 20_000;
  while (
    (await admin.call(routes.vms.details, { params: { id: first! } })).data?.status !== 'Running' &&
    Date.now() < deadline
  )
    await new Promise((r) => setTimeout(r, 50));
  expect((await admin.call(routes.vms.details, { params: { id: first! } })).data.virtualMachine.network.publicIp).toBe(
    ips[0],
  );
  expect((await admin.call(routes.vms.delete, { params: { id: first! } })).status).toBe(200);
  while ((await admin.call(routes.vms.details, { params: { id: first! } })).status !== 404 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  const [released] = await t.db.select().from(publicAddresses).where(eq(publicAddresses.address, ips[0]!));
  expect(released!.vmId).toBeNull();
  const region = (await t.db.select().from(regions)).find((r) => r.id === regionId)!;
  expect(region.name).toBe('US East');
});

it("lists in the create form the images its region's hosts have in their pools, after a round where all answered", async () => {
  const frankfurt = (await t.db.select().from(regions)).find((r) => r.name === 'Frankfurt')!;
  const listImages = async () =>
    (await admin.call(routes.vms.listImages, { params: { id: frankfurt.id } })).data as string[];
  expect(await listImages()).toEqual(['Debian 12', 'Rocky Linux 9', 'Ubuntu 24.04 LTS', 'Windows Server 2022']);

  // Two hosts of a libvirt provider in Frankfurt; a stub driver per host URI reports its pool (or no answer).
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Pool libvirt', driver: 'libvirt', settings: {} })
    .returning();
  const host = (name: string) => ({
    name,
    uri: `qemu+tcp://${name}.invalid/system`,
    providerId: provider!.id,
    regionId: frankfurt.id,
    cpus: 8,
    ramGb: 32,
    diskGb: 400,
  });
  await t.db.insert(hosts).values([host('pool-1'), host('pool-2')]);
  const pools = new Map<string, string[] | 'down'>();
  const notUsed = () => Promise.reject(new Error('not used by the host monitor'));
  const stub = (settings: unknown): ProviderDriver => {
    const uri = (settings as { uri: string }).uri;
    const pool = () => pools.get(uri) ?? [];
    return {
      kind: 'libvirt',
      ...{ create: notUsed, start: notUsed, stop: notUsed, forceStop: notUsed, reset: notUsed, resize: notUsed },
      ...{ delete: notUsed, status: notUsed, usage: notUsed, console: notUsed },
      health: async () =>
        pool() === 'down' ? { healthy: false, detail: { error: 'connection refused' } } : { healthy: true, detail: {} },
      images: async () => pool() as string[],
    };
  };
  const monitor = createHostMonitor({
    db: t.db,
    registry: createProviderRegistry({ libvirt: stub }),
    events: createVmEvents(),
    log: t.portal.app.log,
  });
  const uri = (name: string) => host(name).uri;

  // Added and removed: the union of both pools replaces the seeded list.
  pools.set(uri('pool-1'), ['Debian 12', 'Alpine 3.20']).set(uri('pool-2'), ['Debian 12', 'Ubuntu 24.04 LTS']);
  await monitor.checkOnce();
  expect(await listImages()).toEqual(['Alpine 3.20', 'Debian 12', 'Ubuntu 24.04 LTS']);

  // pool-2 does not answer: its images cannot be known, so the list stays as it was.
  pools.set(uri('pool-2'), 'down');
  await monitor.checkOnce();
  expect(await listImages()).toEqual(['Alpine 3.20', 'Debian 12', 'Ubuntu 24.04 LTS']);

  // It answers again without Ubuntu, and pool-1 gained an image: the list follows.
  pools.set(uri('pool-1'), ['Debian 12', 'Alpine 3.20', 'Debian 13']).set(uri('pool-2'), ['Debian 12']);
  await monitor.checkOnce();
  expect(await listImages()).toEqual(['Alpine 3.20', 'Debian 12', 'Debian 13']);
  await monitor.stop();
});
