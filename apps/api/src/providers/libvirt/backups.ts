/**
 * Backups of a libvirt machine (issue 24 item 2; docs/decisions/0022-libvirt-backups.md): whole, flattened qcow2
 * copies of its disk (vda) in a backup pool of their own on the host (settings `backupPool`), outside the machine's
 * disk chain, everything through the host's libvirt connection (the host may be remote: no file is touched here).
 *
 * - A backup `<name>` is two volumes of the backup pool: `<name>.qcow2` (the disk as the guest saw it, its base image
 *   folded in) and `<name>.manifest.json` (what was taken: source, sizes, the SHA-256 of the qcow2 file as read back).
 *   The manifest is written last and deleted first: **a backup exists when its manifest does**. A qcow2 without it
 *   is what a run killed mid-way left, never shown as a backup; a retry with the name removes it and starts again.
 *   (libvirt has no volume rename; the manifest is the commit.)
 * - Take, running: `virsh backup-begin` in push mode (vda into the pool's file, the read-only NoCloud seed vdb left
 *   out), then `domjobinfo` until the job ends; QEMU copies the disk as of the instant the job began while the guest
 *   runs on (no pause, no freeze). Powered off: `vol-create-from` the machine's overlay into the backup pool (libvirt's
 *   qemu-img convert flattens the chain). Either way the file is then read back (`vol-download`) into a SHA-256.
 * - Restore in place: powered off (graceful, then forced), the snapshots' metadata dropped (their data lived in the
 *   replaced qcow2), the overlay deleted and made again from the backup (`vol-create-from`, grown to the machine's
 *   size), the domain kept (name, UUID, MACs, addresses); started again if it ran.
 * - Restore as new: the driver's create copies the backup instead of making an overlay on the image (diskFromBackup).
 * - Verify: the manifest and the file are there, the file reads back whole through libvirt with the manifest's
 *   checksum, and `qemu-img check` finds its qcow2 structure sound (on the downloaded copy, on the portal's machine).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type { BackupInfo } from '../provider.ts';
import { isNotFound, VirshError, type Virsh } from './virsh.ts';
import { backupXml, volumeXml } from './xml.ts';

const execFileP = promisify(execFile);

/** The portal's names for backups (`portal-backup-<id>`): no dots, so the volumes' suffixes are unambiguous. */
export const BACKUP_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export const backupVolumes = (name: string) => ({ data: `${name}.qcow2`, manifest: `${name}.manifest.json` });

export interface BackupManifest {
  format: 'irontech-backup/1';
  name: string;
  /** The machine it was taken of (its ref when taken). */
  source: string;
  /** running: backup-begin while the guest ran; stopped: vol-create-from of the powered-off disk. */
  mode: 'running' | 'stopped';
  /** The disk's size as the guest sees it. */
  virtualBytes: number;
  /** The qcow2 file's length and the SHA-256 of its bytes, as read back right after the take. */
  fileBytes: number;
  sha256: string;
  takenAt: string;
}

export interface BackupPool {
  name: string;
  path: string;
}

export interface BackupHost {
  virsh: Pick<Virsh, 'run' | 'maybe' | 'connectUri' | 'uri'>;
  virshBinary: string;
  /** The machines' pool and a machine's disk volume in it. */
  pool: string;
  diskVolume(ref: string): string;
  /** The backup pool, made (defined, built, started) on first use. */
  backupPool(): Promise<BackupPool>;
  /** libvirt's state word, null when there is no such domain. */
  state(ref: string): Promise<string | null>;
  isRunning(state: string | null): boolean;
  /** ACPI, then destroy after the driver's stop timeout. */
  stop(ref: string): Promise<void>;
  /** Powers on without waiting for the guest. */
  start(ref: string): Promise<void>;
  /** The disk size the machine's configuration gives it (bytes). */
  configuredDiskBytes(ref: string): Promise<number>;
  /** The longest a take's copy or a restore's copy may run. */
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function checkName(name: string) {
  if (!BACKUP_NAME_RE.test(name)) throw new Error(`"${name}" is not a backup name`);
}

async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-backup-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function withXmlFile<T>(xml: string, fn: (file: string) => Promise<T>): Promise<T> {
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'def.xml');
    await writeFile(file, xml, { mode: 0o600 });
    return fn(file);
  });
}

async function volInfo(h: BackupHost, pool: string, vol: string): Promise<{ capacity: number; bytes: number } | null> {
  const out = await h.virsh.maybe(['vol-info', '--bytes', '--physical', '--pool', pool, vol]);
  if (out === null) return null;
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? Number.NaN);
  return { capacity: num(/^Capacity:\s+(\d+)/m), bytes: num(/^(?:Physical|Allocation):\s+(\d+)/m) };
}

