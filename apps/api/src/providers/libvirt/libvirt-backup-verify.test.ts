/**
 * Backup verification's throwaway boot (backup-verify.ts; decision 0024) against the test's private libvirtd, on the
 * busybox fixture, whose guest has no agent (`readyWhen: lease`): a backup of it is proven by the copy booting to a
 * DHCP lease on the isolated network, and the answer says honestly that no marker was read; a copy whose checksum
 * holds but that does not boot (its boot sector zeroed before the take) is flagged "did not boot"; an incremental
 * backup (a qcow2 over the previous one's file) boots through its chain. Nothing of the throwaway machine is left
 * either way. The real Debian image's marker path is libvirt-debian.test.ts's.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  FIXTURE_BOOT_TIMEOUT_MS,
  LIBVIRT_TEST_DIR,
  startLibvirtDaemon,
  type LibvirtDaemon,
} from '../../../test/libvirt-daemon.ts';
import type { MachineSpec } from '../provider.ts';
import { markerVolume, VERIFY_DOMAIN_RE } from './backup-verify.ts';
import { createLibvirtDriver, type LibvirtDriver, type LibvirtSettings } from './libvirt.ts';
import { REF_RE, volumes } from './names.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-bv';
const BACKUP_POOL = `${POOL}-backups`;
const POOL_DIR = path.join(LIBVIRT_TEST_DIR, 'bv-pool');
const BACKUP_DIR = path.join(LIBVIRT_TEST_DIR, 'bv-pool-backups');
const NETWORK = 'irontest-bvnet';
const VERIFY_NETWORK = 'irontest-bvverify';

let daemon: LibvirtDaemon;
let driver: LibvirtDriver;
const started = Date.now();
const times: Record<string, number> = {};
const virsh = (args: string[]) => daemon.virsh(daemon.socketUri, args);

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  await rm(POOL_DIR, { recursive: true, force: true });
  await rm(BACKUP_DIR, { recursive: true, force: true });
  driver = createLibvirtDriver(settings());
  await driver.health();
}, 600_000);

function settings(extra: Partial<LibvirtSettings> = {}): LibvirtSettings {
  return {
    uri: daemon.socketUri,
    pool: { name: POOL, path: POOL_DIR },
    network: { name: NETWORK, bridge: 'irontestbv0', cidr: '10.231.148.0/24' },
    verifyNetwork: { name: VERIFY_NETWORK, bridge: 'irontestbv1', cidr: '10.231.149.0/24' },
    verifyRamMib: 256,
    // Long enough for the fixture's boot under load, as its other boots get (the copy that cannot boot is given less:
    // its own driver). 60 s was not, once: beside two browser tests at once the incremental's throwaway boot took no
    // lease in time (session 22's ci16; the full's took 67 s with its take).
    verifyBootTimeoutMs: 180_000,
    guestImage: 'test-fixture',
    bootTimeoutMs: FIXTURE_BOOT_TIMEOUT_MS,
    stopTimeoutMs: 5_000,
    deleteGraceMs: 0,
    ...extra,
  };
}

afterAll(async () => {
  try {
    driver?.close?.();
    await daemon?.stop({
      domainPattern: new RegExp(`${REF_RE.source}|${VERIFY_DOMAIN_RE.source}`),
      networks: [NETWORK, VERIFY_NETWORK],
      pools: [POOL, BACKUP_POOL],
    });
  } finally {
    await rm(POOL_DIR, { recursive: true, force: true });
    await rm(BACKUP_DIR, { recursive: true, force: true });
  }
  console.log(
    `libvirt-backup-verify.test.ts wall time: ${((Date.now() - started) / 1000).toFixed(1)} s; ${JSON.stringify(times)}`,
  );
}, 120_000);

async function nothingLeft() {
  expect((await virsh(['list', '--all', '--name'])).split('\n').filter((n) => /verify/.test(n))).toEqual([]);
  await virsh(['pool-refresh', POOL]);
  expect(await virsh(['vol-list', '--pool', POOL])).not.toMatch(/irontech-verify-/);
}

it(
  'proves a backup of a guest without an agent by its boot to a lease (saying no marker was read), and flags a copy that does not boot',
  { timeout: 900_000 },
  async () => {
    const spec: MachineSpec = {
      key: `libvirt-backup-verify-${process.pid}-${Date.now()}`,
      name: 'Verified',
      image: 'Debian 12',
      cpu: 1,
      ramGb: 0.25,
      diskGb: 1,
      region: 'US East',
      username: 'root',
      publicKey: '',
      password: 'secret-1',
    };
    const { ref } = await driver.create(spec);

    // Running: no agent, so no marker is written or recorded.
    await driver.backupTake!(ref, 'portal-backup-1');
    await virsh(['pool-refresh', BACKUP_POOL]);
    expect(await virsh(['vol-list', '--pool', BACKUP_POOL])).not.toContain(markerVolume('portal-backup-1'));
    let at = Date.now();
    const proof = await driver.backupProve!('portal-backup-1');
    times.provenSeconds = (Date.now() - at) / 1000;
    expect(proof.error).toBeNull();
    expect(proof.note).toMatch(/booted \(it took a network address on an isolated network\); its guest has no agent/);
    await nothingLeft();
    // The isolated network: nothing forwarded off the host.
    expect(await virsh(['net-dumpxml', VERIFY_NETWORK])).not.toContain('<forward');

    // An incremental take (decision 0022: a qcow2 over the previous backup's file): the throwaway boots the chain.
    const incremental = await driver.backupTake!(ref, 'portal-backup-3');
    expect(incremental.incremental).toBe(true);
    at = Date.now();
    expect(await driver.backupProve!('portal-backup-3')).toMatchObject({ error: null, note: expect.any(String) });
    times.incrementalProvenSeconds = (Date.now() - at) / 1000;
    await nothingLeft();

    // A copy whose bytes are intact but which cannot boot: the boot sector zeroed before a powered-off take.
    await driver.stop(ref);
    await execFileP('qemu-io', ['-f', 'qcow2', '-c', 'write -z 0 1M', path.join(POOL_DIR, volumes(ref).disk)]);
    await driver.backupTake!(ref, 'portal-backup-2');
    expect(await driver.backupVerify!('portal-backup-2')).toBeNull();
    at = Date.now();
    // Its own driver with a shorter wait (the copy cannot answer, however long it is given).
    const impatient = createLibvirtDriver(settings({ verifyBootTimeoutMs: 20_000 }));
    const dead = await impatient.backupProve!('portal-backup-2');
    impatient.close?.();
    times.unbootableFlaggedSeconds = (Date.now() - at) / 1000;
    expect(dead).toEqual({ error: 'The copy did not boot: it took no network address within 20 s', note: null });
    await nothingLeft();

    // The first backup is still proven: the second's failure touched nothing of it.
    expect((await driver.backupProve!('portal-backup-1')).error).toBeNull();
    await driver.backupDelete!('portal-backup-3');
    await driver.backupDelete!('portal-backup-1');
    await driver.backupDelete!('portal-backup-2');
    await driver.delete(ref);
    await nothingLeft();
  },
);
