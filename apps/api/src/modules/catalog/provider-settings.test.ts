/**
 * A reseller's libvirt provider's settings through the API (issue 23 item 2): the pool and network names, the public
 * addresses' way and the images map (catalog name → base volume), read by staff and changed by owners, each change
 * checked by the contract's schema of the reseller's fields only (never a program, a path or a URI: 400 naming the
 * field), merged into the stored settings (the operator's stay), audited; the names do not change under live VMs;
 * another reseller's provider is not found. Both engines (api-pglite and api-postgres).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { IMAGE_TEXT } from '@portal/contract/images';
import { CATALOG_TEXT, PROVIDER_IMAGES_MAX } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, providers, users, virtualMachines } from '../../db/schema.ts';
import { createOtherCompany, createUser, insertVm, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let customerA: TestClient;
let ownerA: TestClient;
let supportA: TestClient;
let ownerB: TestClient;
let companyA: number;
let libvirtId: number;
let simulatorId: number;

async function resellerOf(companyId: number) {
  const [row] = await t.db.select().from(companies).where(eq(companies.id, companyId));
  return row!.resellerId;
}
async function staffCompany(resellerId: number) {
  const [row] = await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning();
  return row!.id;
}
const stored = async (id: number) =>
  (await t.db.select({ s: providers.settings }).from(providers).where(eq(providers.id, id)))[0]!.s;

/** What the operator set with `providers set` (programs, paths, timeouts): the reseller's changes keep it. */
const OPERATORS = { virshBinary: '/usr/bin/virsh', guestImageCacheDir: '/srv/cache', bootTimeoutMs: 300_000 };

beforeAll(async () => {
  t = await createTestApp({ env: { VM_RECONCILE_INTERVAL_MS: '100000' } });
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  companyA = admin!.companyId;
  const resellerA = await resellerOf(companyA);
  const other = await createOtherCompany(t);
  const resellerB = await resellerOf(other.companyId);
  const [staffA, staffB] = [await staffCompany(resellerA), await staffCompany(resellerB)];
  await createUser(t, staffA, 'set-owner@a.example', { staffRole: 'owner' });
  await createUser(t, staffA, 'set-support@a.example', { staffRole: 'support' });
  await createUser(t, staffB, 'set-owner@b.example', { staffRole: 'owner' });
  [customerA, ownerA, supportA, ownerB] = await Promise.all([
    signIn(t),
    signIn(t, 'set-owner@a.example', PASSWORD),
    signIn(t, 'set-support@a.example', PASSWORD),
    signIn(t, 'set-owner@b.example', PASSWORD),
  ]);
  const made = await ownerA.call(c.createProvider, { body: { name: 'Own metal', driver: 'libvirt', enabled: true } });
  const sim = await ownerA.call(c.createProvider, { body: { name: 'Own sim', driver: 'simulator', enabled: true } });
  [libvirtId, simulatorId] = [made.data.id, sim.data.id];
  await t.db.update(providers).set({ settings: OPERATORS }).where(eq(providers.id, libvirtId));
});
afterAll(async () => {
  await t.close();
});

it("shows a new libvirt provider's settings with the driver's defaults; support reads them, customers may not", async () => {
  const defaults = {
    poolName: 'irontech',
    networkName: 'irontech',
    publicNetworkName: null,
    publicNat: true,
    images: [],
  };
  const res = await ownerA.call(c.getProviderSettings, { params: { id: libvirtId } });
  expect([res.status, res.data]).toEqual([200, defaults]);
  expect((await supportA.call(c.getProviderSettings, { params: { id: libvirtId } })).data).toEqual(defaults);
  const customer = await customerA.call(c.getProviderSettings, { params: { id: libvirtId } });
  expect([customer.status, customer.message]).toEqual([403, API_MESSAGES.staffOnly]);
  const sim = await ownerA.call(c.getProviderSettings, { params: { id: simulatorId } });
  expect([sim.status, sim.message]).toEqual([400, CATALOG_TEXT.settingsLibvirtOnly]);
  const simSave = await ownerA.call(c.saveProviderSettings, {
    params: { id: simulatorId },
    body: { publicNat: false },
  });
  expect([simSave.status, simSave.message]).toEqual([400, CATALOG_TEXT.settingsLibvirtOnly]);
});

