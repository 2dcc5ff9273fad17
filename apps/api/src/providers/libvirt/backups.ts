/**
 * Backups of a libvirt machine (issue 24 item 2; docs/decisions/0022-libvirt-backups.md): qcow2 copies of its disk
 * (vda) in a backup pool of their own on the host (settings `backupPool`), outside the machine's disk chain,
 * everything through the host's libvirt connection (the host may be remote: no file is touched here).
 *
 * - A backup `<name>` is volumes of the backup pool: `<name>.qcow2` (the disk as the guest saw it) and
 *   `<name>.manifest.json` (what was taken: source, mode, sizes, its parent). The manifest is written last and
 *   deleted first: **a backup exists when its manifest does**. A qcow2 without it is what a run killed mid-way left,
 *   never shown as a backup; a retry with the name removes it and starts again. (libvirt has no volume rename; the
 *   manifest is the commit.) `<name>.seal.json` holds the file's SHA-256, written by the first verify.
 * - Full or incremental. A full backup is a whole, flattened qcow2 (the base image folded in). An incremental one is a
 *   qcow2 whose backing file is the previous backup's file, holding only the clusters the guest wrote since: taken
 *   when its disk is a version 3 qcow2 and the machine's one checkpoint (libvirt's, a persistent dirty bitmap in the
 *   disk, named after the backup it marks) names a backup still in the pool. Anything else (no or a foreign
 *   checkpoint, a refused bitmap) is a full one; a failed take drops the machine's checkpoints, so the next is full.
 * - Take, running: `virsh backup-begin` in push mode with a new checkpoint (vda into the pool's file, the read-only
 *   NoCloud seed vdb left out), then `domjobinfo` until the job ends; QEMU copies the disk as of the instant the job
 *   began while the guest runs on (no pause). A guest whose agent is connected is frozen (`domfsfreeze`) for that
 *   `backup-begin` only and thawed right after (a watchdog thaws it should the portal die meanwhile): the copy is
 *   application-consistent, else crash-consistent (decision 0028). Powered off with a chain to build on: started
 *   paused (no guest code runs) for an incremental job, destroyed again whatever happens; without one:
 *   `vol-create-from` the machine's overlay into the backup pool (libvirt's qemu-img convert flattens the chain).
 *   Nothing is read back at the take (the first verify seals the checksum): the take costs the copy alone.
 * - Restore in place: powered off (graceful, then forced), the snapshots' and checkpoints' metadata dropped (their
 *   data lived in the replaced qcow2), the overlay deleted and made again from the backup (`vol-create-from`: the
 *   chain read through and flattened, grown to the machine's size), the domain kept (name, UUID, MACs, addresses);
 *   started again if it ran.
 * - Restore as new: the driver's create copies the backup instead of making an overlay on the image (diskFromBackup).
 * - Delete: a backup another builds on is merged into that child first (the child made whole: a flattened copy of it
 *   written back under its name, recorded by `<child>.merging.json` so a crash mid-way is finished by the next call).
 * - Verify: each link of the chain is there, committed and reads back with its sealed checksum (sealed now when it
 *   never was), and `qemu-img check` finds the qcow2 structure sound (on the downloaded copy, on the portal's machine).
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
import type { BackupDeleted, BackupInfo } from '../provider.ts';
import { isNotFound, VirshError, type Virsh } from './virsh.ts';
import { backupXml, checkpointXml, volumeXml } from './xml.ts';

const execFileP = promisify(execFile);

/** The portal's names for backups (`portal-backup-<id>`): no dots, so the volumes' suffixes are unambiguous. */
export const BACKUP_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export const backupVolumes = (name: string) => ({
  data: `${name}.qcow2`,
  manifest: `${name}.manifest.json`,
  /** The data file's SHA-256 and length, written by the first verify (the take reads nothing back). */
  seal: `${name}.seal.json`,
  /** A merge in progress (delete of the backup this one builds on): its flattened copy, and the record that it is whole. */
  merged: `${name}.merge.qcow2`,
  merging: `${name}.merging.json`,
});

export interface BackupManifest {
  /** 1: whole copies, checksum read back at the take; 2: full or incremental, checksum sealed by the first verify. */
  format: 'irontech-backup/1' | 'irontech-backup/2';
  name: string;
  /** The machine it was taken of (its ref when taken). */
  source: string;
  /** running: backup-begin while the guest ran; stopped: vol-create-from of the powered-off disk. */
  mode: 'running' | 'stopped';
  /** The disk's size as the guest sees it. */
  virtualBytes: number;
  /** The qcow2 file's length when taken. */
  fileBytes: number;
  /** Format 1: the SHA-256 of the file as read back right after the take. Format 2: null (the seal holds it). */
  sha256: string | null;
  /** The backup whose file this one's qcow2 was made over when taken (incremental), null for a full one. */
  parent?: string | null;
  /** The checkpoint made on the machine at this backup's instant (its name), null when none was. */
  checkpoint?: string | null;
  /** Whether the guest's file systems were frozen at the copy's instant (decision 0028); absent before it. */
  consistency?: BackupInfo['consistency'];
  takenAt: string;
}

