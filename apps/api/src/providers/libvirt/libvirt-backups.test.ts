/**
 * Backups in the libvirt driver (issue 24 item 2; docs/decisions/0022-libvirt-backups.md) against the test's private
 * libvirtd, proven at the disk level without waiting on the guest: patterns are written into the powered-off
 * machine's disk (`qemu-io` on its qcow2, the guest's view; QEMU's monitor refuses writes to a disk a running guest
 * holds) and read back from volumes downloaded through libvirt (`vol-download`, then `qemu-io -r` on the copy); the
 * machine is powered on for a running take without waiting for its boot. One busybox guest is reused through every step:
 * take running and powered off → restore in place → restore as a new machine → verify flags a corrupted copy →
 * an interrupted or failed take leaves nothing that looks complete, and a retry redoes it → incremental takes (10 MiB
 * changed: a small qcow2 over the full one), a failed incremental leaving the chain, restore of the incremental, delete
 * of its base merged into it → delete leaves nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
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
import { backupVolumes } from './backups.ts';
import { createLibvirtDriver, type LibvirtDriver, type LibvirtSettings } from './libvirt.ts';
import { macForKey, REF_RE, refForKey, uuidForKey, volumes } from './names.ts';
import { backupXml } from './xml.ts';

const execFileP = promisify(execFile);
const POOL = 'irontest-bk';
/** The default backup pool: the pool's name + "-backups" at a sibling path. */
const BACKUP_POOL = `${POOL}-backups`;
const POOL_DIR = path.join(LIBVIRT_TEST_DIR, 'bk-pool');
const BACKUP_DIR = path.join(LIBVIRT_TEST_DIR, 'bk-pool-backups');
const NETWORK = 'irontest-backup';
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
/** Where the marker pattern goes: past the image's data, 64 KiB. */
const MARK = { offset: GiB, length: 64 * 1024 };
/** Bulk data so a copy takes a moment (and measures something). */
const BULK = { offset: 256 * MiB, length: 512 * MiB };

let daemon: LibvirtDaemon;
let driver: LibvirtDriver;
let tmp = '';
let spec: MachineSpec;
let ref = '';
const started = Date.now();
const times: Record<string, number> = {};

function settings(extra: Partial<LibvirtSettings> = {}): LibvirtSettings {
  return {
    uri: daemon.socketUri,
    pool: { name: POOL, path: POOL_DIR },
    network: { name: NETWORK, bridge: 'irontestb0', cidr: '10.231.89.0/24' },
    guestImage: 'test-fixture',
    bootTimeoutMs: FIXTURE_BOOT_TIMEOUT_MS,
    stopTimeoutMs: 5_000,
    deleteGraceMs: 2_000,
    ...extra,
  };
}

const virsh = (args: string[]) => daemon.virsh(daemon.socketUri, args);

beforeAll(async () => {
  daemon = await startLibvirtDaemon();
  await rm(POOL_DIR, { recursive: true, force: true });
  await rm(BACKUP_DIR, { recursive: true, force: true });
  driver = createLibvirtDriver(settings());
  tmp = await mkdtemp(path.join(os.tmpdir(), 'libvirt-backups-'));
  await driver.health();
  spec = {
    key: `libvirt-backups-${process.pid}-${Date.now()}`,
    name: 'Backed up',
    image: 'Debian 12',
    cpu: 1,
    ramGb: 0.25,
    diskGb: 2,
    region: 'US East',
    username: 'root',
    publicKey: '',
    password: 'secret-1',
  };
}, 600_000);

