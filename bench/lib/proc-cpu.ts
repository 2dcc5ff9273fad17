/** CPU time of processes from /proc (Linux), in microseconds: a server process, and PostgreSQL's backends. */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ

function stat(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces; the fields after it are space separated.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // the process has ended
  }
}

/** utime + stime of one process. */
export function processCpuUs(pid: number): number {
  const f = stat(pid);
  return f ? (Number(f[11]) + Number(f[12])) * TICK_US : 0;
}

/** Per-process CPU of the postmaster's children (backends and helpers), keyed by pid. */
export function postgresCpuUs(postmasterPid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = stat(Number(name));
    if (f && Number(f[1]) === postmasterPid) out.set(Number(name), (Number(f[11]) + Number(f[12])) * TICK_US);
  }
  return out;
}

/** CPU the postmaster's children used between two samples (a backend started in between counts from zero). */
export function postgresCpuDeltaUs(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, us] of after) total += us - (before.get(pid) ?? 0);
  return total;
}