interface BackupSeal {
  fileBytes: number;
  sha256: string;
  sealedAt: string;
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
  await h.virsh.run(['vol-delete', '--pool', pool, vol], { short: true }).catch((e: unknown) => {
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
async function uploadSmall(h: BackupHost, pool: string, vol: string, data: Buffer, opts: { fresh?: boolean } = {}) {
  if (!opts.fresh) await deleteVolume(h, pool, vol);
  await h.virsh.run(['vol-create-as', '--pool', pool, vol, `${data.length}B`, '--format', 'raw'], { short: true });
  await withTempDir(async (dir) => {
    const file = path.join(dir, 'data');
    await writeFile(file, data, { mode: 0o600 });
    await h.virsh.run(['vol-upload', '--pool', pool, vol, file], { short: true });
  });
}

/** A small JSON volume's contents, or null when it is not there or not JSON. */
async function readSmall<T>(h: BackupHost, pool: string, vol: string): Promise<T | null> {
  if ((await h.virsh.maybe(['vol-info', '--pool', pool, vol])) === null) return null;
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'small');
    await downloadVolume(h, pool, vol, file);
    try {
      return JSON.parse(await readFile(file, 'utf8')) as T;
    } catch {
      return null;
    }
  });
}

/** The backup's manifest, or null when there is none (no backup of that name, or one never completed). */
export async function readManifest(h: BackupHost, pool: string, name: string): Promise<BackupManifest | null> {
  const m = await readSmall<BackupManifest>(h, pool, backupVolumes(name).manifest);
  if (m?.format === 'irontech-backup/1' && typeof m.sha256 === 'string') return m;
  if (m?.format === 'irontech-backup/2') return m;
  return null;
}

/** The pool's volume names (after a refresh: backup-begin writes files libvirt did not make). */
async function poolVolumes(h: BackupHost, pool: string): Promise<Set<string>> {
  await h.virsh.run(['pool-refresh', pool]);
  const out = await h.virsh.run(['vol-list', pool]);
  return new Set(
    out
      .split('\n')
      .map((l) => l.trim().split(/\s+/)[0] ?? '')
      .filter((n) => n && n !== 'Name' && !/^-+$/.test(n)),
  );
}

/** The backup whose file `name`'s qcow2 is made over (its backing file in the pool), null when it stands alone. */
async function backingOf(h: BackupHost, bp: BackupPool, name: string): Promise<string | null> {
  const xml = await h.virsh.run(['vol-dumpxml', '--pool', bp.name, backupVolumes(name).data]);
  const backing = /<backingStore>[\s\S]*?<path>([^<]+)<\/path>/.exec(xml)?.[1];
  if (!backing) return null;
  const file = path.posix.basename(backing);
  if (path.posix.dirname(backing) !== bp.path || !file.endsWith('.qcow2'))
    throw new Error(`Backup ${name} is made over ${backing}, outside its backup pool`);
  return file.slice(0, -'.qcow2'.length);
}

/**
 * The backup's chain, newest first: `name`, the backup its file is made over, and so on to a full one. Throws when a
 * link is not a committed backup (its manifest or file gone): restoring it would not give the guest's disk.
 */
async function chainOf(h: BackupHost, bp: BackupPool, name: string, vols: Set<string>): Promise<string[]> {
  const chain: string[] = [];
  for (let link: string | null = name; link !== null; link = await backingOf(h, bp, link)) {
    const v = backupVolumes(link);
    if (!vols.has(v.manifest) || !vols.has(v.data)) {
      throw new Error(
        link === name
          ? `Backup ${name} is not on its target ${h.virsh.uri} (missing or never completed)`
          : `Backup ${name} builds on ${link}, which is not on its target ${h.virsh.uri}`,
      );
    }
    if (chain.includes(link) || chain.length > 1000) throw new Error(`Backup ${name}'s chain loops at ${link}`);
    chain.push(link);
  }
  return chain;
}

// ---- checkpoints (the machine's dirty bitmaps an incremental backup reads) -----------------------------------------