async function deleteVolume(h: BackupHost, pool: string, vol: string) {
  await h.virsh.run(['vol-delete', '--pool', pool, vol]).catch((e: unknown) => {
    if (!isNotFound(e)) throw e;
  });
}

/**
 * Streams a volume's bytes out of the host (`vol-download` into a FIFO: virsh opens its file by name) into a SHA-256,
 * and into `toFile` when given. Nothing but the FIFO is on the portal's disk otherwise.
 */
export async function downloadVolume(
  h: Pick<BackupHost, 'virsh' | 'virshBinary' | 'timeoutMs'>,
  pool: string,
  vol: string,
  toFile?: string,
): Promise<{ sha256: string; bytes: number }> {
  const uri = await h.virsh.connectUri();
  return withTempDir(async (dir) => {
    const fifo = path.join(dir, 'fifo');
    await execFileP('mkfifo', ['-m', '600', fifo]);
    const child = spawn(h.virshBinary, ['-q', '-c', uri, 'vol-download', '--pool', pool, vol, fifo], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const hash = createHash('sha256');
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    const sink = toFile
      ? createWriteStream(toFile, { mode: 0o600 })
      : new Writable({ write: (_c, _e, done) => done() });
    const relay = pipeline(createReadStream(fifo), tap, sink).then(
      () => null,
      (e: unknown) => e as Error,
    );
    let failure: string | null = null;
    const abort = (why: string) => {
      failure ??= why;
      killGroup(child);
      // Ends the read's open that waits for a writer that will never come.
      void unblock(fifo);
    };
    const exit = exitOf(child);
    void exit.then((r) => r.code !== 0 && abort(`vol-download: ${r.stderr.slice(0, 300)}`));
    const timer = setTimeout(() => abort(`no end within ${h.timeoutMs} ms`), h.timeoutMs);
    const relayError = await relay;
    await exit;
    clearTimeout(timer);
    if (failure) throw new Error(`reading ${vol} back from ${h.virsh.uri} failed: ${failure}`);
    if (relayError) throw new Error(`reading ${vol} back from ${h.virsh.uri} failed: ${relayError.message}`);
    return { sha256: hash.digest('hex'), bytes };
  });
}

async function unblock(fifo: string) {
  try {
    await (await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).close();
  } catch {
    // No one waits on it.
  }
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  const err: Buffer[] = [];
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve) => {
    child.once('error', (e) => resolve({ code: -1, stderr: e.message }));
    child.once('close', (code) => resolve({ code, stderr: Buffer.concat(err).toString('utf8').trim() }));
  });
}

function killGroup(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Creates (or replaces) a small raw volume holding `data` (vol-upload: remote hosts too). */
async function uploadSmall(h: BackupHost, pool: string, vol: string, data: Buffer) {
  await deleteVolume(h, pool, vol);
  await h.virsh.run(['vol-create-as', '--pool', pool, vol, `${data.length}B`, '--format', 'raw']);
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'data');
    await writeFile(file, data, { mode: 0o600 });
    await h.virsh.run(['vol-upload', '--pool', pool, vol, file]);
  });
}

/** The backup's manifest, or null when there is none (no backup of that name, or one never completed). */
export async function readManifest(h: BackupHost, pool: string, name: string): Promise<BackupManifest | null> {
  const vol = backupVolumes(name).manifest;
  if ((await h.virsh.maybe(['vol-info', '--pool', pool, vol])) === null) return null;
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'manifest');
    await downloadVolume(h, pool, vol, file);
    try {
      const m = JSON.parse(await readFile(file, 'utf8')) as BackupManifest;
      return m.format === 'irontech-backup/1' && typeof m.sha256 === 'string' ? m : null;
    } catch {
      return null;
    }
  });
}

// ---- the domain's job (backup-begin) --------------------------------------------------------------------------

/** The domain's active job's operation (`Backup`, `Snapshot`, …), or null when none runs (or the domain is off). */
async function activeJob(h: BackupHost, ref: string): Promise<string | null> {
  const out = await h.virsh.run(['domjobinfo', ref]).catch((e: unknown) => {
    if (e instanceof VirshError && /not running/i.test(e.stderr)) return '';
    throw e;
  });
  if (!out || /^Job type:\s+None/m.test(out)) return null;
  return /^Operation:\s+(.+)$/m.exec(out)?.[1]?.trim() ?? 'unknown';
}

/** Ends a backup job an earlier attempt (a killed portal) left running, and waits until it is gone. */
async function abortBackupJob(h: BackupHost, ref: string) {
  if ((await activeJob(h, ref)) !== 'Backup') return;
  await h.virsh.run(['domjobabort', ref]).catch((e: unknown) => {
    if (!(e instanceof VirshError && /no job is active|not running/i.test(e.stderr))) throw e;
  });
  for (let i = 0; i < 120 && (await activeJob(h, ref)) !== null; i++) await sleep(250);
}

