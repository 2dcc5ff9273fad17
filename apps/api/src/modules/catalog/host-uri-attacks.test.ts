/**
 * Issue 21, the critical finding: what a reseller types as a host URI never becomes a command or a connection the
 * operator did not allow. The reseller's providers run a stand-in `virsh` (their settings' virshBinary) that does what
 * libvirt does with such URIs — runs the program a `qemu+ext` URI or a `command=`/`netcat=`/`socket=`/`keyfile=`
 * parameter names — and records each call: the marker script must never run, through registration, the check route,
 * the host monitor (workers running), or a create on a provider without a host.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { auditLog, companies, hosts, providerOfferings, providers, users } from '../../db/schema.ts';
import { EGRESS_REFUSED_MESSAGE } from '../../lib/egress.ts';
import { URI_REFUSED } from '../../providers/libvirt/host-connection.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { HOST_CONNECTS_PER_MINUTE } from './catalog.routes.ts';

const c = routes.resellerCatalog;
let t: TestApp;
let dir: string;
let marker: string;
let virshLog: string;
let standIn: string;
let listener: net.Server;
let listenerPort: number;
let connections = 0;
let ownerA: TestClient;
let ownerB: TestClient;
let customerA: TestClient;
let libvirtA: number;
let libvirtB: number;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

/** Names the tests resolve without DNS: a public address nothing is asked at (the stand-in virsh connects nowhere). */
const resolver = (host: string) =>
  Promise.resolve(host === 'kvm1.example.net' ? [{ address: '1.1.1.1', family: 4 }] : []);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-uri-attacks-'));
  marker = path.join(dir, 'pwned');
  virshLog = path.join(dir, 'virsh-calls');
  const script = path.join(dir, 'evil.sh');
  await writeFile(script, `#!/bin/sh\ntouch ${marker}\n`);
  await chmod(script, 0o755);
  // libvirt's behaviour for the URIs that matter here: it runs what they name. Every call is recorded.
  standIn = path.join(dir, 'virsh');
  await writeFile(
    standIn,
    [
      '#!/bin/sh',
      `echo "$*" >> ${virshLog}`,
      'uri="$3"',
      'for p in command netcat socket keyfile; do',
      '  v=$(printf %s "$uri" | sed -n "s/.*[?&]$p=\\([^&]*\\).*/\\1/p")',
      '  [ -n "$v" ] && [ -x "$v" ] && "$v"',
      'done',
      'echo "error: failed to connect to the hypervisor" >&2',
      'echo "error: Cannot recv data: Connection refused" >&2',
      'exit 1',
    ].join('\n'),
  );
  await chmod(standIn, 0o755);
  listener = net.createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.9', r));
  listenerPort = (listener.address() as net.AddressInfo).port;

  t = await createTestApp({ env: { VM_HOST_CHECK_INTERVAL_MS: '100' }, resolver });
  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [adminCompany] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const resellerA = adminCompany!.resellerId;
  const other = await createOtherCompany(t);
  const [otherCompany] = await t.db.select().from(companies).where(eq(companies.id, other.companyId));
  const resellerB = otherCompany!.resellerId;
  const staff = await t.db
    .insert(companies)
    .values([
      { resellerId: resellerA, name: 'Staff A', kind: 'staff' },
      { resellerId: resellerB, name: 'Staff B', kind: 'staff' },
    ])
    .returning();
  await createUser(t, staff[0]!.id, 'owner@a.example', { staffRole: 'owner' });
  await createUser(t, staff[1]!.id, 'owner@b.example', { staffRole: 'owner' });
  [ownerA, ownerB, customerA] = await Promise.all([
    signIn(t, 'owner@a.example', PASSWORD),
    signIn(t, 'owner@b.example', PASSWORD),
    signIn(t),
  ]);
  catalog = await seededCatalog(customerA);
  const settings = { virshBinary: standIn };
  [libvirtA, libvirtB] = (
    await t.db
      .insert(providers)
      .values([
        { name: 'A libvirt', driver: 'libvirt', resellerId: resellerA, settings },
        { name: 'B libvirt', driver: 'libvirt', resellerId: resellerB, settings },
      ])
      .returning()
  ).map((p) => p.id) as [number, number];
  t.portal.startWorkers();
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => listener.close(r));
  await rm(dir, { recursive: true, force: true });
});

const virshCalls = async () =>
  existsSync(virshLog) ? (await readFile(virshLog, 'utf8')).split('\n').filter(Boolean) : [];