/** The machine's checkpoints, parents before children (empty when it has none, or there is no such machine). */
async function checkpointsOf(
  h: { virsh: Pick<Virsh, 'run' | 'maybe'> },
  ref: string,
  roots = false,
): Promise<string[]> {
  const out = await h.virsh.maybe(['checkpoint-list', ref, '--name', roots ? '--roots' : '--topological']);
  return (out ?? '')
    .split('\n')
    .map((n) => n.trim())
    .filter(Boolean);
}

/**
 * Removes the machine's checkpoints. With `metadataOnly` libvirt forgets them (the disk that held their bitmaps was
 * replaced or deleted). Otherwise their bitmaps go too: a qcow2 with a dirty bitmap cannot be reverted to an internal
 * snapshot (QEMU: "Device has active dirty bitmaps", and the machine is left off), so a snapshot revert and a move
 * call this first. libvirt 9.0 deletes a checkpoint only on a running machine: a powered-off one is started paused
 * (no guest code runs) for the moment it takes, then powered off again.
 */
export async function dropCheckpoints(
  h: { virsh: Pick<Virsh, 'run' | 'maybe'> },
  ref: string,
  opts: { metadataOnly?: boolean } = {},
): Promise<void> {
  const roots = await checkpointsOf(h, ref, true);
  if (roots.length === 0) return;
  const del = async (extra: string[]) => {
    for (const cp of roots)
      await h.virsh.run(['checkpoint-delete', ref, cp, '--children', ...extra]).catch((e: unknown) => {
        if (!(e instanceof VirshError && /not found|no domain checkpoint/i.test(e.stderr))) throw e;
      });
  };
  if (opts.metadataOnly) return del(['--metadata']);
  const state = (await h.virsh.maybe(['domstate', ref]))?.trim() ?? '';
  if (/running|paused|blocked|idle/.test(state)) return del([]);
  await h.virsh.run(['start', ref, '--paused']);
  try {
    await del([]);
  } finally {
    await h.virsh.run(['destroy', ref]).catch(() => undefined);
  }
}

/**
 * What a take can build on: the machine's one checkpoint, when it names a backup still committed in the pool whose
 * disk had the same size. Anything else (none, several, a removed or foreign backup) answers null, and the checkpoints
 * are dropped so the next one starts a new chain (`keep`: left as they are, for a powered-off machine, which would
 * have to be started paused for it: the next running take, snapshot revert or move drops them).
 */
async function incrementalBase(
  h: BackupHost,
  bp: BackupPool,
  ref: string,
  vols: Set<string>,
  capacity: number,
  opts: { keep?: boolean } = {},
): Promise<string | null> {
  const cps = await checkpointsOf(h, ref);
  if (cps.length === 0) return null;
  const [cp] = cps;
  if (cps.length === 1 && cp && BACKUP_NAME_RE.test(cp)) {
    const v = backupVolumes(cp);
    if (vols.has(v.manifest) && vols.has(v.data) && !vols.has(v.merging)) {
      const info = await volInfo(h, bp.name, v.data);
      if (info?.capacity === capacity) return cp;
    }
  }
  if (!opts.keep) await dropCheckpoints(h, ref).catch(() => undefined);
  return null;
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
  const stopped = () => new Error('The machine stopped during the backup');
  // What the take waits past the job's end is up to one pause (25-50-100-200-300 ms pauses before: up to 100 ms on an
  // incremental take, 300 ms on a full one; decision 0022 "Measured"). A look is one libvirt round trip through the
  // host's session (a few ms): every 20 ms for the first half second (an incremental job of a few MB ends within it),
  // every 100 ms to 10 s, every 300 ms to a minute, every second after (a job of hours).
  const began = Date.now();
  const pause = () => {
    const since = Date.now() - began;
    return since < 500 ? 20 : since < 10_000 ? 100 : since < 60_000 ? 300 : 1000;
  };
  for (;;) {
    // A stop or destroy while the job runs (the caller lets them go ahead) can fail the look itself ("Unable to read
    // from monitor"): the machine's state, a moment later (libvirt sees QEMU gone), says which it was.
    const job = await activeJob(h, ref).catch(async (e: unknown) => {
      await sleep(250);
      if (!h.isRunning(await h.state(ref).catch(() => null))) throw stopped();
      throw e;
    });
    if (job === null) break;
    if (Date.now() >= until) {
      await abortBackupJob(h, ref);
      throw new Error(`The backup did not finish within ${Math.round(h.timeoutMs / 1000)} s`);
    }
    await sleep(pause());
  }
  if (!h.isRunning(await h.state(ref))) throw stopped();
  // The completed job's statistics (read once: libvirt forgets them then).
  const done = await h.virsh.run(['domjobinfo', ref, '--completed']);
  if (!/^Job type:\s+Completed/m.test(done)) {
    const why = /^Error message:\s+(.+)$/m.exec(done)?.[1]?.trim();
    throw new Error(`The backup job did not complete${why ? `: ${why}` : ''}`);
  }
}

