/**
 * A reseller's qemu+ssh host end to end, with real libvirt and a real sshd (issue 21: credentials are the portal's,
 * the host key is pinned after the reseller confirmed it). The test's sshd on 127.0.0.2 stands for a host whose
 * libvirtd listens at the standard socket: whatever libvirt's ssh transport asks to run there, it gets `nc -U` to the
 * test daemon's socket. The operator allows the management network 127.0.0.2/32 (EGRESS_ALLOW), as a deployment with
 * hosts on a private network would.
 *
 * Through the reseller area's API: the check route answers the portal's key and the host's real fingerprint; a
 * registration before the key is installed is refused with advice, not ssh's words; once installed, registration reads
 * the capacity from the daemon over ssh and the host monitor keeps it healthy; a host that shows another key than the
 * pinned one (a man in the middle, a reinstalled host) is refused by the portal's ssh, never silently trusted.
 */
import { execFile } from 'node:child_process';
import { appendFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { routes } from '@portal/contract/routes';
import { companies, hosts, providers, regions, users } from '../../db/schema.ts';
import { createUser, PASSWORD } from '../../../test/fixtures.ts';
import { ADMIN, createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { LIBVIRT_TEST_DIR, startLibvirtDaemon, type LibvirtDaemon } from '../../../test/libvirt-daemon.ts';
import { startTestSshd, type TestSshd } from '../../../test/test-sshd.ts';

const execFileP = promisify(execFile);
const c = routes.resellerCatalog;
const POOL = 'irontest-reseller';
const NETWORK = 'irontest-reseller';

let daemon: LibvirtDaemon;
let sshd: TestSshd;
let t: TestApp;
let owner: TestClient;
let providerId = 0;
let regionId = 0;
let uri = '';
let fingerprint = '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  sshd = await startTestSshd('127.0.0.2', { forceCommand: `nc -U ${daemon.socketPath}` });
  uri = `qemu+ssh://root@${sshd.address}:${sshd.port}/system`;
  t = await createTestApp({ env: { EGRESS_ALLOW: '127.0.0.2/32', VM_HOST_CHECK_INTERVAL_MS: '300' } });
  t.portal.startWorkers();

  const [admin] = await t.db.select().from(users).where(eq(users.email, ADMIN.email));
  const [company] = await t.db.select().from(companies).where(eq(companies.id, admin!.companyId));
  const [staff] = await t.db
    .insert(companies)
    .values({ resellerId: company!.resellerId, name: 'Staff', kind: 'staff' })
    .returning();
  await createUser(t, staff!.id, 'owner@ssh.example', { staffRole: 'owner' });
  owner = await signIn(t, 'owner@ssh.example', PASSWORD);

  const created = await owner.call(c.createProvider, { body: { name: 'Own KVM', driver: 'libvirt', enabled: true } });
  expect(created.status).toBe(200);
  providerId = created.data.id;
  // Where this provider keeps its disks and its guests' network on each host (set by the operator, as issue 23 notes).
  await t.db
    .update(providers)
    .set({
      settings: {
        pool: { name: POOL, path: path.join(LIBVIRT_TEST_DIR, POOL) },
        network: { name: NETWORK, bridge: 'irontestr0', cidr: '10.231.81.0/24' },
        uploadGuestImage: false,
      },
    })
    .where(eq(providers.id, providerId));
  regionId = (await t.db.select().from(regions))[0]!.id;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sshd?.stop();
  await daemon?.stop({ domainPattern: /^$/, networks: [NETWORK], pools: [POOL] });
});