const register = (client: TestClient, uri: string, extra: Record<string, unknown> = {}) =>
  client.call(c.registerHost, {
    body: {
      name: 'evil',
      uri,
      providerId: libvirtA,
      regionId: catalog.east.id,
      cpus: 4,
      ramGb: 8,
      diskGb: 100,
      ...extra,
    },
  });

describe('a URI that names a program never runs it', () => {
  const attacks = (script: string) => [
    `qemu+ext:///system?command=${script}`,
    `qemu+ext://kvm1.example.net/system?command=${script}`,
    `qemu+ssh://root@kvm1.example.net/system?command=${script}`,
    `qemu+ssh://root@kvm1.example.net/system?netcat=${script}`,
    `qemu+ssh://root@kvm1.example.net/system?socket=${script}`,
    `qemu+ssh://root@kvm1.example.net/system?keyfile=${script}`,
    `qemu+tls://kvm1.example.net/system?pkipath=${script}`,
    `qemu:///system?socket=${script}`,
    `qemu+unix:///system`,
    `test:///default`,
  ];

  it('refuses them at registration and at the check, with what to write instead', async () => {
    for (const uri of attacks(path.join(dir, 'evil.sh'))) {
      for (const res of [
        await register(ownerA, uri),
        await register(ownerA, uri, { cpus: undefined, ramGb: undefined, diskGb: undefined }),
        await ownerA.call(c.checkHost, { body: { uri } }),
      ]) {
        expect([uri, res.status]).toEqual([uri, 400]);
        expect(res.message).toMatch(/^(Use qemu\+ssh|Remove the \?)/);
        expect(res.message).not.toContain(dir);
      }
    }
    expect(existsSync(marker)).toBe(false);
    expect(await virshCalls()).toEqual([]);
    expect(await t.db.select().from(hosts)).toEqual([]);
  });

  it('never runs a stored one through the host monitor: marked refused, disabled ones left alone', async () => {
    // Rows stored before the fix (or written around it): they must never be executed.
    const base = { providerId: libvirtA, regionId: catalog.east.id, cpus: 4, ramGb: 8, diskGb: 100 };
    const rows = await t.db
      .insert(hosts)
      .values([
        ...attacks(path.join(dir, 'evil.sh')).map((uri, i) => ({
          ...base,
          name: `legacy-${i}`,
          uri,
          lastSeenAt: new Date(),
        })),
        { ...base, name: 'legacy-off', uri: `qemu+ext:///system?command=${path.join(dir, 'evil.sh')}`, enabled: false },
      ])
      .returning();
    await expect
      .poll(async () => (await t.db.select().from(hosts)).filter((h) => h.lastError === URI_REFUSED).length, {
        timeout: 10_000,
      })
      .toBe(rows.length - 1);
    // A few more rounds of the monitor (every 100 ms).
    await new Promise((r) => setTimeout(r, 1000));
    expect(existsSync(marker)).toBe(false);
    expect(await virshCalls()).toEqual([]);
    const off = (await t.db.select().from(hosts)).find((h) => h.name === 'legacy-off');
    expect(off).toMatchObject({ lastError: null });
    // The reseller sees why, and removes them (it had no way to before).
    const listed = (await ownerA.call(c.listHosts)).data.hosts;
    expect(listed.filter((h) => h.lastError === URI_REFUSED)).toHaveLength(rows.length - 1);
    for (const row of rows) {
      expect((await ownerB.call(c.deleteHost, { params: { id: row.id } })).status).toBe(404);
      expect((await ownerA.call(c.deleteHost, { params: { id: row.id } })).status).toBe(200);
    }
    expect(await t.db.select().from(hosts)).toEqual([]);
    expect((await t.db.select().from(auditLog).where(eq(auditLog.action, 'host.remove'))).length).toBe(rows.length);
  });
});

