/**
 * One process at a time on an embedded (PGlite) database (issue 23 item 7). PGlite keeps the database in the
 * process's memory and writes it back to DATA_DIR: a second process opening the same directory (an operator
 * command while the portal runs) read a copy, wrote its change into it, exited 0, and the running portal never
 * saw the change (and could overwrite it). Whoever opens DATA_DIR/pglite writes DATA_DIR/pglite.lock (its pid and
 * what it is) with O_EXCL; another process finding a live holder is refused with a message that says what to do.
 * A lock whose process is gone (killed, machine restarted) is taken over.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type DataDirRole = 'server' | 'operator command' | 'process';

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    message: string,
    readonly holderPid: number,
    readonly holderRole: string,
  ) {
    super(message);
  }
}

/** This process's open locks: dir -> how many openDatabase calls hold it (tests open one directory twice). */
const held = new Map<string, number>();

const lockFile = (dir: string) => join(resolve(dir), 'pglite.lock');

/** When the process started (Linux: /proc/<pid>/stat's field 22, in clock ticks since boot); '' elsewhere. */
function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** The holder still runs: its pid is alive and, where known, started when the lock says (a container restarted
 * with the same small pids, or a reused pid, is not the holder). */
function alive(holder: { pid: number; started: string }): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTime(holder.pid);
  return !holder.started || !now || now === holder.started;
}

function readHolder(file: string): { pid: number; role: string; started: string } | null {
  try {
    const [pid = '', role = 'process', started = ''] = readFileSync(file, 'utf8').split('\n');
    return /^\d+$/.test(pid) ? { pid: Number(pid), role: role || 'process', started } : null;
  } catch {
    return null;
  }
}

/** The message for a directory in use; `shown` is DATA_DIR as the operator wrote it. */
export function inUseMessage(shown: string, holder: { pid: number; role: string }): string {
  return holder.role === 'server'
    ? `The portal is running on the embedded database in ${shown} (pid ${holder.pid}): stop it first, or use DATABASE_URL (PostgreSQL) to change it while it runs.`
    : `The embedded database in ${shown} is in use by another ${holder.role} (pid ${holder.pid}): wait for it to end, or use DATABASE_URL (PostgreSQL) for more than one process at a time.`;
}

/** Takes DATA_DIR's lock for this process; throws DataDirInUseError when a live process holds it. Returns the release. */
export function lockDataDir(dir: string, role: DataDirRole = 'process'): () => void {
  const file = lockFile(dir);
  const mine = held.get(file);
  if (mine !== undefined) {
    held.set(file, mine + 1);
    return once(file);
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n${role}\n${startTime(process.pid)}\n`);
      closeSync(fd);
      held.set(file, 1);
      return once(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 4) throw e;
      const holder = readHolder(file);
      if (holder && holder.pid !== process.pid && alive(holder))
        throw new DataDirInUseError(inUseMessage(dir, holder), holder.pid, holder.role);
      // Empty: its writer may be between creating and writing it; look again shortly before taking it over.
      if (!holder && attempt < 2) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      // Its process is gone (or the file is half-written by a crash): take it over.
      rmSync(file, { force: true });
    }
  }
}

function once(file: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (held.get(file) ?? 1) - 1;
    if (n > 0) {
      held.set(file, n);
      return;
    }
    held.delete(file);
    if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}