it('refuses programs, paths, URIs and bad names with 400s naming the field, and writes nothing', async () => {
  const before = await stored(libvirtId);
  const bad: [unknown, string][] = [
    [{ poolName: '../../etc' }, CATALOG_TEXT.poolName],
    [{ poolName: '' }, CATALOG_TEXT.poolName],
    [{ poolName: 'a'.repeat(65) }, CATALOG_TEXT.poolName],
    [{ poolName: 7 }, CATALOG_TEXT.poolName],
    [{ networkName: 'net work' }, CATALOG_TEXT.networkName],
    [{ networkName: '-net' }, CATALOG_TEXT.networkName],
    [{ publicNetworkName: 'pub;reboot' }, CATALOG_TEXT.publicNetworkName],
    [{ publicNetworkName: '' }, CATALOG_TEXT.publicNetworkName],
    [{ publicNat: 'yes' }, CATALOG_TEXT.publicNat],
    [{ virshBinary: '/bin/sh' }, 'virshBinary'],
    [{ guestImageCacheDir: '/etc' }, 'guestImageCacheDir'],
    [{ uri: 'qemu:///system' }, 'uri'],
    [{ pool: { name: 'x', path: '/etc' } }, 'pool'],
    [{}, CATALOG_TEXT.noChange],
  ];
  for (const [body, message] of bad) {
    const res = await ownerA.call(c.saveProviderSettings, { params: { id: libvirtId }, body: body as never });
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(JSON.stringify(res), JSON.stringify(body)).toContain(message);
  }
  const badImages: [unknown, string][] = [
    [{ image: '', volume: 'v.qcow2' }, IMAGE_TEXT.imageName],
    [{ image: ' Debian', volume: 'v.qcow2' }, IMAGE_TEXT.imageName],
    [{ image: 'Deb\nian', volume: 'v.qcow2' }, IMAGE_TEXT.imageName],
    [{ image: '__proto__', volume: 'v.qcow2' }, IMAGE_TEXT.imageName],
    [{ image: 'Debian 12', volume: '../base.qcow2' }, CATALOG_TEXT.volumeName],
    [{ image: 'Debian 12', volume: '/var/lib/libvirt/images/x.qcow2' }, CATALOG_TEXT.volumeName],
    [{ image: 'Debian 12', volume: '' }, CATALOG_TEXT.volumeName],
    [{ image: 'Debian 12' }, CATALOG_TEXT.volumeName],
    [{ image: 'Debian 12', volume: 'v.qcow2', pool: 'other' }, 'pool'],
  ];
  for (const [body, message] of badImages) {
    const res = await ownerA.call(c.saveProviderImage, { params: { id: libvirtId }, body: body as never });
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(JSON.stringify(res), JSON.stringify(body)).toContain(message);
  }
  const support = await supportA.call(c.saveProviderSettings, {
    params: { id: libvirtId },
    body: { publicNat: false },
  });
  expect([support.status, support.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  const supportImage = await supportA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Debian 12', volume: 'd.qcow2' },
  });
  expect([supportImage.status, supportImage.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  expect(await stored(libvirtId)).toEqual(before);
});

it("saves the names and the public network into the stored settings, keeps the operator's, audits", async () => {
  const res = await ownerA.call(c.saveProviderSettings, {
    params: { id: libvirtId },
    body: { poolName: 'tank', networkName: 'vms', publicNetworkName: 'public', publicNat: false },
  });
  expect([res.status, res.message]).toEqual([200, CATALOG_TEXT.settingsSaved]);
  expect(res.data).toEqual({
    poolName: 'tank',
    networkName: 'vms',
    publicNetworkName: 'public',
    publicNat: false,
    images: [],
  });
  expect(await stored(libvirtId)).toEqual({
    ...OPERATORS,
    pool: { name: 'tank' },
    network: { name: 'vms' },
    publicNetwork: { name: 'public' },
    publicNat: false,
  });
  // Only the fields given change; no public network again.
  const none = await ownerA.call(c.saveProviderSettings, {
    params: { id: libvirtId },
    body: { publicNetworkName: null, publicNat: true },
  });
  expect(none.data).toMatchObject({ poolName: 'tank', publicNetworkName: null, publicNat: true });
  expect(await stored(libvirtId)).not.toHaveProperty('publicNetwork');
  const audit = await t.db
    .select({ before: auditLog.before, after: auditLog.after, actor: auditLog.actorUserId })
    .from(auditLog)
    .where(and(eq(auditLog.action, 'provider.settings.update'), eq(auditLog.targetId, String(libvirtId))))
    .orderBy(auditLog.id);
  expect(audit).toHaveLength(2);
  expect(audit[0]!.before).toMatchObject({ poolName: 'irontech', publicNat: true });
  expect(audit[0]!.after).toMatchObject({ poolName: 'tank', networkName: 'vms', publicNetworkName: 'public' });
  expect(audit[0]!.actor).not.toBeNull();
});

it('adds, repoints and removes images; each lists the regions of the provider that list it now', async () => {
  const east = (await ownerA.call(c.listProviders)).data.regions.find((r) => r.name === 'US East')!;
  expect(
    (await ownerA.call(c.setProviderRegions, { params: { id: libvirtId }, body: { regionIds: [east.id] } })).status,
  ).toBe(200);
  const added = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Ubuntu 24.04 LTS', volume: 'ubuntu-24.04.qcow2' },
  });
  expect([added.status, added.message]).toEqual([200, CATALOG_TEXT.providerImageAdded]);
  // US East lists "Ubuntu 24.04 LTS" (the seeded catalog); "Alpine 3.20" is in no pool yet.
  await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Alpine 3.20', volume: 'alpine.qcow2' },
  });
  const repointed = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Ubuntu 24.04 LTS', volume: 'noble.qcow2' },
  });
  expect(repointed.data.images).toEqual([
    { image: 'Alpine 3.20', volume: 'alpine.qcow2', regions: [] },
    { image: 'Ubuntu 24.04 LTS', volume: 'noble.qcow2', regions: ['US East'] },
  ]);
  expect(await stored(libvirtId)).toMatchObject({
    images: { 'Ubuntu 24.04 LTS': 'noble.qcow2', 'Alpine 3.20': 'alpine.qcow2' },
  });
  const removed = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Alpine 3.20', volume: null },
  });
  expect([removed.status, removed.message]).toEqual([200, CATALOG_TEXT.providerImageRemoved]);
  expect(removed.data.images.map((i) => i.image)).toEqual(['Ubuntu 24.04 LTS']);
  const gone = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Alpine 3.20', volume: null },
  });
  expect([gone.status, gone.message]).toEqual([404, CATALOG_TEXT.providerImageNotFound]);
  expect((await supportA.call(c.getProviderSettings, { params: { id: libvirtId } })).data.images).toEqual(
    removed.data.images,
  );
});

