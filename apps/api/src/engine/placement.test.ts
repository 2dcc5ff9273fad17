/**
 * A host that cannot fit a size refuses it (issue 23 item 3: the guest gets exactly its configuration, so placement is
 * where a size too big for the region is said, in words a customer can act on). Through the API as a customer: a create
 * in a region without hosts, larger than any host can ever hold, and with no room now (the hosts counted by why); an
 * upgrade whose growth the VM's own host cannot take now (counting an upgrade already queued there) or ever. No workers
 * run: what is checked is the answer and what was (not) queued. Both engines.
 */
import { eq, inArray } from 'drizzle-orm';
import { SIZE_TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  configurations,
  hosts,
  operations,
  providerOfferings,
  providers,
  regions,
  users,
  virtualMachines,
} from '../db/schema.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../test/harness.ts';

let t: TestApp;
let admin: TestClient;
let providerId = 0;
let westId = 0;
let frankfurtId = 0;
let adminId = 0;
const size: Record<string, typeof configurations.$inferSelect> = {};
let kvm1 = 0;

beforeAll(async () => {
  t = await createTestApp();
  admin = await signIn(t);
  // A libvirt provider of the operator's without a URI of its own: it runs machines only on its registered hosts.
  const [provider] = await t.db
    .insert(providers)
    .values({ name: 'Sized libvirt', driver: 'libvirt', settings: {} })
    .returning();
  providerId = provider!.id;
  const all = await t.db.select().from(regions);
  westId = all.find((r) => r.name === 'US West')!.id;
  frankfurtId = all.find((r) => r.name === 'Frankfurt')!.id;
  for (const c of await t.db.select().from(configurations)) size[c.key] = c;
  await t.db.insert(providerOfferings).values([
    ...['micro', 'extraSmall', 'small', 'large'].map((key) => ({
      providerId,
      regionId: westId,
      configurationId: size[key]!.id,
    })),
    { providerId, regionId: frankfurtId, configurationId: size.micro!.id },
  ]);
  // One answering host in US West: 8 CPUs (no overcommit), 32 GB, 400 GB.
  const [host] = await t.db
    .insert(hosts)
    .values({
      name: 'kvm-1',
      uri: 'qemu+tcp://127.0.0.1:1/system',
      providerId,
      regionId: westId,
      cpus: 8,
      ramGb: 32,
      diskGb: 400,
      cpuOvercommit: 1,
      lastSeenAt: new Date(),
    })
    .returning();
  kvm1 = host!.id;
  adminId = (await t.db.select({ id: users.id }).from(users).where(eq(users.email, ADMIN.email)))[0]!.id;
});
afterAll(async () => {
  await t.close();
});

const create = (regionId: number, key: string, name: string) =>
  admin.call(routes.vms.create, {
    body: { regionId, image: 'Debian 12', configurationId: size[key]!.id, providerId, name, numberOfInstances: 1 },
  });
const named = (key: string) => SIZE_TEXT.size(size[key]!);