it("the check answers the portal's key and the host's own fingerprint", async () => {
  const res = await owner.call(c.checkHost, { body: { uri } });
  expect(res.status).toBe(200);
  expect(res.data.publicKey).toMatch(/^ssh-ed25519 AAAA[0-9A-Za-z+/=]+/);
  // OpenSSH's own word on the key the sshd serves.
  const keyFile = path.join(LIBVIRT_TEST_DIR, 'reseller-host-key.pub');
  await writeFile(keyFile, `${sshd.hostPublicKey}\n`);
  const keygen = (await execFileP('ssh-keygen', ['-l', '-E', 'sha256', '-f', keyFile])).stdout;
  const expected = /(SHA256:[A-Za-z0-9+/]{43})/.exec(keygen)![1]!;
  expect(res.data.fingerprint).toBe(expected);
  expect(res.data.hostKey).toBe(sshd.hostPublicKey.split(/\s+/).slice(0, 2).join(' '));
  fingerprint = expected;
}, 60_000);

it('before its key is installed the host is refused with advice, never ssh words', async () => {
  const res = await owner.call(c.registerHost, {
    body: { name: 'ssh-host', uri, providerId, regionId, hostKeyFingerprint: fingerprint },
  });
  expect(res.status).toBe(400);
  expect(res.message).toMatch(/portal's public key/);
  expect(res.message).not.toMatch(/Permission denied|publickey|End of file|refused/i);
}, 60_000);

it('a fingerprint other than the one the host shows is refused', async () => {
  const res = await owner.call(c.registerHost, {
    body: { name: 'ssh-host', uri, providerId, regionId, hostKeyFingerprint: `SHA256:${'A'.repeat(43)}` },
  });
  expect(res.status).toBe(400);
  expect(res.message).toBe(CATALOG_TEXT.hostKeyChanged);
}, 60_000);

it('with the portal key installed, registration reads the capacity over ssh and the monitor keeps it healthy', async () => {
  const checked = await owner.call(c.checkHost, { body: { uri } });
  await appendFile(sshd.authorizedKeysFile, `${checked.data.publicKey}\n`);
  const res = await owner.call(c.registerHost, {
    body: { name: 'ssh-host', uri, providerId, regionId, hostKeyFingerprint: fingerprint },
  });
  expect(res.status, res.message).toBe(200);
  // Read from the daemon through the portal's ssh: no capacity was given.
  expect(res.data.cpus).toBeGreaterThan(0);
  expect(res.data.ramGb).toBeGreaterThan(0);
  expect(res.data.uri).toBe(uri);
  const [row] = await t.db.select().from(hosts).where(eq(hosts.name, 'ssh-host'));
  expect(row!.hostKey).toBe(checked.data.hostKey);
  const seenBefore = row!.lastSeenAt!.getTime();
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [now] = await t.db.select().from(hosts).where(eq(hosts.id, row!.id));
    if (now!.lastSeenAt!.getTime() > seenBefore && now!.lastError === null) break;
    if (Date.now() > deadline) throw new Error(`the host monitor did not see the host: ${now!.lastError}`);
    await sleep(200);
  }
  const list = await owner.call(c.listHosts);
  expect(list.data.hosts.find((h) => h.name === 'ssh-host')?.health).toBe('healthy');
}, 90_000);

it('a host showing another key than the pinned one is refused by the portal, not trusted', async () => {
  // As if the host (or whoever answers at its address now) presented another key: the pin no longer matches.
  const other = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBdn1Pyfv7Wn0sKtsP5D6AF4FlXcG1w7rGzB6NOyC7Qx';
  const [row] = await t.db.update(hosts).set({ hostKey: other }).where(eq(hosts.name, 'ssh-host')).returning();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = await owner.call(c.listHosts);
    const host = list.data.hosts.find((h) => h.id === row!.id)!;
    if (host.health === 'unreachable') {
      expect(host.lastError).toMatch(/portal's public key/);
      expect(host.lastError).not.toMatch(/REMOTE HOST IDENTIFICATION|Host key verification failed/);
      break;
    }
    if (Date.now() > deadline) throw new Error(`still ${host.health}: the changed key was accepted`);
    await sleep(300);
  }
}, 60_000);
