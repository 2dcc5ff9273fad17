/**
 * The customer's SSH keys and first-boot script (issue 23 item 5), through the API on both engines: the key store
 * (add, list with the fingerprint, remove; RSA-1024 and malformed keys refused with their messages; names and keys
 * unique per user; a per-user limit; another user's key is 404, even for a company administrator), and a create
 * that takes chosen keys and user-data: stored as copies on the VM, shown on it, handed to the driver (the
 * simulator's boot log says what cloud-init got), refused with a 400 for another user's key or bad user-data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { SSH_KEYS, USER_DATA_MAX_BYTES } from '@portal/contract/constants';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { routes } from '@portal/contract/routes';
import type { SshKey } from '@portal/contract/ssh-keys';
import { auditLog, virtualMachines } from '../../db/schema.ts';
import { sshFingerprint } from '../../lib/ssh-keys.ts';
import { createTestApp, signIn, type TestApp, type TestClient } from '../../../test/harness.ts';
import { createOtherCompany, createUser, PASSWORD } from '../../../test/fixtures.ts';
import { seededCatalog } from '../../../test/vm-catalog.ts';
import { ecdsaKeyLine, ed25519KeyLine, rsaKeyLine } from '../../../test/ssh-key-lines.ts';

const R = routes.sshKeys;
let t: TestApp;
let admin: TestClient;
let colleague: TestClient;
let outsider: TestClient;
let catalog: Awaited<ReturnType<typeof seededCatalog>>;

beforeAll(async () => {
  t = await createTestApp({
    env: { SIMULATOR_STEP_MS: '20', VM_RUNNER_POLL_MS: '20', VM_RECONCILE_INTERVAL_MS: '100000' },
  });
  t.portal.startWorkers();
  // A colleague who is a company administrator too: administration of the company is not access to a user's keys.
  await createUser(t, 1, 'keys-colleague@example.com', { isCompanyAdmin: true });
  await createOtherCompany(t, 'keys-boss@other.example');
  [admin, colleague, outsider] = await Promise.all([
    signIn(t),
    signIn(t, 'keys-colleague@example.com', PASSWORD),
    signIn(t, 'keys-boss@other.example', PASSWORD),
  ]);
  catalog = await seededCatalog(admin);
});
afterAll(async () => {
  await t.close();
});

async function addKey(client: TestClient, name: string, publicKey: string): Promise<SshKey> {
  const res = await client.call(R.add, { body: { name, publicKey } });
  expect([res.status, res.message]).toEqual([200, SSH_KEY_TEXT.added(name)]);
  return res.data;
}
const listKeys = async (client: TestClient) => (await client.call(R.list)).data;

async function runningVm(id: number) {
  for (let i = 0; i < 200; i++) {
    const res = await admin.call(routes.vms.details, { params: { id } });
    if (res.data.status === 'Running') return res.data;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`VM ${id} did not reach Running`);
}

describe('the key store', () => {
  it('adds keys of each accepted type with the fingerprint ssh-keygen prints, lists them by name, removes one', async () => {
    const ed = ed25519KeyLine('me@laptop');
    const rsa = rsaKeyLine(2048, '');
    const ec = ecdsaKeyLine('nistp384');
    const laptop = await addKey(admin, 'laptop', `  ${ed}\n`);
    expect(laptop).toMatchObject({ name: 'laptop', type: 'ssh-ed25519', bits: 256, publicKey: ed });
    expect(laptop.fingerprint).toBe(sshFingerprint(ed));
    expect(laptop.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    await addKey(admin, 'Build server', rsa);
    await addKey(admin, 'yubikey', ec);
    const listed = await listKeys(admin);
    expect(listed.map((k) => [k.name, k.type, k.bits])).toEqual([
      ['Build server', 'ssh-rsa', 2048],
      ['laptop', 'ssh-ed25519', 256],
      ['yubikey', 'ecdsa-sha2-nistp384', 384],
    ]);

    const yubikey = listed.find((k) => k.name === 'yubikey')!;
    const removed = await admin.call(R.remove, { params: { id: yubikey.id } });
    expect([removed.status, removed.message]).toEqual([200, SSH_KEY_TEXT.removed('yubikey')]);
    expect((await listKeys(admin)).map((k) => k.name)).toEqual(['Build server', 'laptop']);
    const again = await admin.call(R.remove, { params: { id: yubikey.id } });
    expect([again.status, again.message]).toEqual([404, SSH_KEY_TEXT.notFound]);

    const audited = await t.db
      .select({ action: auditLog.action, after: auditLog.after, before: auditLog.before })
      .from(auditLog)
      .where(and(eq(auditLog.targetType, 'sshKey'), eq(auditLog.targetId, String(yubikey.id))));
    expect(audited.map((a) => a.action).sort()).toEqual(['user.sshKey.add', 'user.sshKey.remove']);
  });

  it('refuses an RSA-1024 key, a malformed key, a private key and a DSA key with their messages (400)', async () => {
    const good = ed25519KeyLine();
    for (const [publicKey, message] of [
      [rsaKeyLine(1024), SSH_KEY_TEXT.rsaTooShort],
      ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBroken', SSH_KEY_TEXT.notAKey],
      [`${good.slice(0, 40)}`, SSH_KEY_TEXT.notAKey],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----', SSH_KEY_TEXT.privateKey],
      ['', SSH_KEY_TEXT.keyRequired],
    ] as const) {
      const res = await admin.call(R.add, { body: { name: 'refused', publicKey } });
      expect([res.status, res.message], publicKey).toEqual([400, message]);
    }
    for (const [body, message] of [
      [{ name: '   ', publicKey: good }, SSH_KEY_TEXT.nameRequired],
      [{ name: 'x'.repeat(101), publicKey: good }, SSH_KEY_TEXT.nameTooLong],
      [{ name: 'nul\u0000', publicKey: good }, 'Text must not contain control characters'],
      [{ publicKey: good }, SSH_KEY_TEXT.nameRequired],
      [{ name: 'x', publicKey: 42 }, SSH_KEY_TEXT.keyRequired],
    ] as const) {
      const res = await admin.call(R.add, { body });
      expect([res.status, res.message], JSON.stringify(body)).toEqual([400, message]);
    }
    expect((await listKeys(admin)).some((k) => k.name === 'refused')).toBe(false);
  });

  it('keeps names and keys unique per user (409), not across users', async () => {
    const line = ed25519KeyLine('shared');
    await addKey(admin, 'shared key', line);
    const sameName = await admin.call(R.add, { body: { name: 'shared key', publicKey: ed25519KeyLine() } });
    expect([sameName.status, sameName.message]).toEqual([409, SSH_KEY_TEXT.nameTaken]);
    const sameKey = await admin.call(R.add, {
      body: { name: 'another name', publicKey: `${line.split(' ').slice(0, 2).join(' ')} other comment` },
    });
    expect([sameKey.status, sameKey.message]).toEqual([409, SSH_KEY_TEXT.duplicate('shared key')]);
    // Another user may hold the same key under the same name.
    await addKey(colleague, 'shared key', line);
  });

  it("hides each user's keys from everyone else: another user's key id is 404 (a company administrator's too)", async () => {
    const mine = await addKey(admin, 'private', ed25519KeyLine());
    expect((await listKeys(colleague)).some((k) => k.id === mine.id)).toBe(false);
    expect((await listKeys(outsider)).some((k) => k.id === mine.id)).toBe(false);
    for (const other of [colleague, outsider]) {
      const res = await other.call(R.remove, { params: { id: mine.id } });
      expect([res.status, res.message]).toEqual([404, SSH_KEY_TEXT.notFound]);
    }
    expect((await listKeys(admin)).some((k) => k.id === mine.id)).toBe(true);
    expect((await admin.call(R.remove, { params: { id: 'abc' } })).status).toBe(400);
  });

  it(`keeps at most ${SSH_KEYS.perUser} keys per user, even when adds race`, async () => {
    const user = await createUser(t, 1, 'keys-many@example.com');
    const many = await signIn(t, user.email, PASSWORD);
    const answers = await Promise.all(
      Array.from({ length: SSH_KEYS.perUser + 5 }, (_, i) =>
        many.call(R.add, { body: { name: `key ${i}`, publicKey: ed25519KeyLine() } }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(SSH_KEYS.perUser);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => [a.status, a.message])).toEqual(
      Array.from({ length: 5 }, () => [409, SSH_KEY_TEXT.limit(SSH_KEYS.perUser)]),
    );
    expect(await listKeys(many)).toHaveLength(SSH_KEYS.perUser);
  });
});

describe('a create with chosen keys and user-data', () => {
  it('copies the keys onto the VM, shows them and the SSH user on it, hands them and the user-data to the driver', async () => {
    const laptopLine = ed25519KeyLine('me@laptop');
    const laptop = await addKey(admin, 'create laptop', laptopLine);
    const build = await addKey(admin, 'create build', rsaKeyLine(2048, 'ci@build'));
    const userData = '#cloud-config\nruncmd:\n  - [sh, -c, "echo hello > /root/first-boot"]\n';
    const res = await admin.call(routes.vms.create, {
      body: { ...catalog.createBody('keys-vm'), sshKeyIds: [build.id, laptop.id, build.id], userData },
    });
    expect(res.status).toBe(200);
    const [id] = res.data.ids;
    const details = await runningVm(id!);
    const [row] = await t.db.select().from(virtualMachines).where(eq(virtualMachines.id, id!));
    expect(details.access).toEqual({
      sshUsername: row!.sshUsername,
      keys: [
        { name: SSH_KEY_TEXT.portalKey, fingerprint: sshFingerprint(row!.publicKey!), portal: true },
        { name: 'create build', fingerprint: build.fingerprint, portal: false },
        { name: 'create laptop', fingerprint: laptop.fingerprint, portal: false },
      ],
      userData: { bytes: Buffer.byteLength(userData), kind: 'cloud-config' },
    });
    // Copies, in the order chosen; the user-data sealed at rest.
    expect(row!.sshKeys).toEqual([
      { name: 'create build', fingerprint: build.fingerprint, publicKey: build.publicKey },
      { name: 'create laptop', fingerprint: laptop.fingerprint, publicKey: laptopLine },
    ]);
    expect(row!.userData).toMatch(/^v1:/);
    expect(row!.userData).not.toContain('first-boot');

    // The simulator's boot log says what cloud-init was given.
    const url = (await admin.call(routes.vms.getConsole, { params: { id: id! } })).data.consoleUrl;
    const page = (await admin.raw('GET', url)).message;
    expect(page).toContain(`cloud-init: 3 authorized keys installed for ${row!.sshUsername}`);
    expect(page).toContain('cloud-init: authorized key ssh-ed25519 me@laptop');
    expect(page).toContain('cloud-init: authorized key ssh-rsa ci@build');
    expect(page).toContain(`cloud-init: user-data (${Buffer.byteLength(userData)} bytes, #cloud-config) applied`);

    // Removing a key from the store later does not change the machine.
    await admin.call(R.remove, { params: { id: laptop.id } });
    const after = (await admin.call(routes.vms.details, { params: { id: id! } })).data;
    expect(after.access.keys.map((k) => k.name)).toEqual([SSH_KEY_TEXT.portalKey, 'create build', 'create laptop']);
  });

  it('without keys or user-data: the portal key alone, no user-data; a #! script is a script', async () => {
    const plain = (await admin.call(routes.vms.create, { body: catalog.createBody('keys-plain') })).data.ids[0]!;
    const script = (
      await admin.call(routes.vms.create, {
        body: { ...catalog.createBody('keys-script'), sshKeyIds: [], userData: '#!/bin/sh\ntouch /x\n' },
      })
    ).data.ids[0]!;
    const plainAccess = (await runningVm(plain)).access;
    expect(plainAccess.keys.map((k) => k.portal)).toEqual([true]);
    expect(plainAccess.userData).toBeNull();
    expect((await runningVm(script)).access.userData).toEqual({ bytes: 19, kind: 'script' });
  });

  it("refuses another user's key, a missing key and bad user-data with a clear 400, and makes nothing", async () => {
    const colleagues = await addKey(colleague, 'colleague key', ed25519KeyLine());
    const adminsKey = (await listKeys(admin))[0]!;
    const count = async () => (await t.db.select({ id: virtualMachines.id }).from(virtualMachines)).length;
    const before = await count();
    for (const [extra, message] of [
      [{ sshKeyIds: [colleagues.id] }, SSH_KEY_TEXT.keyNotYours],
      [{ sshKeyIds: [2_000_000] }, SSH_KEY_TEXT.keyNotYours],
      [{ sshKeyIds: ['x'] }, 'Id must be a number'],
      [{ userData: 'echo hello' }, SSH_KEY_TEXT.userDataFormat],
      [
        { userData: `#!/bin/sh\n${'#'.repeat(USER_DATA_MAX_BYTES)}` },
        SSH_KEY_TEXT.userDataTooLarge(USER_DATA_MAX_BYTES),
      ],
      [{ userData: '#!/bin/sh\n\u0000' }, 'Text must not contain control characters'],
      [{ userData: 42 }, ''],
    ] as const) {
      const res = await admin.call(routes.vms.create, { body: { ...catalog.createBody('keys-refused'), ...extra } });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.message).toContain(message);
    }
    // Another company's user cannot use the admin's key either.
    const foreign = await outsider.call(routes.vms.create, {
      body: { ...catalog.createBody('keys-foreign'), sshKeyIds: [adminsKey.id] },
    });
    expect(foreign.status).toBe(400);
    expect(await count()).toBe(before);
  });
});
