/**
 * A cold move of a machine between two libvirt hosts of one provider (docs/draining.md): the driver's moveTo.
 *
 * 1. Both hosts made ready (pool, network, base image); refused when they are one libvirt (same pool UUID).
 * 2. Checks on the target before the machine stops: the disk's base image in its pool, room in its pool, and the
 *    machine's DHCP entries (same MAC, same private and public address) reserved on its networks; an address
 *    another machine holds there refuses the move.
 * 3. The machine stops (ACPI, then destroy after the stop timeout).
 * 4. Each volume (the disk, a copy-on-write qcow2 over its base; the seed ISO) is streamed host to host:
 *    `virsh vol-download` into a FIFO, relayed into `virsh vol-upload` (copyVolume), no copy on the portal's disk.
 * 5. The domain is defined on the target from the same metadata (name, UUID and MACs derive from the machine's key),
 *    its snapshots' metadata redefined there (the snapshots themselves are inside the copied qcow2, decision 0019;
 *    pool paths in their XML rewritten to the target's), and started there if it ran.
 * 6. Only then is it removed from the source (undefine, volumes, DHCP entries).
 * A failure in 3–5 discards what the target got and starts the machine again where it was: it stays on the source,
 * defined and in its previous power state. A failure in 6 throws a MoveUnfinishedError (retried until it works): the retry finds the
 * machine defined on the target, marked as copied from this source, and the source stopped, and finishes the removal
 * (an earlier attempt's state is read from both hosts, so a retried or resumed move never copies twice; a copy on the
 * target without that mark, an older one, is discarded rather than kept over the source's).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { constants, createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { MOVE_UNFINISHED, MoveUnfinishedError, TransientProviderError, type ProviderDriver } from '../provider.ts';
import { dropCheckpoints } from './backups.ts';
import type { Virsh } from './virsh.ts';
import { snapshotDefinitions } from './snapshots.ts';
import type { MachineMeta } from './xml.ts';
import { volumes } from './names.ts';

const execFileP = promisify(execFile);

/** What a move needs of a host, at either end (built by the libvirt driver over its own virsh and settings). */
export interface MoveEndpoint {
  /** The host's URI as stored (messages). */
  label: string;
  virsh: Virsh;
  virshBinary: string;
  pool: string;
  /** Pool, network and base image ready (as before a create). */
  prepare(): Promise<void>;
  meta(ref: string): Promise<MachineMeta>;
  /** The machine's private address from the host's DHCP leases (null: none known). */
  leasedAddress(ref: string): Promise<string | null>;
  /** libvirt's state word, or null when the host has no such domain. */
  state(ref: string): Promise<string | null>;
  isDefined(ref: string): Promise<boolean>;
  /** ACPI shutdown, then destroy after the driver's stop timeout. */
  stop(ref: string): Promise<void>;
  start(ref: string): Promise<void>;
  /** Defines the domain from its metadata with this host's pool and networks. */
  define(ref: string, meta: MachineMeta): Promise<void>;
  /** The machine's static DHCP entries (its MACs and addresses) on this host's networks. */
  reserve(ref: string, meta: MachineMeta): Promise<void>;
  release(ref: string): Promise<void>;
  undefine(ref: string): Promise<void>;
  deleteVolumes(ref: string): Promise<void>;
  /** Serialises actions on one machine in this process (the driver's own lock). */
  lock<T>(ref: string, fn: () => Promise<T>): Promise<T>;
  /** How long one volume's copy may take. */
  copyTimeoutMs: number;
}

/** The libvirt driver's other end of a move. */
export interface MovableDriver extends ProviderDriver {
  moveEndpoint(): MoveEndpoint;
}

export const isRunningState = (state: string | null) =>
  state === 'running' || state === 'paused' || state === 'in shutdown' || state === 'blocked';