/** Waits for the domain's backup job to end; throws with libvirt's words when it did not complete. */
async function waitForBackupJob(h: BackupHost, ref: string) {
  const until = Date.now() + h.timeoutMs;
  for (;;) {
    const job = await activeJob(h, ref);
    if (job === null) break;
    if (Date.now() >= until) {
      await abortBackupJob(h, ref);
      throw new Error(`The backup did not finish within ${Math.round(h.timeoutMs / 1000)} s`);
    }
    await sleep(300);
  }
  if (!h.isRunning(await h.state(ref))) throw new Error('The machine stopped during the backup');
  // The completed job's statistics (read once: libvirt forgets them then).
  const done = await h.virsh.run(['domjobinfo', ref, '--completed']);
  if (!/^Job type:\s+Completed/m.test(done)) {
    const why = /^Error message:\s+(.+)$/m.exec(done)?.[1]?.trim();
    throw new Error(`The backup job did not complete${why ? `: ${why}` : ''}`);
  }
}

// ---- the calls ----------------------------------------------------------------------------------------------

/** Removes a backup: the manifest first (then nothing looks complete), then the disk image. */
async function discard(h: BackupHost, pool: string, name: string) {
  const v = backupVolumes(name);
  await h.virsh.run(['pool-refresh', pool]);
  await deleteVolume(h, pool, v.manifest);
  await deleteVolume(h, pool, v.data);
}

export async function takeBackup(h: BackupHost, ref: string, name: string): Promise<BackupInfo> {
  checkName(name);
  const bp = await h.backupPool();
  const v = backupVolumes(name);
  const disk = h.diskVolume(ref);
  const source = await volInfo(h, h.pool, disk);
  if (source === null) throw new Error(`machine ${ref} has no disk on ${h.virsh.uri}`);
  // A retry redoes it: an earlier attempt's job (a killed portal's) is ended and what it wrote removed.
  let running = h.isRunning(await h.state(ref));
  if (running) await abortBackupJob(h, ref);
  await discard(h, bp.name, name);

  if (running) {
    const target = path.posix.join(bp.path, v.data);
    try {
      await withXmlFile(backupXml(target), (f) => h.virsh.run(['backup-begin', ref, '--backupxml', f]));
    } catch (e) {
      // It powered off between the look and the call: take it as a powered-off one.
      if (!(e instanceof VirshError && /not running/i.test(e.stderr))) throw e;
      running = false;
    }
    if (running) {
      try {
        await waitForBackupJob(h, ref);
      } catch (e) {
        // libvirt removes the file of a push job that did not complete; a manifest was never written anyway.
        await discard(h, bp.name, name).catch(() => undefined);
        throw e;
      }
    }
  }
  if (!running) {
    const xml = volumeXml(v.data, source.capacity, 'qcow2');
    try {
      await withXmlFile(xml, (f) =>
        h.virsh.run(['vol-create-from', '--pool', bp.name, f, disk, '--inputpool', h.pool], {
          timeoutMs: h.timeoutMs,
        }),
      );
    } catch (e) {
      await discard(h, bp.name, name).catch(() => undefined);
      throw e;
    }
  }

  await h.virsh.run(['pool-refresh', bp.name]);
  const written = await volInfo(h, bp.name, v.data);
  if (written === null) throw new Error(`The backup ${name} is not on ${h.virsh.uri} after its copy`);
  const read = await downloadVolume(h, bp.name, v.data);
  const manifest: BackupManifest = {
    format: 'irontech-backup/1',
    name,
    source: ref,
    mode: running ? 'running' : 'stopped',
    virtualBytes: written.capacity,
    fileBytes: read.bytes,
    sha256: read.sha256,
    takenAt: new Date().toISOString(),
  };
  await uploadSmall(h, bp.name, v.manifest, Buffer.from(JSON.stringify(manifest)));
  return { sizeBytes: read.bytes, incremental: false };
}

/**
 * Makes `vol` in the machines' pool a copy of backup `name` (flattened, no backing), at least `minBytes` large: a
 * restore's new overlay, or a new machine's disk (restore as new). Whatever is at `vol` already is replaced.
 */
export async function diskFromBackup(h: BackupHost, name: string, vol: string, minBytes: number): Promise<void> {
  checkName(name);
  const bp = await h.backupPool();
  await h.virsh.run(['pool-refresh', bp.name]);
  if ((await readManifest(h, bp.name, name)) === null)
    throw new Error(`Backup ${name} is not on its target ${h.virsh.uri} (missing or never completed)`);
  const backup = await volInfo(h, bp.name, backupVolumes(name).data);
  if (backup === null) throw new Error(`Backup ${name}'s disk image is missing from ${h.virsh.uri}`);
  await h.virsh.run(['pool-refresh', h.pool]);
  await deleteVolume(h, h.pool, vol);
  await withXmlFile(volumeXml(vol, backup.capacity, 'qcow2'), (f) =>
    h.virsh.run(['vol-create-from', '--pool', h.pool, f, backupVolumes(name).data, '--inputpool', bp.name], {
      timeoutMs: h.timeoutMs,
    }),
  );
  if (minBytes > backup.capacity) await h.virsh.run(['vol-resize', '--pool', h.pool, vol, `${minBytes}B`]);
}