afterAll(async () => {
  try {
    driver?.close?.();
    await daemon?.stop({ domainPattern: REF_RE, networks: [NETWORK], pools: [POOL, BACKUP_POOL] });
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    await rm(POOL_DIR, { recursive: true, force: true });
    await rm(BACKUP_DIR, { recursive: true, force: true });
  }
  console.log(`libvirt-backups.test.ts wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 120_000);

/** Writes `byte` over a region of the powered-off machine's disk, as the guest sees it (through its backing chain). */
async function writeDisk(domain: string, byte: number, region: { offset: number; length: number }) {
  expect(await driver.status(domain)).toBe('stopped');
  const file = path.join(POOL_DIR, volumes(domain).disk);
  const { stdout } = await execFileP('qemu-io', [
    '-f',
    'qcow2',
    '-c',
    `write -P 0x${byte.toString(16)} ${region.offset} ${region.length}`,
    file,
  ]);
  expect(stdout).toMatch(/wrote \d+\/\d+ bytes/);
}

/** Runs `act` as soon as the machine's backup job is seen running (looked for 400 times); answers whether it ran. */
async function whileCopying(act: () => Promise<unknown>, pollMs = 50): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    const job = await virsh(['domjobinfo', ref]).catch(() => '');
    if (/Operation:\s+Backup/.test(job)) {
      await act();
      return true;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return false;
}

/**
 * Starts a take of `name` and runs `act` while its copy runs; returns how the take ended (its error's message, or
 * "completed"). When the copy was done before `act` reached it (each virsh call is a process: under load the gap
 * between seeing the job and acting on it outgrew a ~1 s copy, once), the whole take and its checkpoint are removed
 * and the scenario runs again, up to five times: what is checked is a take interrupted mid-copy.
 */
async function interruptedTake(name: string, act: () => Promise<unknown>): Promise<string> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    if ((await driver.status(ref)) !== 'running') await powerOn(ref);
    const outcome = driver.backupTake!(ref, name).then(
      () => 'completed',
      (e: unknown) => (e instanceof Error ? e.message : String(e)),
    );
    const acted = await whileCopying(act).catch((e: Error) => {
      if (/no job is active/.test(e.message)) return false;
      throw e;
    });
    const result = await outcome;
    if (result !== 'completed') {
      expect(acted).toBe(true);
      return result;
    }
    await driver.backupDelete!(name);
    await virsh(['checkpoint-delete', ref, name]).catch(() => {});
  }
  throw new Error(`five takes of ${name} were done before they could be interrupted`);
}

/** Powers the machine on without waiting for its guest (the disk is what these tests look at). */
const powerOn = (domain: string) => virsh(['start', domain]);

/** Downloads a volume through libvirt into the test's directory. */
async function download(pool: string, vol: string): Promise<string> {
  const file = path.join(tmp, `${vol}-${Date.now()}`);
  await virsh(['vol-download', '--pool', pool, vol, file]);
  return file;
}

/** Whether the qcow2 `file` holds `byte` over the whole region (read as the guest sees it). */
async function holds(file: string, byte: number, region = MARK): Promise<boolean> {
  const { stdout } = await execFileP('qemu-io', [
    '-f',
    'qcow2',
    '-r',
    '-c',
    `read -P 0x${byte.toString(16)} ${region.offset} ${region.length}`,
    file,
  ]).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
  if (!/read \d+\/\d+ bytes/.test(stdout)) throw new Error(`qemu-io could not read ${file}: ${stdout}`);
  return !/Pattern verification failed/.test(stdout);
}

async function backupVolumesOnHost(): Promise<string[]> {
  await virsh(['pool-refresh', BACKUP_POOL]);
  return (await virsh(['vol-list', BACKUP_POOL]))
    .split('\n')
    .map((l) => l.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const out = await fn();
  times[label] = Date.now() - t0;
  return out;
}

it(
  'takes a backup of a running machine and of a powered-off one, each a whole qcow2 of that instant',
  { timeout: 600_000 },
  async () => {
    ref = (await driver.create(spec)).ref;
    expect(ref).toBe(refForKey(spec.key));
    await driver.forceStop(ref);
    await writeDisk(ref, 0x5a, BULK);
    await writeDisk(ref, 0x11, MARK);
    await powerOn(ref);

    const running = await timed('take running', () => driver.backupTake!(ref, 'portal-backup-1'));
    expect(running.incremental).toBe(false);
    expect(running.sizeBytes).toBeGreaterThan(BULK.length);
    // The busybox guest has no agent: nothing to freeze, a copy as a power cut would leave the disk (decision 0028).
    expect(running.consistency).toBe('crash-consistent');
    expect(running.frozenMs).toBeUndefined();
    // The guest ran on: no pause, no power change.
    expect(await driver.status(ref)).toBe('running');

    // In the backup pool made on first use, beside the machines' pool; the seed is not in it.
    expect(await virsh(['pool-dumpxml', BACKUP_POOL])).toContain(`<path>${BACKUP_DIR}</path>`);
    expect(await backupVolumesOnHost()).toEqual(['portal-backup-1.manifest.json', 'portal-backup-1.qcow2']);
    const first = await download(BACKUP_POOL, backupVolumes('portal-backup-1').data);
    expect(await holds(first, 0x11)).toBe(true);
    expect(await holds(first, 0x5a, BULK)).toBe(true);
    // Outside the machine's chain: a whole image, no backing file, the disk's full size.
    const info = JSON.parse((await execFileP('qemu-img', ['info', '--output=json', first])).stdout) as Record<
      string,
      unknown
    >;
    expect(info['backing-filename']).toBeUndefined();
    expect(info['virtual-size']).toBe(2 * GiB);
    expect(await driver.backupVerify!('portal-backup-1')).toBeNull();

    // Powered off, its disk holding the running take's checkpoint (decision 0028): started paused for an incremental
    // job over portal-backup-1 (only the 64 KiB written since), then powered off again. No guest code ran: the
    // serial log, which the busybox guest writes from its first instruction on, did not grow.
    await driver.forceStop(ref);
    await writeDisk(ref, 0x22, MARK);
    const serialLog = path.join(POOL_DIR, volumes(ref).log);
    const logBefore = (await stat(serialLog)).size;
    const off = await timed('take powered off (incremental, started paused)', () =>
      driver.backupTake!(ref, 'portal-backup-2'),
    );
    expect(off).toMatchObject({ incremental: true, consistency: 'crash-consistent' });
    expect(off.sizeBytes).toBeLessThan(running.sizeBytes! / 10);
    expect(await driver.status(ref)).toBe('stopped');
    expect(await virsh(['domstate', ref])).toMatch(/shut off/);
    expect((await stat(serialLog)).size).toBe(logBefore);
    expect((await virsh(['checkpoint-list', ref, '--name'])).trim()).toBe('portal-backup-2');
    expect((await backupFile('portal-backup-2')).backing).toBe(path.join(BACKUP_DIR, 'portal-backup-1.qcow2'));
    // Read through its chain: the write after the full one, and the full one's data.
    const second = await download(BACKUP_POOL, backupVolumes('portal-backup-2').data);
    expect(await holds(second, 0x22)).toBe(true);
    expect(await holds(second, 0x5a, BULK)).toBe(true);
    expect(await driver.backupVerify!('portal-backup-2')).toBeNull();
  },
);

it(
  "restores in place: the machine keeps its domain and addresses, gets the backup's disk, and runs again",
  { timeout: 600_000 },
  async () => {
    await writeDisk(ref, 0x33, MARK);
    await powerOn(ref);
    const reserved = `<host mac='${macForKey(spec.key)}' name='${ref}' ip='`;
    const dhcpBefore = await virsh(['net-dumpxml', NETWORK]);
    expect(dhcpBefore).toContain(reserved);
    // A snapshot lives inside the disk that is replaced: the restore drops it.
    await driver.snapshotTake!(ref, 'portal-snap-1');

    await timed('restore running machine', () => driver.backupRestore!(ref, 'portal-backup-1'));
    expect(await driver.status(ref)).toBe('running');
    const xml = await virsh(['dumpxml', '--inactive', ref]);
    expect(xml).toContain(`<uuid>${uuidForKey(spec.key)}</uuid>`);
    expect(xml).toContain(macForKey(spec.key));
    // Its address stays reserved for it (the same static DHCP entry).
    const entry = (xml: string) => xml.split('\n').find((l) => l.includes(reserved));
    expect(entry(await virsh(['net-dumpxml', NETWORK]))).toBe(entry(dhcpBefore));
    expect((await virsh(['snapshot-list', ref, '--name'])).trim()).toBe('');
    await virsh(['pool-refresh', POOL]);
    const disk = await download(POOL, volumes(ref).disk);
    expect(await holds(disk, 0x11)).toBe(true);
    expect(await holds(disk, 0x5a, BULK)).toBe(true);

    // Powered off: it stays off, with the other backup's disk (the incremental one: its chain read through).
    await driver.forceStop(ref);
    await timed('restore powered-off machine', () => driver.backupRestore!(ref, 'portal-backup-2'));
    expect(await driver.status(ref)).toBe('stopped');
    const restored = await download(POOL, volumes(ref).disk);
    expect(await holds(restored, 0x22)).toBe(true);
    expect(await holds(restored, 0x5a, BULK)).toBe(true);

    // Powered off without a chain to build on (the restore dropped the checkpoints with the disk that held them): a
    // full copy, as before (vol-create-from), the machine never started (decision 0028).
    const serialLog = path.join(POOL_DIR, volumes(ref).log);
    const logBefore = (await stat(serialLog)).size;
    const full = await timed('take powered off (full)', () => driver.backupTake!(ref, 'portal-backup-12'));
    expect(full).toMatchObject({ incremental: false, consistency: 'crash-consistent' });
    expect(full.sizeBytes).toBeGreaterThan(BULK.length);
    expect(await virsh(['domstate', ref])).toMatch(/shut off/);
    expect((await stat(serialLog)).size).toBe(logBefore);
    await driver.backupDelete!('portal-backup-12');

    await expect(driver.backupRestore!(ref, 'portal-backup-none')).rejects.toThrow(/not on its target/);
    await expect(driver.backupRestore!(ref, '../etc')).rejects.toThrow(/not a backup name/);
  },
);

it('restores a backup as a new machine, grown to its size', { timeout: 600_000 }, async () => {
  const copy: MachineSpec = {
    ...spec,
    key: `${spec.key}-copy`,
    name: 'Restored',
    diskGb: 3,
    fromBackup: 'portal-backup-1',
  };
  const created = await timed('restore as new (create, to a DHCP lease)', () => driver.create(copy));
  expect(created.ref).toBe(refForKey(copy.key));
  expect(created.privateIp).toMatch(/^10\.231\.89\.\d+$/);
  await virsh(['pool-refresh', POOL]);
  const file = await download(POOL, volumes(created.ref).disk);
  expect(await holds(file, 0x11)).toBe(true);
  const info = JSON.parse((await execFileP('qemu-img', ['info', '--output=json', file])).stdout) as Record<
    string,
    unknown
  >;
  expect(info['virtual-size']).toBe(3 * GiB);
  expect(info['backing-filename']).toBeUndefined();
  await driver.delete(created.ref);
  expect(await driver.status(created.ref)).toBe('missing');
  // The backup outlives the machine made from it.
  expect(await driver.backupVerify!('portal-backup-1')).toBeNull();
});

it('verify flags a copy whose bytes changed on the target', { timeout: 600_000 }, async () => {
  const file = path.join(BACKUP_DIR, backupVolumes('portal-backup-2').data);
  /** Inverts 16 bytes in the middle of the stored file (twice: as it was). */
  const flip = async () => {
    const fh = await open(file, 'r+');
    try {
      const { size } = await fh.stat();
      const at = Math.floor(size / 2);
      const buf = Buffer.alloc(16);
      await fh.read(buf, 0, 16, at);
      for (let i = 0; i < buf.length; i++) buf[i] = buf[i]! ^ 0xff;
      await fh.write(buf, 0, 16, at);
    } finally {
      await fh.close();
    }
  };
  await flip();
  expect(await driver.backupVerify!('portal-backup-2')).toMatch(/contents changed since it was taken/);
  // Put back (it is an incremental one: the delete at the end merges its base into it, which reads it whole).
  await flip();
  expect(await driver.backupVerify!('portal-backup-2')).toBeNull();
  // The other backup is still good.
  expect(await driver.backupVerify!('portal-backup-1')).toBeNull();
  expect(await driver.backupVerify!('portal-backup-none')).toMatch(/not on its target/);
});

it(
  'an interrupted or failed take leaves nothing that looks complete; a retry with the name redoes it',
  { timeout: 600_000 },
  async () => {
    await powerOn(ref);
    // A portal killed mid-take: its backup-begin ran (the job goes on in libvirtd), its manifest was never written.
    const partial = path.join(BACKUP_DIR, backupVolumes('portal-backup-3').data);
    const xmlFile = path.join(tmp, 'backup.xml');
    await writeFile(xmlFile, backupXml(partial));
    await virsh(['backup-begin', ref, '--backupxml', xmlFile]);
    expect(await driver.backupVerify!('portal-backup-3')).toMatch(/not on its target/);
    await expect(driver.backupRestore!(ref, 'portal-backup-3')).rejects.toThrow(/not on its target/);
    // The retry ends that job if it still runs, removes its file, and takes it whole.
    const retried = await driver.backupTake!(ref, 'portal-backup-3');
    expect(retried.sizeBytes).toBeGreaterThan(BULK.length);
    expect(await driver.backupVerify!('portal-backup-3')).toBeNull();

    // A take whose job fails (aborted on the host mid-copy): it throws, and leaves no volume of that name. (Without
    // the checkpoint the retry made it is a full copy, long enough to be caught; an incremental one would be done.)
    expect(retried.incremental).toBe(false);
    await virsh(['checkpoint-delete', ref, 'portal-backup-3']);
    expect(await interruptedTake('portal-backup-4', () => virsh(['domjobabort', ref]))).toMatch(
      /did not complete|cancel/i,
    );
    expect((await backupVolumesOnHost()).filter((v) => v.startsWith('portal-backup-4'))).toEqual([]);
    expect(await driver.backupVerify!('portal-backup-4')).toMatch(/not on its target/);
  },
);

it(
  'a stop during a running take goes ahead at once: the take fails and leaves nothing (decision 0025)',
  { timeout: 600_000 },
  async () => {
    expect(await driver.status(ref)).toBe('running');
    // No checkpoint is left by the take above that failed: this one is a full copy, long enough to be caught.
    // The driver's lock was let go once QEMU's job began: the power-off does not wait for the copy, it ends it.
    const outcome = await interruptedTake('portal-backup-11', () => driver.forceStop(ref));
    expect(await driver.status(ref)).toBe('stopped');
    expect(outcome).toMatch(/stopped during the backup|did not complete/i);
    expect((await backupVolumesOnHost()).filter((v) => v.startsWith('portal-backup-11'))).toEqual([]);
    expect(await driver.backupVerify!('portal-backup-11')).toMatch(/not on its target/);
  },
);

/** The data an incremental backup carries: 10 MiB written after the full one. */
const CHANGED = { offset: 1536 * MiB, length: 10 * MiB };
/** Enough change that an incremental job runs long enough to be aborted mid-copy (over BULK: ~1 s on a quiet host). */
const BIG = { offset: 256 * MiB, length: 768 * MiB };

/** The backup pool's qcow2 of `name`: its file's length and backing file, as qemu-img reads its header. */
async function backupFile(name: string): Promise<{ bytes: number; backing: string | undefined }> {
  const file = path.join(BACKUP_DIR, backupVolumes(name).data);
  const info = JSON.parse((await execFileP('qemu-img', ['info', '-U', '--output=json', file])).stdout) as Record<
    string,
    unknown
  >;
  return { bytes: Number(info['actual-size']), backing: info['backing-filename'] as string | undefined };
}

it(
  'incremental after the first: only the change, a failed one leaves the chain, restore and delete of its base keep it whole',
  { timeout: 600_000 },
  async () => {
    await driver.forceStop(ref);
    await writeDisk(ref, 0x44, MARK);
    await powerOn(ref);
    const full = await timed('take full (checkpoint)', () => driver.backupTake!(ref, 'portal-backup-5'));
    expect(full.incremental).toBe(false);

    // 10 MiB change (written powered off: the checkpoint's bitmap in the qcow2 records qemu-io's writes too).
    await driver.forceStop(ref);
    await writeDisk(ref, 0x55, CHANGED);
    await powerOn(ref);
    const inc = await timed('take incremental (10 MiB changed)', () => driver.backupTake!(ref, 'portal-backup-6'));
    expect(inc.incremental).toBe(true);
    expect(inc.sizeBytes).toBeLessThan(full.sizeBytes! / 10);
    expect(inc.sizeBytes).toBeGreaterThan(CHANGED.length);
    // A qcow2 whose backing file is the previous backup, in the backup pool.
    expect((await backupFile('portal-backup-6')).backing).toBe(path.join(BACKUP_DIR, 'portal-backup-5.qcow2'));
    // Verification covers each link (and seals their checksums).
    expect(await driver.backupVerify!('portal-backup-6')).toBeNull();

    // A failed incremental (aborted on the host mid-copy) throws, leaves nothing of itself and the chain as it was.
    await driver.forceStop(ref);
    await writeDisk(ref, 0x66, BIG);
    await powerOn(ref);
    const take = driver.backupTake!(ref, 'portal-backup-7');
    expect(await whileCopying(() => virsh(['domjobabort', ref]), 25)).toBe(true);
    await expect(take).rejects.toThrow(/did not complete|cancel/i);
    expect((await backupVolumesOnHost()).filter((v) => v.startsWith('portal-backup-7'))).toEqual([]);
    expect(await driver.backupVerify!('portal-backup-6')).toBeNull();
    // The next take after a failed one starts a new full chain.
    const after = await driver.backupTake!(ref, 'portal-backup-8');
    expect(after.incremental).toBe(false);
    expect((await backupFile('portal-backup-8')).backing).toBeUndefined();

    // Restore of the incremental (the disk's data destroyed first): both writes, the chain flattened.
    await driver.forceStop(ref);
    await writeDisk(ref, 0x00, MARK);
    await writeDisk(ref, 0x00, CHANGED);
    await timed('restore incremental', () => driver.backupRestore!(ref, 'portal-backup-6'));
    let disk = await download(POOL, volumes(ref).disk);
    expect(await holds(disk, 0x44)).toBe(true);
    expect(await holds(disk, 0x55, CHANGED)).toBe(true);
    expect(await holds(disk, 0x5a, BULK)).toBe(true);

    // Deleting the base merges it into its child: the child stands alone and restores the same, and the delete says
    // its new size (the whole copy's file: the base's data is in it now; decision 0027, storage billing counts it).
    const deleted = await timed('delete base (merge into child)', () => driver.backupDelete!('portal-backup-5'));
    const childFile = path.join(BACKUP_DIR, backupVolumes('portal-backup-6').data);
    expect(deleted).toEqual({
      merged: [{ name: 'portal-backup-6', sizeBytes: (await stat(childFile)).size, incremental: false }],
    });
    expect((deleted as { merged: { sizeBytes: number }[] }).merged[0]!.sizeBytes).toBeGreaterThan(BULK.length);
    expect((await backupVolumesOnHost()).filter((v) => v.startsWith('portal-backup-5'))).toEqual([]);
    expect((await backupFile('portal-backup-6')).backing).toBeUndefined();
    expect(await driver.backupVerify!('portal-backup-6')).toBeNull();
    await writeDisk(ref, 0x00, MARK);
    await writeDisk(ref, 0x00, CHANGED);
    await driver.backupRestore!(ref, 'portal-backup-6');
    disk = await download(POOL, volumes(ref).disk);
    expect(await holds(disk, 0x44)).toBe(true);
    expect(await holds(disk, 0x55, CHANGED)).toBe(true);
  },
);

it(
  "a snapshot reverts on a disk holding a backup's checkpoint, running or powered off (the checkpoint goes first)",
  { timeout: 600_000 },
  async () => {
    const checkpoints = async () => (await virsh(['checkpoint-list', ref, '--name'])).trim();
    await powerOn(ref);
    await driver.backupTake!(ref, 'portal-backup-9');
    expect(await checkpoints()).toBe('portal-backup-9');
    // QEMU refuses to revert a disk with a dirty bitmap, and leaves the machine off: the driver drops it first.
    await driver.snapshotTake!(ref, 'portal-snap-2');
    await driver.snapshotRevert!(ref, 'portal-snap-2');
    expect(await driver.status(ref)).toBe('running');
    expect(await checkpoints()).toBe('');
    // Powered off (libvirt deletes checkpoints of running machines only): started paused for it, then off again.
    await driver.backupTake!(ref, 'portal-backup-10');
    await driver.forceStop(ref);
    expect(await checkpoints()).toBe('portal-backup-10');
    await driver.snapshotRevert!(ref, 'portal-snap-2');
    expect(await checkpoints()).toBe('');
    expect(await driver.status(ref)).toBe('running');
    await driver.snapshotDelete!(ref, 'portal-snap-2');
    await driver.forceStop(ref);
  },
);

it(
  'deletes backups: nothing of them is left in the pool, and a second delete is no error',
  { timeout: 120_000 },
  async () => {
    for (const name of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => `portal-backup-${n}`)) {
      await driver.backupDelete!(name);
      await driver.backupDelete!(name);
    }
    expect(await backupVolumesOnHost()).toEqual([]);
    expect(await driver.backupVerify!('portal-backup-1')).toMatch(/not on its target/);
    await driver.delete(ref);
    console.log(
      `backups (busybox guest, 2 GiB disk with ${BULK.length / MiB} MiB written): ` +
        Object.entries(times)
          .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(2)} s`)
          .join(', '),
    );
  },
);