export async function moveMachine(
  from: MoveEndpoint,
  target: ProviderDriver,
  ref: string,
  opts: { running: boolean },
): Promise<void> {
  const to = (target as Partial<MovableDriver>).moveEndpoint?.();
  if (!to) throw new Error(`A libvirt machine moves only to another libvirt host (not ${target.kind})`);
  await from.lock(ref, () => to.lock(ref, () => move(from, to, ref, opts)));
}

async function poolUuid(e: MoveEndpoint): Promise<string> {
  return (await e.virsh.run(['pool-uuid', e.pool])).trim();
}

/** The mark a move puts on the definition it makes on the target: which host (pool) the copy came from. */
const MOVE_NS = 'urn:irontech:move';

/** The pool UUID of the host the target's copy was made from, or null (no mark: not a copy a move made). */
async function copiedFrom(to: MoveEndpoint, ref: string): Promise<string | null> {
  try {
    const out = await to.virsh.run(['metadata', ref, '--uri', MOVE_NS, '--config']);
    return /from=["']([^"']+)["']/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

async function move(from: MoveEndpoint, to: MoveEndpoint, ref: string, opts: { running: boolean }) {
  await Promise.all([from.prepare(), to.prepare()]);
  // Two URIs of one daemon would copy a volume onto itself and then delete it.
  const fromPool = await poolUuid(from);
  if (fromPool === (await poolUuid(to))) throw new Error(`${from.label} and ${to.label} are the same libvirt host`);

  const fromState = await from.state(ref);
  const onTarget = await to.isDefined(ref);
  if (fromState === null) {
    if (!onTarget) throw new Error(`machine ${ref} is on neither ${from.label} nor ${to.label}`);
    // An earlier attempt moved it and removed it here (its outcome was not recorded): only its start may be left.
    if (opts.running && !isRunningState(await to.state(ref))) await to.start(ref);
    return;
  }
  if (onTarget) {
    if (!isRunningState(fromState) && (await copiedFrom(to, ref)) === fromPool) {
      // An earlier attempt defined it there after a complete copy from here (definition and its mark are the copy's
      // last steps), then stopped short of removing it here: finish that.
      if (opts.running && !isRunningState(await to.state(ref))) await to.start(ref);
      await removeSource(from, ref);
      return;
    }
    // Otherwise what the target holds is not this machine's latest copy (an attempt rolled back without cleaning
    // up, or a copy left there long ago): it goes, and the machine is copied from here.
    await discard(to, ref);
  }

  const stored = await from.meta(ref);
  // The address the guest really holds wins over the one its definition recorded (they differ when the source's DHCP
  // handed out another one): the portal shows the leased one, and that is the one the target's DHCP must give.
  const leased = isRunningState(fromState) ? await from.leasedAddress(ref) : null;
  const meta = leased && stored.privateIp ? { ...stored, privateIp: leased } : stored;
  const wasRunning = isRunningState(fromState) || opts.running;
  const vols = await volumesToCopy(from, ref);
  await checkTarget(to, vols);
  try {
    await to.reserve(ref, meta);
  } catch (err) {
    await to.release(ref).catch(() => undefined);
    if (err instanceof TransientProviderError) throw err;
    const held = /existing dhcp host entry/i.test(
      String((err as { stderr?: unknown }).stderr ?? (err as Error).message),
    );
    throw new Error(
      held
        ? `${to.label} has another machine on address ${meta.privateIp ?? meta.publicIp}; the VM stays on ${from.label}`
        : (err as Error).message,
      { cause: err },
    );
  }

  try {
    // Checkpoints (backups.ts) are not carried: their bitmaps would travel inside the qcow2 without the metadata that
    // lets libvirt remove them, and a snapshot revert there would fail on them. The next backup there is a full one.
    await dropCheckpoints(from, ref);
    await from.stop(ref);
    const snapshots = await snapshotDefinitions(from.virsh, ref);
    for (const v of vols) await copyVolume(from, to, v.name, v.bytes);
    await to.define(ref, meta);
    await redefineSnapshots(from, to, ref, snapshots);
    await to.virsh.run([
      'metadata',
      ref,
      '--uri',
      MOVE_NS,
      '--key',
      'move',
      '--set',
      `<move from="${fromPool}"/>`,
      '--config',
    ]);
    if (wasRunning) await to.start(ref);
  } catch (err) {
    // Nothing half-moved: the target forgets it, the source has it as it was.
    await discard(to, ref).catch(() => undefined);
    if (wasRunning) await from.start(ref).catch(() => undefined);
    throw err;
  }
  await removeSource(from, ref);
}

/** The pool's directory on a host (its snapshots' XML names their disk by path). */
async function poolPath(e: MoveEndpoint): Promise<string> {
  const xml = await e.virsh.run(['pool-dumpxml', e.pool]);
  const found = /<path>([^<]+)<\/path>/.exec(xml)?.[1];
  if (!found) throw new Error(`Pool ${e.pool} on ${e.label} has no path`);
  return found.replace(/\/+$/, '');
}

/**
 * The machine's snapshots known to libvirt on the target, parents first, the current one marked so (the snapshots'
 * data came inside the qcow2). `snapshot-create --redefine` takes their XML, with the source pool's path made the
 * target's.
 */
async function redefineSnapshots(
  from: MoveEndpoint,
  to: MoveEndpoint,
  ref: string,
  snapshots: { xml: string; current: boolean }[],
) {
  if (snapshots.length === 0) return;
  const [fromPath, toPath] = await Promise.all([poolPath(from), poolPath(to)]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-snap-'));
  try {
    for (const [i, snap] of snapshots.entries()) {
      const file = path.join(dir, `${i}.xml`);
      await writeFile(file, snap.xml.split(`${fromPath}/`).join(`${toPath}/`));
      await to.virsh.run([
        'snapshot-create',
        ref,
        '--xmlfile',
        file,
        '--redefine',
        ...(snap.current ? ['--current'] : []),
      ]);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function removeSource(from: MoveEndpoint, ref: string) {
  try {
    await from.undefine(ref);
    await from.deleteVolumes(ref);
    await from.release(ref);
  } catch (err) {
    throw new MoveUnfinishedError(`${MOVE_UNFINISHED} (${ref} on ${from.label}): ${(err as Error).message}`, {
      cause: err,
    });
  }
}

async function discard(to: MoveEndpoint, ref: string) {
  if (isRunningState(await to.state(ref))) await to.virsh.run(['destroy', ref]).catch(() => undefined);
  await to.undefine(ref);
  await to.deleteVolumes(ref);
  await to.release(ref);
}

interface VolumeToCopy {
  name: string;
  /** The file's length on the source host (a qcow2 disk: its allocated size, not its virtual size). */
  bytes: number;
  /** The disk's base image (a path in the pool), when it has one. */
  backing: string | null;
}

async function volumesToCopy(from: MoveEndpoint, ref: string): Promise<VolumeToCopy[]> {
  await from.virsh.run(['pool-refresh', from.pool]);
  const v = volumes(ref);
  const out: VolumeToCopy[] = [];
  for (const name of [v.disk, v.seed]) {
    const info = await from.virsh.maybe(['vol-info', '--bytes', '--physical', '--pool', from.pool, name]);
    if (info === null) {
      if (name === v.disk) throw new Error(`machine ${ref} has no disk on ${from.label}`);
      continue;
    }
    const bytes = Number(/^(?:Physical|Allocation):\s+(\d+)/m.exec(info)?.[1] ?? Number.NaN);
    if (!Number.isFinite(bytes)) throw new Error(`cannot read the size of ${name} on ${from.label}`);
    const xml = await from.virsh.run(['vol-dumpxml', '--pool', from.pool, name]);
    const backing = /<backingStore>[\s\S]*?<path>([^<]+)<\/path>/.exec(xml)?.[1] ?? null;
    out.push({ name, bytes, backing });
  }
  return out;
}

/** The target can take the volumes: the disk's base image is in its pool at the same path, and its pool has room. */
async function checkTarget(to: MoveEndpoint, vols: VolumeToCopy[]) {
  await to.virsh.run(['pool-refresh', to.pool]);
  for (const v of vols) {
    if (v.backing && (await to.virsh.maybe(['vol-info', v.backing])) === null)
      throw new Error(`${to.label} has no base image ${v.backing} in its pool; the VM stays where it is`);
  }
  const info = await to.virsh.run(['pool-info', '--bytes', to.pool]);
  const available = Number(/^Available:\s+(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  const need = vols.reduce((n, v) => n + v.bytes, 0);
  if (Number.isFinite(available) && available < need)
    throw new Error(`${to.label}'s pool has ${available} bytes free, the VM's volumes take ${need}`);
}

/**
 * Streams one volume from host to host, nothing on the portal's disk: `virsh vol-download` writes into a FIFO, the
 * portal relays (and counts) the bytes into a second FIFO that `virsh vol-upload` reads. (virsh opens its file by
 * name: /dev/stdout is a socket under Node, which open() refuses.)
 */
async function copyVolume(from: MoveEndpoint, to: MoveEndpoint, name: string, bytes: number) {
  await to.virsh.maybe(['vol-delete', '--pool', to.pool, name]);
  // A raw volume of the file's length takes the bytes as they are (a qcow2 disk stays a qcow2 file over its base).
  await to.virsh.run(['vol-create-as', '--pool', to.pool, name, `${bytes}B`, '--format', 'raw']);
  const [fromUri, toUri] = await Promise.all([from.virsh.connectUri(), to.virsh.connectUri()]);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-move-'));
  const fifos = { down: path.join(dir, 'down'), up: path.join(dir, 'up') };
  try {
    await execFileP('mkfifo', ['-m', '600', fifos.down, fifos.up]);
    const run = (binary: string, args: string[]) =>
      spawn(binary, ['-q', '-c', ...args], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    const down = run(from.virshBinary, [fromUri, 'vol-download', '--pool', from.pool, name, fifos.down]);
    const up = run(to.virshBinary, [toUri, 'vol-upload', '--pool', to.pool, name, fifos.up]);
    let copied = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        copied += chunk.length;
        done(null, chunk);
      },
    });
    const relay = pipeline(createReadStream(fifos.down), counter, createWriteStream(fifos.up)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    let failure: string | null = null;
    const abort = (why: string) => {
      failure ??= why;
      for (const child of [down, up]) killGroup(child);
      // Ends the relay's opens that wait for a peer that will never come.
      void unblock(fifos.down, constants.O_WRONLY | constants.O_NONBLOCK);
      void unblock(fifos.up, constants.O_RDONLY | constants.O_NONBLOCK);
    };
    const exits = [exitOf(down), exitOf(up)] as const;
    void exits[0].then((r) => r.code !== 0 && abort(`vol-download: ${r.stderr.slice(0, 300)}`));
    void exits[1].then((r) => r.code !== 0 && abort(`vol-upload: ${r.stderr.slice(0, 300)}`));
    const timer = setTimeout(() => abort(`no end within ${from.copyTimeoutMs} ms`), from.copyTimeoutMs);
    const relayError = await relay;
    await Promise.all(exits);
    clearTimeout(timer);
    const what = `copying ${name} to ${to.label}`;
    if (failure) throw new TransientProviderError(`${what} failed: ${failure}`);
    if (relayError) throw new TransientProviderError(`${what} failed: ${relayError.message}`);
    if (copied !== bytes) throw new TransientProviderError(`${what}: ${copied} of ${bytes} bytes`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await to.virsh.run(['pool-refresh', to.pool]);
}

async function unblock(fifo: string, flags: number) {
  try {
    await (await open(fifo, flags)).close();
  } catch {
    // No one waits on that end.
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