it('refuses a create no host of the region can take, saying whether it is room now or the size itself', async () => {
  expect(named('micro')).toBe('Micro (2 cores, 4 GB RAM, 80 GB disk)');
  const nowhere = await create(frankfurtId, 'micro', 'nowhere');
  expect(nowhere.status).toBe(400);
  expect(nowhere.message).toBe(
    'No host in Frankfurt has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: none registered)',
  );

  // 12 cores on a host of 8 CPUs × 1: never, however empty.
  const large = await create(westId, 'large', 'too-large');
  expect(large.status).toBe(400);
  expect(large.message).toBe(
    'Large (12 cores, 48 GB RAM, 300 GB disk) is larger than any host in US West can hold. Choose a smaller configuration.',
  );

  // Two Micro VMs fit (4 of 8 CPUs); Small (6 cores) then does not, now.
  expect((await create(westId, 'micro', 'fits-1')).status).toBe(200);
  expect((await create(westId, 'micro', 'fits-2')).status).toBe(200);
  const full = await create(westId, 'small', 'no-room');
  expect(full.status).toBe(400);
  expect(full.message).toBe(SIZE_TEXT.noRoom('US West', named('small'), '1 full'));
  expect(full.message).toBe(
    'No host in US West has room for Small (6 cores, 10 GB RAM, 180 GB disk) now (hosts: 1 full)',
  );

  // Hosts that take nothing now are counted by why; one that could never hold it is "too small".
  const other = { uri: 'qemu+tcp://127.0.0.1:1/system', providerId, regionId: westId, ramGb: 64, diskGb: 400 };
  await t.db.insert(hosts).values([
    { ...other, name: 'kvm-2', cpus: 64, draining: true, lastSeenAt: new Date() },
    { ...other, name: 'kvm-3', cpus: 64, lastSeenAt: null },
    { ...other, name: 'kvm-4', cpus: 2, cpuOvercommit: 1, lastSeenAt: new Date() },
  ]);
  expect((await create(westId, 'small', 'no-room')).message).toBe(
    'No host in US West has room for Small (6 cores, 10 GB RAM, 180 GB disk) now (hosts: 1 full, 1 draining, 1 not seen yet, 1 too small)',
  );
  // Only what could hold it counts against "larger than any host": kvm-2 and kvm-3 could, once they take VMs again.
  expect((await create(westId, 'large', 'too-large')).message).toMatch(/^No host in US West has room for Large/);
  await t.db.delete(hosts).where(inArray(hosts.name, ['kvm-2', 'kvm-3', 'kvm-4']));
  const names = (await t.db.select({ name: virtualMachines.name }).from(virtualMachines)).map((v) => v.name);
  expect(names).toEqual(expect.arrayContaining(['fits-1', 'fits-2']));
  expect(names).not.toContain('no-room');
  expect(names).not.toContain('too-large');
});

it("refuses an upgrade the VM's host has no room for, counting an upgrade already queued there, or can never hold", async () => {
  // Start from two running Micro VMs alone on kvm-1 (4 of its 8 CPUs).
  await t.db.delete(operations);
  await t.db.delete(virtualMachines).where(eq(virtualMachines.hostId, kvm1));
  const vm = async (name: string) =>
    (
      await t.db
        .insert(virtualMachines)
        .values({
          companyId: 1,
          createdByUserId: adminId,
          name,
          status: 'Running',
          configurationId: size.micro!.id,
          regionId: westId,
          image: 'Debian 12',
          providerId,
          hostId: kvm1,
          providerRef: `ref-${name}`,
        })
        .returning()
    )[0]!.id;
  const [a, b] = [await vm('up-a'), await vm('up-b')];
  const upgrade = (id: number, key: string) =>
    admin.call(routes.vms.changeConfiguration, { body: { id, configurationId: size[key]!.id } });

  // Extra Small adds 2 CPUs: 6 of 8.
  expect((await upgrade(a, 'extraSmall')).status).toBe(200);
  // Large (12 cores) on an 8-CPU host: never.
  const never = await upgrade(b, 'large');
  expect(never.status).toBe(400);
  expect(never.message).toBe(
    "Large (12 cores, 48 GB RAM, 300 GB disk) is larger than this virtual machine's host can hold",
  );
  // Small adds 4: 6 + 4 > 8 with a's upgrade still queued (without it, 4 + 4 would fit).
  const noRoom = await upgrade(b, 'small');
  expect(noRoom.status).toBe(400);
  expect(noRoom.message).toBe(
    "This virtual machine's host has no room for Small (6 cores, 10 GB RAM, 180 GB disk) now",
  );
  const queued = await t.db.select().from(operations).where(eq(operations.vmId, b));
  expect(queued).toEqual([]);
  const [stillB] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, b));
  expect(stillB).toMatchObject({ status: 'Running', configurationId: size.micro!.id });
  // Extra Small adds 2: exactly 8 of 8.
  expect((await upgrade(b, 'extraSmall')).status).toBe(200);
});
