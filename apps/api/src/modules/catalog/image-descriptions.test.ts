/**
 * Image descriptions through the API (issue 23 item 2, decision 0018): the reseller area describes an image of its
 * regions for its own customers (overriding the platform's), bad input is a 400 naming the field, support only
 * reads, another reseller never sees or changes it; customers read them with listImageDetails (listImages stays
 * plain strings), a create or rebuild below the image's minimum disk is refused, and a VM's SSH user is its image's
 * default user. Both engines (api-pglite and api-postgres).
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { API_MESSAGES } from '@portal/contract/messages';
import { IMAGE_TEXT, imageDiskTooSmallText, type ImageDescription } from '@portal/contract/images';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, users } from '../../db/schema.ts';
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

const PLATFORM_DEBIAN: ImageDescription = { osFamily: 'debian', version: '12', defaultUser: 'root', minDiskGb: 2 };
const OWN_DEBIAN: ImageDescription = { osFamily: 'debian', version: '12.8', defaultUser: 'admin', minDiskGb: 100 };

async function resellerOf(companyId: number) {
  const [row] = await t.db.select().from(companies).where(eq(companies.id, companyId));
  return row!.resellerId;
}
async function staffCompany(resellerId: number) {
  const [row] = await t.db.insert(companies).values({ resellerId, name: 'Staff', kind: 'staff' }).returning();
  return row!.id;
}

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const resellerA = await resellerOf(admin!.companyId);
  const other = await createOtherCompany(t);
  const resellerB = await resellerOf(other.companyId);
  const [staffA, staffB] = [await staffCompany(resellerA), await staffCompany(resellerB)];
  await createUser(t, staffA, 'img-owner@a.example', { staffRole: 'owner' });
  await createUser(t, staffA, 'img-support@a.example', { staffRole: 'support' });
  await createUser(t, staffB, 'img-owner@b.example', { staffRole: 'owner' });
  [customerA, customerB, ownerA, supportA, ownerB] = await Promise.all([
    signIn(t),
    signIn(t, other.admin.email, PASSWORD),
    signIn(t, 'img-owner@a.example', PASSWORD),
    signIn(t, 'img-support@a.example', PASSWORD),
    signIn(t, 'img-owner@b.example', PASSWORD),
  ]);
  catalog = await seededCatalog(customerA);
});
afterAll(async () => {
  await t.close();
});

const details = async (client: TestClient) =>
  (await client.call(routes.vms.listImageDetails, { params: { id: catalog.east.id } })).data;
const describedAs = async (client: TestClient, image: string) =>
  (await details(client)).find((i) => i.name === image)?.description;
const sizeOf = (key: string) => catalog.configs.find((s) => s.key === key)!;
async function create(client: TestClient, name: string, image: string, size: string) {
  const { provider } = await seededCatalog(client);
  return client.call(routes.vms.create, {
    body: { ...catalog.createBody(name), image, configurationId: sizeOf(size).id, providerId: provider.id },
  });
}
async function waitRunning(client: TestClient, id: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await client.call(routes.vms.details, { params: { id } });
    if (res.data?.status === 'Running' && !res.data.pendingOperation) return;
    if (Date.now() > deadline) throw new Error(`VM ${id} is ${res.data?.status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
const login = async (client: TestClient, id: number) =>
  (await client.call(routes.vms.getAccess, { params: { id } })).data.username;

it('customers read each image with its description; listImages stays plain strings', async () => {
  expect((await customerA.call(routes.vms.listImages, { params: { id: catalog.east.id } })).data).toEqual([
    'Debian 12',
    'Rocky Linux 9',
    'Ubuntu 24.04 LTS',
    'Windows Server 2022',
  ]);
  expect(await details(customerA)).toEqual([
    { name: 'Debian 12', description: PLATFORM_DEBIAN },
    { name: 'Rocky Linux 9', description: { osFamily: 'rocky', version: '9', defaultUser: 'rocky', minDiskGb: 10 } },
    {
      name: 'Ubuntu 24.04 LTS',
      description: { osFamily: 'ubuntu', version: '24.04', defaultUser: 'ubuntu', minDiskGb: 4 },
    },
    { name: 'Windows Server 2022', description: null },
  ]);
  expect((await ownerA.call(routes.vms.listImageDetails, { params: { id: catalog.east.id } })).status).toBe(403);
  expect((await t.client().call(routes.vms.listImageDetails, { params: { id: catalog.east.id } })).status).toBe(401);
});

it('refuses bad descriptions with 400s naming the field, unknown images with 404, support and customers with 403', async () => {
  const bad: [unknown, string][] = [
    [{ ...OWN_DEBIAN, osFamily: 'windows' }, IMAGE_TEXT.osFamily],
    [{ ...OWN_DEBIAN, version: '' }, IMAGE_TEXT.version],
    [{ ...OWN_DEBIAN, version: '12 bookworm' }, IMAGE_TEXT.version],
    [{ ...OWN_DEBIAN, defaultUser: 'Admin' }, IMAGE_TEXT.defaultUser],
    [{ ...OWN_DEBIAN, defaultUser: 'a$(reboot)' }, IMAGE_TEXT.defaultUser],
    [{ ...OWN_DEBIAN, minDiskGb: 0 }, IMAGE_TEXT.minDisk],
    [{ ...OWN_DEBIAN, minDiskGb: 65_537 }, IMAGE_TEXT.minDisk],
    [{ ...OWN_DEBIAN, minDiskGb: 1.5 }, IMAGE_TEXT.minDisk],
    [{ ...OWN_DEBIAN, minDiskGb: '10' }, IMAGE_TEXT.minDisk],
    [{ osFamily: 'debian', version: '12' }, IMAGE_TEXT.defaultUser],
  ];
  for (const [description, message] of bad) {
    const res = await ownerA.call(c.describeImage, { body: { image: 'Debian 12', description } as never });
    expect(res.status, JSON.stringify(description)).toBe(400);
    expect(JSON.stringify(res), JSON.stringify(description)).toContain(message);
  }
  const extra = await ownerA.call(c.describeImage, {
    body: { image: 'Debian 12', description: { ...OWN_DEBIAN, resellerId: 2 } } as never,
  });
  expect(extra.status).toBe(400);
  const unknown = await ownerA.call(c.describeImage, { body: { image: 'Plan 9', description: OWN_DEBIAN } });
  expect([unknown.status, unknown.message]).toEqual([404, CATALOG_TEXT.imageNotFound]);
  const support = await supportA.call(c.describeImage, { body: { image: 'Debian 12', description: OWN_DEBIAN } });
  expect([support.status, support.message]).toEqual([403, API_MESSAGES.staffReadOnly]);
  const customer = await customerA.call(c.describeImage, { body: { image: 'Debian 12', description: OWN_DEBIAN } });
  expect([customer.status, customer.message]).toEqual([403, API_MESSAGES.staffOnly]);
  expect(await describedAs(customerA, 'Debian 12')).toEqual(PLATFORM_DEBIAN);
});

it("a reseller's own description is its customers' alone: another reseller neither sees nor changes it", async () => {
  const saved = await ownerA.call(c.describeImage, { body: { image: 'Debian 12', description: OWN_DEBIAN } });
  expect([saved.status, saved.message]).toEqual([200, IMAGE_TEXT.described]);
  expect(saved.data.descriptions.find((d) => d.image === 'Debian 12')).toEqual({
    image: 'Debian 12',
    platform: PLATFORM_DEBIAN,
    own: OWN_DEBIAN,
  });
  // Support reads it; reseller B's screen and customers still have the platform's.
  expect((await supportA.call(c.listRegions)).data.descriptions.find((d) => d.image === 'Debian 12')?.own).toEqual(
    OWN_DEBIAN,
  );
  expect((await ownerB.call(c.listRegions)).data.descriptions.find((d) => d.image === 'Debian 12')).toEqual({
    image: 'Debian 12',
    platform: PLATFORM_DEBIAN,
    own: null,
  });
  expect(await describedAs(customerA, 'Debian 12')).toEqual(OWN_DEBIAN);
  expect(await describedAs(customerB, 'Debian 12')).toEqual(PLATFORM_DEBIAN);
  // B removing "its" description of the image touches nothing of A's.
  const removedB = await ownerB.call(c.describeImage, { body: { image: 'Debian 12', description: null } });
  expect([removedB.status, removedB.message]).toEqual([200, IMAGE_TEXT.descriptionRemoved]);
  expect(await describedAs(customerA, 'Debian 12')).toEqual(OWN_DEBIAN);
  const [audit] = await t.db
    .select({ before: auditLog.before, after: auditLog.after, targetId: auditLog.targetId })
    .from(auditLog)
    .where(and(eq(auditLog.action, 'catalog.image.describe'), eq(auditLog.targetId, 'Debian 12')))
    .orderBy(auditLog.id)
    .limit(1);
  expect(audit).toEqual({ before: null, after: OWN_DEBIAN, targetId: 'Debian 12' });
  // listImageDetails lists what listImages lists: an image B withdrew is gone for B's customers only.
  const withdrawn = await ownerB.call(c.saveImage, {
    body: { regionId: catalog.east.id, image: 'Windows Server 2022', offered: false },
  });
  expect(withdrawn.status).toBe(200);
  expect((await details(customerB)).map((i) => i.name)).toEqual(['Debian 12', 'Rocky Linux 9', 'Ubuntu 24.04 LTS']);
  expect((await details(customerA)).map((i) => i.name)).toContain('Windows Server 2022');
  await ownerB.call(c.saveImage, { body: { regionId: catalog.east.id, image: 'Windows Server 2022', offered: true } });
});

it("creates and rebuilds refuse a disk below the image's minimum; a VM logs in as its image's default user", async () => {
  // Reseller A: Debian 12 needs 100 GB and logs in as admin (the test above); Micro has 80 GB, Extra Small 120.
  const small = await create(customerA, 'min-disk-micro', 'Debian 12', 'micro');
  expect([small.status, small.message]).toEqual([400, imageDiskTooSmallText('Debian 12', 100, sizeOf('micro').disk)]);
  const ok = await create(customerA, 'min-disk-ok', 'Debian 12', 'extraSmall');
  expect(ok.status).toBe(200);
  const debianA = ok.data.ids[0]!;
  // Reseller B's customers have the platform's Debian 12: 2 GB, root.
  const other = await create(customerB, 'min-disk-b', 'Debian 12', 'micro');
  expect(other.status).toBe(200);
  const ubuntu = await create(customerA, 'ubuntu-micro', 'Ubuntu 24.04 LTS', 'micro');
  const windows = await create(customerA, 'windows-micro', 'Windows Server 2022', 'micro');
  expect([ubuntu.status, windows.status]).toEqual([200, 200]);
  const [ubuntuId, windowsId] = [ubuntu.data.ids[0]!, windows.data.ids[0]!];
  for (const id of [debianA, ubuntuId, windowsId]) await waitRunning(customerA, id);
  await waitRunning(customerB, other.data.ids[0]!);
  expect(await login(customerA, debianA)).toBe('admin');
  expect(await login(customerB, other.data.ids[0]!)).toBe('root');
  expect(await login(customerA, ubuntuId)).toBe('ubuntu');
  expect(await login(customerA, windowsId)).toBe('root');
  // A Micro machine cannot be rebuilt onto A's Debian 12; the Windows one onto Rocky takes Rocky's user.
  const refused = await customerA.call(routes.vms.rebuild, { params: { id: ubuntuId }, body: { image: 'Debian 12' } });
  expect([refused.status, refused.message]).toEqual([
    400,
    imageDiskTooSmallText('Debian 12', 100, sizeOf('micro').disk),
  ]);
  expect(await login(customerA, ubuntuId)).toBe('ubuntu');
  const rebuilt = await customerA.call(routes.vms.rebuild, {
    params: { id: windowsId },
    body: { image: 'Rocky Linux 9' },
  });
  expect(rebuilt.status).toBe(200);
  await waitRunning(customerA, windowsId);
  expect(await login(customerA, windowsId)).toBe('rocky');
  // Without its own description, reseller A's customers are back on the platform's: Micro fits, the user is root.
  const removed = await ownerA.call(c.describeImage, { body: { image: 'Debian 12', description: null } });
  expect(removed.data.descriptions.find((d) => d.image === 'Debian 12')?.own).toBeNull();
  expect(await describedAs(customerA, 'Debian 12')).toEqual(PLATFORM_DEBIAN);
  expect(
    (await customerA.call(routes.vms.rebuild, { params: { id: ubuntuId }, body: { image: 'Debian 12' } })).status,
  ).toBe(200);
  await waitRunning(customerA, ubuntuId);
  expect(await login(customerA, ubuntuId)).toBe('root');
});