/** The names of the machine's snapshots (decision 0019); their metadata is dropped when its disk is replaced. */
async function dropSnapshotMetadata(h: BackupHost, ref: string) {
  const list = await h.virsh.maybe(['snapshot-list', ref, '--name']);
  for (const snap of (list ?? '').split('\n').map((n) => n.trim())) {
    if (!snap) continue;
    await h.virsh.run(['snapshot-delete', ref, snap, '--metadata']).catch((e: unknown) => {
      if (!(e instanceof VirshError && /not found|no domain snapshot/i.test(e.stderr))) throw e;
    });
  }
}

export async function restoreBackup(h: BackupHost, ref: string, name: string): Promise<void> {
  checkName(name);
  const state = await h.state(ref);
  if (state === null) throw new Error(`libvirt machine ${ref} does not exist on ${h.virsh.uri}`);
  const bp = await h.backupPool();
  await h.virsh.run(['pool-refresh', bp.name]);
  if ((await readManifest(h, bp.name, name)) === null)
    throw new Error(`Backup ${name} is not on its target ${h.virsh.uri} (missing or never completed)`);
  const ran = h.isRunning(state);
  if (ran) await h.stop(ref);
  // The snapshots were inside the qcow2 that is replaced: their metadata would name states the disk no longer has.
  await dropSnapshotMetadata(h, ref);
  const disk = h.diskVolume(ref);
  const current = await volInfo(h, h.pool, disk);
  const minBytes = Math.max(current?.capacity ?? 0, await h.configuredDiskBytes(ref));
  await diskFromBackup(h, name, disk, minBytes);
  if (ran) await h.start(ref);
}

export async function deleteBackup(h: BackupHost, name: string): Promise<void> {
  checkName(name);
  const bp = await h.backupPool();
  await discard(h, bp.name, name);
}

/** null when the stored copy is whole; otherwise why not, in words for the backup's row. */
export async function verifyBackup(h: BackupHost, name: string): Promise<string | null> {
  checkName(name);
  const bp = await h.backupPool();
  const v = backupVolumes(name);
  await h.virsh.run(['pool-refresh', bp.name]);
  const manifest = await readManifest(h, bp.name, name);
  if (manifest === null) return 'The backup is not on its target (missing, or its copy never completed)';
  const info = await volInfo(h, bp.name, v.data);
  if (info === null) return "The backup's disk image is missing from its target";
  if (info.bytes !== manifest.fileBytes && Number.isFinite(info.bytes))
    return `The backup's disk image is ${info.bytes} bytes, ${manifest.fileBytes} when it was taken`;
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'backup.qcow2');
    const read = await downloadVolume(h, bp.name, v.data, file);
    if (read.bytes !== manifest.fileBytes)
      return `The backup's disk image read back ${read.bytes} bytes, ${manifest.fileBytes} when it was taken`;
    if (read.sha256 !== manifest.sha256)
      return `The backup's contents changed since it was taken (SHA-256 ${read.sha256.slice(0, 12)}…, ${manifest.sha256.slice(0, 12)}… when taken)`;
    return qcow2Problem(file, manifest.virtualBytes);
  });
}

/** `qemu-img check` and the virtual size of a downloaded qcow2; null when sound. */
async function qcow2Problem(file: string, virtualBytes: number): Promise<string | null> {
  try {
    await execFileP('qemu-img', ['check', '-f', 'qcow2', file], { timeout: 600_000 });
  } catch (e) {
    const err = e as { code?: unknown; stdout?: string; stderr?: string };
    // The checksum above already matched; without qemu-img on the portal's machine the structure goes unchecked.
    if (err.code === 'ENOENT') return null;
    // 3: leaked clusters only (space, not data).
    if (err.code !== 3) {
      const text = `${err.stderr ?? ''}\n${err.stdout ?? ''}`.trim().split('\n').slice(0, 3).join(' ');
      return `The backup's qcow2 image fails its check: ${text.slice(0, 300) || `qemu-img check exited with ${String(err.code)}`}`;
    }
  }
  const { stdout } = await execFileP('qemu-img', ['info', '--output=json', '-f', 'qcow2', file]);
  const size = (JSON.parse(stdout) as { 'virtual-size'?: number })['virtual-size'];
  if (size !== virtualBytes) return `The backup's disk is ${size} bytes large, ${virtualBytes} when it was taken`;
  return null;
}