// ---- merges (a backup deleted while another builds on it) ------------------------------------------------------

/**
 * Makes `child` whole and removes `parent`, the backup it was made over. 1. A flattened copy of the child
 * (`<child>.merge.qcow2`, vol-create-from reads the chain through). 2. `<child>.merging.json` records that copy whole
 * and names the parent. 3. The child's file is made again from the copy (its name is what the backups after it are
 * made over, so it must stay). 4. The parent's volumes go, then the record and the copy. A crash after 2 is finished
 * by finishMerges (every call on the pool runs it first); before 2 the copy is a leftover and is removed.
 */
async function mergeIntoChild(h: BackupHost, bp: BackupPool, parent: string, child: string) {
  const c = backupVolumes(child);
  const info = await volInfo(h, bp.name, c.data);
  if (info === null) throw new Error(`Backup ${child}'s disk image is missing from ${h.virsh.uri}`);
  await deleteVolume(h, bp.name, c.merged);
  await withXmlFile(volumeXml(c.merged, info.capacity, 'qcow2'), (f) =>
    h.virsh.run(['vol-create-from', '--pool', bp.name, f, c.data, '--inputpool', bp.name], {
      timeoutMs: h.timeoutMs,
    }),
  );
  await uploadSmall(h, bp.name, c.merging, Buffer.from(JSON.stringify({ child, parent, capacity: info.capacity })));
  await completeMerge(h, bp, child, parent, info.capacity);
}

/** Steps 3-4 of a merge whose flattened copy is whole (recorded): redone from the start of 3 whatever was done. */
async function completeMerge(h: BackupHost, bp: BackupPool, child: string, parent: string, capacity: number) {
  const c = backupVolumes(child);
  // Its bytes change: the old checksum no longer applies (the next verify seals the new file).
  await deleteVolume(h, bp.name, c.seal);
  await deleteVolume(h, bp.name, c.data);
  await withXmlFile(volumeXml(c.data, capacity, 'qcow2'), (f) =>
    h.virsh.run(['vol-create-from', '--pool', bp.name, f, c.merged, '--inputpool', bp.name], {
      timeoutMs: h.timeoutMs,
    }),
  );
  if (BACKUP_NAME_RE.test(parent)) await discard(h, bp.name, parent, { refresh: false });
  await deleteVolume(h, bp.name, c.merging);
  await deleteVolume(h, bp.name, c.merged);
}

/** Finishes merges a crash interrupted, and removes flattened copies whose merge never got recorded. */
async function finishMerges(h: BackupHost, bp: BackupPool, vols: Set<string>): Promise<boolean> {
  let changed = false;
  for (const vol of vols) {
    const child = vol.endsWith('.merging.json') ? vol.slice(0, -'.merging.json'.length) : null;
    if (child && BACKUP_NAME_RE.test(child)) {
      const rec = await readSmall<{ parent?: string; capacity?: number }>(h, bp.name, vol);
      if (rec && typeof rec.parent === 'string' && typeof rec.capacity === 'number')
        await completeMerge(h, bp, child, rec.parent, rec.capacity);
      else await deleteVolume(h, bp.name, vol);
      changed = true;
    }
  }
  for (const vol of vols) {
    const child = vol.endsWith('.merge.qcow2') ? vol.slice(0, -'.merge.qcow2'.length) : null;
    if (child && !vols.has(backupVolumes(child).merging)) {
      await deleteVolume(h, bp.name, vol);
      changed = true;
    }
  }
  return changed;
}

/** The pool's volumes once interrupted merges are finished. */
async function settledVolumes(h: BackupHost, bp: BackupPool): Promise<Set<string>> {
  const vols = await poolVolumes(h, bp.name);
  const hasMerges = [...vols].some((v) => v.endsWith('.merging.json') || v.endsWith('.merge.qcow2'));
  if (hasMerges && (await finishMerges(h, bp, vols))) return poolVolumes(h, bp.name);
  return vols;
}

// ---- the guest's file systems frozen for the job's start (decision 0028) -----------------------------------------

/** How long a freeze or a thaw may take (the guest flushes its file systems; under TCG on a loaded host, seconds). */
const FREEZE_TIMEOUT_MS = 30_000;
/**
 * A portal killed while the guest is frozen cannot thaw it, and qemu-ga on Linux has no freeze timeout of its own (the
 * guest's writes would hang until someone thaws): before each freeze a detached watchdog is started on the portal's
 * machine (its own process group: a kill of the portal leaves it) that thaws the guest after this long, unless the
 * take's own thaw ended it first. A watchdog's thaw during a slow take only makes that take crash-consistent (below).
 */