it(`maps at most ${PROVIDER_IMAGES_MAX} images; a mapped one may still be repointed`, async () => {
  const settings = (await stored(libvirtId)) as Record<string, unknown>;
  const images = Object.fromEntries(
    Array.from({ length: PROVIDER_IMAGES_MAX }, (_, i) => [`Image ${i}`, `v${i}.qcow2`]),
  );
  await t.db
    .update(providers)
    .set({ settings: { ...settings, images } })
    .where(eq(providers.id, libvirtId));
  const over = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'One more', volume: 'x' },
  });
  expect([over.status, over.message]).toEqual([400, CATALOG_TEXT.providerImagesLimit]);
  const repoint = await ownerA.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Image 3', volume: 'y' },
  });
  expect(repoint.status).toBe(200);
  await t.db.update(providers).set({ settings }).where(eq(providers.id, libvirtId));
});

it("another reseller's provider is not found, and nothing of it changes", async () => {
  const before = await stored(libvirtId);
  const read = await ownerB.call(c.getProviderSettings, { params: { id: libvirtId } });
  expect([read.status, read.message]).toEqual([404, CATALOG_TEXT.providerNotFound]);
  const save = await ownerB.call(c.saveProviderSettings, { params: { id: libvirtId }, body: { poolName: 'mine' } });
  expect([save.status, save.message]).toEqual([404, CATALOG_TEXT.providerNotFound]);
  const image = await ownerB.call(c.saveProviderImage, {
    params: { id: libvirtId },
    body: { image: 'Ubuntu 24.04 LTS', volume: null },
  });
  expect([image.status, image.message]).toEqual([404, CATALOG_TEXT.providerNotFound]);
  // The platform's own providers are no reseller's either.
  const [platform] = await t.db
    .select({ id: providers.id })
    .from(providers)
    .where(eq(providers.name, 'Northwind Cloud'));
  if (platform) {
    const p = await ownerA.call(c.getProviderSettings, { params: { id: platform.id } });
    expect([p.status, p.message]).toEqual([404, CATALOG_TEXT.providerNotFound]);
  }
  const unknown = await ownerA.call(c.saveProviderSettings, { params: { id: 999_999 }, body: { publicNat: true } });
  expect(unknown.status).toBe(404);
  const badId = await ownerA.raw('GET', `${t.config.API_BASE_PATH}/reseller/providers/abc/settings`);
  expect(badId.status).toBe(400);
  expect(await stored(libvirtId)).toEqual(before);
});

it('keeps the pool and networks while the provider has live VMs; the images and the NAT switch still change', async () => {
  const vm = await insertVm(t, { companyId: companyA, teamId: null, name: 'settings-lock' });
  await t.db.update(virtualMachines).set({ providerId: libvirtId }).where(eq(virtualMachines.id, vm.id));
  for (const body of [{ poolName: 'other' }, { networkName: 'other' }, { publicNetworkName: 'pub' }]) {
    const res = await ownerA.call(c.saveProviderSettings, { params: { id: libvirtId }, body });
    expect([res.status, res.message], JSON.stringify(body)).toEqual([409, CATALOG_TEXT.settingsInUse]);
  }
  // The same names again are no move.
  expect(
    (
      await ownerA.call(c.saveProviderSettings, {
        params: { id: libvirtId },
        body: { poolName: 'tank', publicNat: false },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await ownerA.call(c.saveProviderImage, {
        params: { id: libvirtId },
        body: { image: 'Rocky Linux 9', volume: 'rocky.qcow2' },
      })
    ).status,
  ).toBe(200);
  await t.db.update(virtualMachines).set({ deletedAt: new Date() }).where(eq(virtualMachines.id, vm.id));
  expect(
    (await ownerA.call(c.saveProviderSettings, { params: { id: libvirtId }, body: { poolName: 'other' } })).status,
  ).toBe(200);
});
