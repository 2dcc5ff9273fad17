/**
 * CPU of this process and of everything it started, from /proc: children already reaped (this process's cutime and
 * cstime) and the live ones (a long-lived virsh session and its ssh are never reaped while measured). Processes
 * whose command name is in `apart` (e.g. the test sshd, the "host" side) are counted apart with their subtrees.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 1000 / 100;

interface Stat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime + cutime + cstime, ms. */
  total: number;
}

function stat(pid: number | 'self'): Stat | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return {
      pid: Number(s.slice(0, s.indexOf(' '))),
      ppid: Number(f[1]),
      comm,
      total: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS,
    };
  } catch {
    return null;
  }
}

export interface TreeCpu {
  /** This process alone (utime + stime). */
  self: number;
  /** Its descendants (reaped and live), those in `apart` left out. */
  children: number;
  /** The descendants named in `apart`, with their subtrees. */
  apart: number;
}

export function treeCpuMs(apart: string[] = []): TreeCpu {
  const me = readFileSync('/proc/self/stat', 'utf8');
  const f = me.slice(me.lastIndexOf(')') + 2).split(' ');
  const self = (Number(f[11]) + Number(f[12])) * TICK_MS;
  let children = (Number(f[13]) + Number(f[14])) * TICK_MS;
  let apartMs = 0;
  const all: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s) all.push(s);
  }
  const byParent = new Map<number, Stat[]>();
  for (const s of all) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const walk = (pid: number, isApart: boolean) => {
    for (const c of byParent.get(pid) ?? []) {
      const a = isApart || apart.includes(c.comm);
      if (a) apartMs += c.total;
      else children += c.total;
      walk(c.pid, a);
    }
  };
  walk(process.pid, false);
  return { self, children, apart: apartMs };
}

/** CPU of one process (utime + stime + reaped children), ms; null when it is gone. */
export function processTotalCpuMs(pid: number): number | null {
  return stat(pid)?.total ?? null;
}