export const THAW_WATCHDOG_S = 30;

/** Whether the guest agent's channel reads connected in the live definition (the agent runs in the guest). */
async function agentConnected(h: BackupHost, ref: string): Promise<boolean> {
  const xml = await h.virsh.maybe(['dumpxml', ref]).catch(() => null);
  return xml !== null && /name='org\.qemu\.guest_agent\.0'[^>]*\bstate='connected'/.test(xml);
}

/**
 * The count in virsh's "Froze 2 filesystem(s)" / "Thawed 2 filesystem(s)"; null when it printed none (virsh's `-q`,
 * which the driver runs with, may leave such lines out: then the command's success is all there is).
 */
function fsCount(out: string): number | null {
  const n = /(\d+)\s+filesystem/.exec(out)?.[1];
  return n === undefined ? null : Number(n);
}

/** Starts the watchdog (see THAW_WATCHDOG_S); answers how to end it. Arguments reach sh as its positional ones only. */
async function thawWatchdog(h: BackupHost, ref: string): Promise<() => void> {
  const uri = await h.virsh.connectUri();
  const script = 'sleep "$1" && exec "$2" -q -c "$3" domfsthaw "$4" >/dev/null 2>&1';
  const child = spawn('sh', ['-c', script, 'irontech-thaw', String(THAW_WATCHDOG_S), h.virshBinary, uri, ref], {
    detached: true,
    stdio: 'ignore',
  });
  child.on('error', () => undefined);
  child.unref();
  return () => killGroup(child);
}

/** Thaws the guest (tried twice): how many file systems it thawed (null: not said), or false when it failed. */
async function thawGuest(h: BackupHost, ref: string): Promise<number | null | false> {
  for (let i = 0; i < 2; i++) {
    try {
      return fsCount(await h.virsh.run(['domfsthaw', ref], { timeoutMs: FREEZE_TIMEOUT_MS }));
    } catch {
      await sleep(500);
    }
  }
  return false;
}

/**
 * Runs `begin` (the `backup-begin` that starts QEMU's point-in-time job) with the guest's file systems frozen through
 * its agent when `freeze`, thawed as soon as it returned or failed. `frozen`: they were frozen from before `begin`
 * until after it (the take's thaw found them still frozen: nobody, not the watchdog, thawed them meanwhile), so the
 * job's instant is a consistent state of every file system. A freeze refused (no agent answering, an agent frozen by
 * a killed portal) is thawed at once (that ends a leftover freeze too) and `begin` runs unfrozen.
 */
async function quiesced(
  h: BackupHost,
  ref: string,
  freeze: boolean,
  begin: () => Promise<unknown>,
): Promise<{ frozen: boolean; ms: number }> {
  if (!freeze) {
    await begin();
    return { frozen: false, ms: 0 };
  }
  const endWatchdog = await thawWatchdog(h, ref);
  const t0 = Date.now();
  const froze = await h.virsh.run(['domfsfreeze', ref], { timeoutMs: FREEZE_TIMEOUT_MS }).then(fsCount, () => 0);
  if (froze === 0) {
    if ((await thawGuest(h, ref)) !== false) endWatchdog();
    await begin();
    return { frozen: false, ms: 0 };
  }
  let thawed: number | null | false;
  try {
    await begin();
  } finally {
    thawed = await thawGuest(h, ref);
    // A thaw that failed twice leaves the watchdog to try again.
    if (thawed !== false) endWatchdog();
  }
  const ms = Date.now() - t0;
  // Still frozen when the take thawed: its count says so, or (no count printed) the watchdog cannot have fired yet.
  const frozen = thawed === null ? ms < THAW_WATCHDOG_S * 1000 : thawed !== false && thawed > 0;
  return { frozen, ms };
}

// ---- the calls ----------------------------------------------------------------------------------------------

/** Removes a backup's own volumes: the manifest first (then nothing looks complete), the seal, then the disk image. */
async function discard(
  h: BackupHost,
  pool: string,
  name: string,
  opts: { refresh?: boolean; present?: Set<string> } = {},
) {
  const v = backupVolumes(name);
  if (opts.refresh !== false && !opts.present) await h.virsh.run(['pool-refresh', pool]);
  for (const vol of [v.manifest, v.seal, v.data])
    if (!opts.present || opts.present.has(vol)) await deleteVolume(h, pool, vol);
}