describe('a URI that names a place the operator did not allow is never connected to', () => {
  it('refuses qemu+tcp (not enabled) and loopback over ssh, and the listener sees nothing', async () => {
    const tcp = await register(ownerA, `qemu+tcp://127.0.0.9:${listenerPort}/system`);
    expect(tcp.status).toBe(400);
    expect(tcp.message).toBe('Use qemu+ssh://user@host[:port]/system or qemu+tls://host[:port]/system');
    for (const res of [
      await ownerA.call(c.checkHost, { body: { uri: `qemu+ssh://root@127.0.0.9:${listenerPort}/system` } }),
      await register(ownerA, `qemu+ssh://root@127.0.0.9:${listenerPort}/system`, {
        hostKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
      }),
      await register(ownerA, `qemu+tls://127.0.0.9:${listenerPort}/system`),
      await register(ownerA, `qemu+tls://localhost:${listenerPort}/system`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.message).toBe(EGRESS_REFUSED_MESSAGE);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(connections).toBe(0);
    expect(await virshCalls()).toEqual([]);
  });

  it('asks for the checked fingerprint before anything connects over ssh', async () => {
    const res = await register(ownerA, `qemu+ssh://root@127.0.0.9:${listenerPort}/system`);
    expect(res.status).toBe(400);
    expect(res.message).toBe(CATALOG_TEXT.hostKeyFingerprint);
    expect(connections).toBe(0);
  });

  it('tells the reseller what to check, never what virsh or ssh answered', async () => {
    // An allowed host (a public address): the stand-in answers as libvirt does for a closed port.
    const uri = 'qemu+tls://kvm1.example.net/system';
    const probe = await register(ownerA, uri, { cpus: undefined, ramGb: undefined, diskGb: undefined });
    expect(probe.status).toBe(400);
    expect(probe.message).toMatch(/^The host did not answer/);
    const saved = await register(ownerA, uri);
    expect(saved.status).toBe(200);
    expect(saved.data).toMatchObject({ health: 'unreachable', hostKeyFingerprint: null });
    await new Promise((r) => setTimeout(r, 500));
    const texts = JSON.stringify([probe, saved, (await ownerA.call(c.listHosts)).data]);
    expect(texts).not.toMatch(/Connection refused|End of file|hypervisor|virsh/i);
    expect((await virshCalls()).every((l) => l.includes('qemu+tls://kvm1.example.net/system'))).toBe(true);
    expect((await ownerA.call(c.deleteHost, { params: { id: saved.data.id } })).status).toBe(200);
  });
});

it("a libvirt provider without a host is full: a create never reaches the portal's own libvirt", async () => {
  await t.db
    .insert(providerOfferings)
    .values({ providerId: libvirtA, regionId: catalog.east.id, configurationId: catalog.micro.id });
  const before = (await virshCalls()).length;
  const res = await customerA.call(routes.vms.create, {
    body: { ...catalog.createBody('nowhere'), providerId: libvirtA },
  });
  expect(res.status).toBe(400);
  expect(res.message).toBe(
    'No host in US East has room for Micro (2 cores, 4 GB RAM, 80 GB disk) now (hosts: none registered)',
  );
  await new Promise((r) => setTimeout(r, 500));
  expect((await virshCalls()).slice(before).filter((l) => l.includes('qemu:///'))).toEqual([]);
  expect((await virshCalls()).length).toBe(before);
});

it('the reseller area shows the portal key, one per reseller', async () => {
  const a = (await ownerA.call(c.listHosts)).data.publicKey;
  const b = (await ownerB.call(c.listHosts)).data.publicKey;
  expect(a).toMatch(/^ssh-ed25519 [A-Za-z0-9+/]+=* irontech-portal-reseller-\d+$/);
  expect(b).not.toBe(a);
  expect((await ownerA.call(c.listHosts)).data.publicKey).toBe(a);
  expect(libvirtB).toBeGreaterThan(0);
});

it("host checks and registrations are limited per reseller: the portal is no tenant's connection pump", async () => {
  const answers: number[] = [];
  for (let i = 0; i <= HOST_CONNECTS_PER_MINUTE; i++)
    answers.push((await ownerB.call(c.checkHost, { body: { uri: 'qemu+ssh://root@10.0.0.1/system' } })).status);
  expect(answers.slice(0, HOST_CONNECTS_PER_MINUTE).every((s) => s === 400)).toBe(true);
  const limited = await ownerB.call(c.registerHost, {
    body: {
      name: 'b-limited',
      uri: 'qemu+tls://10.0.0.1/system',
      providerId: libvirtB,
      regionId: catalog.east.id,
    },
  });
  expect([answers[HOST_CONNECTS_PER_MINUTE], limited.status]).toEqual([429, 429]);
  expect(limited.message).toBe(CATALOG_TEXT.hostChecksLimited);
  // Another reseller is not held back.
  expect((await ownerA.call(c.checkHost, { body: { uri: 'qemu+ssh://root@10.0.0.1/system' } })).status).toBe(400);
  // A URI refused as written costs nothing and is not counted.
  expect((await ownerB.call(c.checkHost, { body: { uri: 'qemu:///system' } })).status).toBe(400);
});