export async function takeBackup(
  h: BackupHost,
  ref: string,
  name: string,
  opts: { onJobStarted?: () => void } = {},
): Promise<BackupInfo> {
  checkName(name);
  const bp = await h.backupPool();
  const v = backupVolumes(name);
  const disk = h.diskVolume(ref);
  const source = await volInfo(h, h.pool, disk);
  if (source === null) throw new Error(`machine ${ref} has no disk on ${h.virsh.uri}`);
  // A retry redoes it: an earlier attempt's job (a killed portal's) is ended and what it wrote removed.
  let running = h.isRunning(await h.state(ref));
  if (running) await abortBackupJob(h, ref);
  const vols = await settledVolumes(h, bp);
  await discard(h, bp.name, name, { present: vols });
  vols.delete(v.manifest);
  vols.delete(v.data);

  const target = path.posix.join(bp.path, v.data);
  /** Starts QEMU's push job: incremental over `over` (into a qcow2 made over its file), with a new checkpoint or not. */
  const begin = async (over: string | null, withCheckpoint: boolean, freeze: boolean) => {
    if (over) {
      // The file the job writes into: a qcow2 over the previous backup's (only changed clusters land in it).
      const backing = { path: path.posix.join(bp.path, backupVolumes(over).data), format: 'qcow2' as const };
      await withXmlFile(volumeXml(v.data, source.capacity, 'qcow2', backing), (f) =>
        h.virsh.run(['vol-create', '--pool', bp.name, f], { short: true }),
      );
    }
    return withXmlFile(backupXml(target, over ?? undefined), (bf) =>
      withCheckpoint
        ? withXmlFile(checkpointXml(name), (cf) =>
            quiesced(h, ref, freeze, () =>
              h.virsh.run(
                ['backup-begin', ref, '--backupxml', bf, '--checkpointxml', cf, ...(over ? ['--reuse-external'] : [])],
                { short: true },
              ),
            ),
          )
        : quiesced(h, ref, freeze, () => h.virsh.run(['backup-begin', ref, '--backupxml', bf], { short: true })),
    );
  };

  let parent: string | null = null;
  let checkpoint: string | null = null;
  let frozen = { frozen: false, ms: 0 };
  if (running) {
    parent = await incrementalBase(h, bp, ref, vols, source.capacity);
    // A guest with an agent is frozen for the job's start only (decision 0028): its copy is application-consistent.
    const freeze = await agentConnected(h, ref);
    // Incremental over the last backup, else full with a checkpoint, else (a disk that cannot hold a bitmap) full.
    const attempts: { parent: string | null; checkpoint: boolean }[] = [
      ...(parent ? [{ parent, checkpoint: true }] : []),
      { parent: null, checkpoint: true },
      { parent: null, checkpoint: false },
    ];
    for (const [i, a] of attempts.entries()) {
      try {
        frozen = await begin(a.parent, a.checkpoint, freeze);
        parent = a.parent;
        checkpoint = a.checkpoint ? name : null;
        break;
      } catch (e) {
        // It powered off between the look and the call: take it as a powered-off one.
        if (e instanceof VirshError && /not running|inactive domain/i.test(e.stderr)) {
          await discard(h, bp.name, name).catch(() => undefined);
          running = false;
          parent = null;
          break;
        }
        // Refused (a disk without room for bitmaps, a broken bitmap): the next, simpler way, from a clean slate.
        await discard(h, bp.name, name).catch(() => undefined);
        await dropCheckpoints(h, ref).catch(() => undefined);
        if (i === attempts.length - 1) throw e;
      }
    }
    if (running) {
      // QEMU's push job now copies a point in time on its own: the caller may let the machine's other actions go on.
      opts.onJobStarted?.();
      try {
        await waitForBackupJob(h, ref);
      } catch (e) {
        // libvirt removes the file of a push job that did not complete; a manifest was never written anyway. The
        // checkpoint the job made marks a backup that does not exist: the next take starts a new chain. The caller
        // may have let go of the machine (onJobStarted): its checkpoints are dropped here only while it runs (a
        // powered-off machine's would be started paused for it, which a start meanwhile would race); one left on a
        // stopped machine names no backup, and the next take, snapshot revert or move drops it under the lock.
        await discard(h, bp.name, name).catch(() => undefined);
        if (h.isRunning(await h.state(ref).catch(() => null))) await dropCheckpoints(h, ref).catch(() => undefined);
        throw e;
      }
    }
  }
  // Powered off with a chain to build on (its one checkpoint names a backup still committed): started paused (its
  // CPUs never run: no guest code, nothing written) for an incremental job, and powered off again whatever happens
  // (decision 0028). The caller holds the machine's lock to the end (no onJobStarted), so no start races it.
  let paused = false;
  if (!running) {
    const base = await incrementalBase(h, bp, ref, vols, source.capacity, { keep: true });
    if (
      base &&
      (await h.virsh.run(['start', ref, '--paused']).then(
        () => true,
        () => false,
      ))
    ) {
      paused = true;
      try {
        await begin(base, true, false);
        await waitForBackupJob(h, ref);
        parent = base;
        checkpoint = name;
      } catch {
        // Whatever this attempt left (its file, a checkpoint it made) goes; a full copy follows. The checkpoints are
        // dropped while the domain is still up (libvirt 9.0 deletes them only then): the next take is a new chain.
        await abortBackupJob(h, ref).catch(() => undefined);
        await discard(h, bp.name, name).catch(() => undefined);
        await dropCheckpoints(h, ref).catch(() => undefined);
        await h.virsh.run(['destroy', ref]).catch(() => undefined);
        paused = false;
      }
    }
  }
  try {
    if (!running && !parent) {
      // Powered off, no chain to build on: a full copy (libvirt cannot make a checkpoint of an inactive machine). A
      // checkpoint it has that names no committed backup is left for the next running take, snapshot revert or move.
      checkpoint = null;
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

    // backup-begin wrote a file libvirt did not make (a running full take): the pool is rescanned before it is asked.
    if (running && !parent) await h.virsh.run(['pool-refresh', bp.name]);
    const written = await volInfo(h, bp.name, v.data);
    if (written === null) throw new Error(`The backup ${name} is not on ${h.virsh.uri} after its copy`);
    const consistency = running && frozen.frozen ? 'application-consistent' : 'crash-consistent';
    const manifest: BackupManifest = {
      format: 'irontech-backup/2',
      name,
      source: ref,
      mode: running ? 'running' : 'stopped',
      virtualBytes: written.capacity,
      fileBytes: written.bytes,
      sha256: null,
      parent,
      checkpoint,
      consistency,
      takenAt: new Date().toISOString(),
    };
    await uploadSmall(h, bp.name, v.manifest, Buffer.from(JSON.stringify(manifest)), { fresh: true });
    // Only the newest checkpoint is needed (the next take's base): older ones are removed (their bitmaps merged in),
    // a powered-off machine's while it is still up paused.
    if (checkpoint) {
      for (const cp of await checkpointsOf(h, ref))
        if (cp !== checkpoint)
          await h.virsh.run(['checkpoint-delete', ref, cp], { short: true }).catch(() => undefined);
    }
    return {
      sizeBytes: written.bytes,
      incremental: parent !== null,
      consistency,
      ...(frozen.frozen ? { frozenMs: frozen.ms } : {}),
    };
  } finally {
    if (paused) await h.virsh.run(['destroy', ref]).catch(() => undefined);
  }
}

/**
 * Makes `vol` in the machines' pool a copy of backup `name` (flattened, no backing: an incremental one's chain is read
 * through), at least `minBytes` large: a restore's new overlay, or a new machine's disk (restore as new). Whatever is
 * at `vol` already is replaced. Refused before anything is touched when a link of its chain is not committed.
 */
export async function diskFromBackup(h: BackupHost, name: string, vol: string, minBytes: number): Promise<void> {
  checkName(name);
  const bp = await h.backupPool();
  await checkedChain(h, bp, name);
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

/** The backup's chain (newest first) once interrupted merges are finished; throws when it is not whole. */
async function checkedChain(h: BackupHost, bp: BackupPool, name: string): Promise<string[]> {
  const vols = await settledVolumes(h, bp);
  const chain = await chainOf(h, bp, name, vols);
  for (const link of chain)
    if ((await readManifest(h, bp.name, link)) === null)
      throw new Error(`Backup ${link} is not on its target ${h.virsh.uri} (missing or never completed)`);
  return chain;
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
  await checkedChain(h, bp, name);
  const ran = h.isRunning(state);
  if (ran) await h.stop(ref);
  // The snapshots and the checkpoints' bitmaps were inside the qcow2 that is replaced: their metadata would name
  // states the disk no longer has (the next backup is a full one).
  await dropSnapshotMetadata(h, ref);
  await dropCheckpoints(h, ref, { metadataOnly: true });
  const disk = h.diskVolume(ref);
  const current = await volInfo(h, h.pool, disk);
  const minBytes = Math.max(current?.capacity ?? 0, await h.configuredDiskBytes(ref));
  await diskFromBackup(h, name, disk, minBytes);
  if (ran) await h.start(ref);
}

/**
 * Removes a backup. One that another builds on (its child's qcow2 is made over it) is merged into that child first,
 * so the child stays restorable; one already gone is no error.
 */
export async function deleteBackup(h: BackupHost, name: string): Promise<BackupDeleted> {
  checkName(name);
  const merged: BackupDeleted['merged'] = [];
  const bp = await h.backupPool();
  const vols = await settledVolumes(h, bp);
  const mine = path.posix.join(bp.path, backupVolumes(name).data);
  if (vols.has(backupVolumes(name).data)) {
    for (const vol of vols) {
      const child = vol.endsWith('.qcow2') && !vol.endsWith('.merge.qcow2') ? vol.slice(0, -'.qcow2'.length) : null;
      if (!child || child === name || !BACKUP_NAME_RE.test(child)) continue;
      const xml = await h.virsh.maybe(['vol-dumpxml', '--pool', bp.name, vol]);
      const backing = xml && /<backingStore>[\s\S]*?<path>([^<]+)<\/path>/.exec(xml)?.[1];
      if (backing !== mine) continue;
      await mergeIntoChild(h, bp, name, child);
      // The child is now a whole copy: its new size, for the portal's row and storage billing (decision 0027).
      const now = await volInfo(h, bp.name, backupVolumes(child).data);
      const sizeBytes = now && Number.isFinite(now.bytes) ? now.bytes : null;
      merged.push({ name: child, sizeBytes, incremental: false });
    }
  }
  await discard(h, bp.name, name);
  return { merged };
}

/** null when the stored copy is whole; otherwise why not, in words for the backup's row. */
export async function verifyBackup(h: BackupHost, name: string): Promise<string | null> {
  checkName(name);
  const bp = await h.backupPool();
  let chain: string[];
  try {
    chain = await chainOf(h, bp, name, await settledVolumes(h, bp));
  } catch (e) {
    const msg = (e as Error).message;
    if (/is not on its target/.test(msg) && msg.startsWith(`Backup ${name} is`))
      return 'The backup is not on its target (missing, or its copy never completed)';
    if (/builds on/.test(msg)) return `The backup's chain is broken: ${msg}`;
    throw e;
  }
  // Each link: newest first (the backup itself, then what it is made over).
  for (const link of chain) {
    const problem = await verifyLink(h, bp, link);
    if (problem) return link === name ? problem : `The backup ${link} it builds on is damaged: ${problem}`;
  }
  return null;
}

/** One file of a chain: committed, its length and checksum as sealed (sealed now when never), its qcow2 sound. */
async function verifyLink(h: BackupHost, bp: BackupPool, name: string): Promise<string | null> {
  const v = backupVolumes(name);
  const manifest = await readManifest(h, bp.name, name);
  if (manifest === null) return 'The backup is not on its target (missing, or its copy never completed)';
  const info = await volInfo(h, bp.name, v.data);
  if (info === null) return "The backup's disk image is missing from its target";
  const sealed =
    manifest.format === 'irontech-backup/1'
      ? { fileBytes: manifest.fileBytes, sha256: manifest.sha256 ?? '' }
      : await readSmall<BackupSeal>(h, bp.name, v.seal);
  const whole = sealed && typeof sealed.sha256 === 'string' && typeof sealed.fileBytes === 'number';
  if (whole && info.bytes !== sealed.fileBytes && Number.isFinite(info.bytes))
    return `The backup's disk image is ${info.bytes} bytes, ${sealed.fileBytes} when it was taken`;
  return withTempDir(async (dir) => {
    const file = path.join(dir, 'backup.qcow2');
    const read = await downloadVolume(h, bp.name, v.data, file);
    if (whole) {
      if (read.bytes !== sealed.fileBytes)
        return `The backup's disk image read back ${read.bytes} bytes, ${sealed.fileBytes} when it was taken`;
      if (read.sha256 !== sealed.sha256)
        return `The backup's contents changed since it was taken (SHA-256 ${read.sha256.slice(0, 12)}…, ${sealed.sha256.slice(0, 12)}… when taken)`;
    }
    const problem = await qcow2Problem(file, manifest.virtualBytes);
    if (problem === null && !whole) {
      // The first verify: the file as read now is what later ones must find.
      const seal: BackupSeal = { fileBytes: read.bytes, sha256: read.sha256, sealedAt: new Date().toISOString() };
      await uploadSmall(h, bp.name, v.seal, Buffer.from(JSON.stringify(seal)));
    }
    return problem;
  });
}

/** `qemu-img check` and the virtual size of a downloaded qcow2 (its backing file not opened); null when sound. */
async function qcow2Problem(file: string, virtualBytes: number): Promise<string | null> {
  // An incremental one's backing file is on the host: the file is checked alone.
  const alone = `json:${JSON.stringify({ driver: 'qcow2', backing: null, file: { driver: 'file', filename: file } })}`;
  try {
    await execFileP('qemu-img', ['check', alone], { timeout: 600_000 });
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
