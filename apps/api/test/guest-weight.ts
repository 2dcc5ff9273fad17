/**
 * The CPU weight of this machine's libvirt guests (the `machine` cgroup libvirt starts every QEMU in), lowered while
 * the browser tests run and given back after them.
 *
 * The kernel weighs that group against each process outside it as one task of nice 0, whatever nice the test process
 * or libvirtd runs at. Chromium runs its renderers at nice 5 (weight 335 against the group's 1,024), and beside a TCG
 * guest's busy vCPUs a fresh page's first screen went undrawn for 15-30 s (docs/testing.md). While the browser tests
 * run, the guests weigh as one task of about nice 6 instead: they still take every cycle nobody else wants. The rest
 * of the time (the unit and API files beside the libvirt tests, or the libvirt tests alone) they keep the kernel's
 * default, so their boots are not slowed for nothing. Best effort: a machine whose cgroups are read-only keeps the
 * default. A test machine has only the tests' own guests; the product never does this on its hosts.
 *
 * The real Debian guest's daemon (libvirt-debian.test.ts, a lane of its own) puts its guests in a cpu group of their
 * own (`ownGuestGroup`, cgroup v1: bound over the cpu hierarchy in the daemon's mount namespace, so libvirt's
 * `/machine` is made inside it). That lane is one chain of TCG boots, the run's longest: in the shared `machine` group
 * beside the other libvirt lane's guests, and at a quarter weight inside the browser tests' window, its boots took
 * 300-390 s instead of 50-140 s and it ended alone, a core idle (docs/testing.md, session 23). Its group weighs as two
 * tasks outside that window, so that it is done before the window opens (ci18: 798 s), and as half of one inside it
 * (Chromium's renderers still draw). As one task (ci19) its restores fell in the window again (392 s to Running
 * instead of 135 s, the rebuild 197 s instead of 94 s): a starved TCG guest takes longer and costs more CPU too.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { readPid } from './pid-alive.ts';

const execFileP = promisify(execFile);
const V1 = '/sys/fs/cgroup/cpu';
const V2 = '/sys/fs/cgroup';
const WEIGHTS = {
  low: { v1Shares: 256, v2Weight: 25 },
  default: { v1Shares: 1024, v2Weight: 100 },
} as const;
/** The cpu shares of a daemon's own group (`ownGuestGroup`), outside and inside the browser tests' window. */
const OWN_GROUP_SHARES = { low: 512, default: 2048 } as const;
/** The own groups' names start with this (under the v1 cpu hierarchy's root). */
const OWN_GROUP_PREFIX = 'irontech-guests-';

/** One file per Vitest process running browser tests while it runs them (two may run at once: a developer's beside a run's). */
const BROWSER_TESTS_MARKS = '/tmp/irontech-browser-tests';
const ownMark = () => path.join(BROWSER_TESTS_MARKS, `${process.pid}.pid`);

/** Whether a live process other than this one runs browser tests (a mark a killed run left does not count). */
async function othersRunBrowserTests(): Promise<boolean> {
  const marks = await readdir(BROWSER_TESTS_MARKS).catch(() => [] as string[]);
  for (const m of marks) {
    const file = path.join(BROWSER_TESTS_MARKS, m);
    if (file === ownMark()) continue;
    if ((await readPid(file)) !== null) return true;
  }
  return false;
}

/** The browser tests begin: the guests weigh less until they end. */
export async function browserTestsBegin(): Promise<void> {
  await mkdir(BROWSER_TESTS_MARKS, { recursive: true });
  await writeFile(ownMark(), String(process.pid));
  await weighGuests('low');
}

/** They end here: the guests get their weight back, unless another process still runs browser tests. */
export async function browserTestsEnd(): Promise<void> {
  await rm(ownMark(), { force: true });
  if (!(await othersRunBrowserTests())) await weighGuests('default');
}

/**
 * The weight a starting test libvirtd's guests get: low while a live process runs the browser tests, else the
 * default (a weight a killed run left lowered is given back; the setting outlives the processes).
 */
export async function weighGuestsForNow(): Promise<void> {
  await weighGuests(await weightForNow());
}

/** Low while a live process runs the browser tests, else the default. */
async function weightForNow(): Promise<keyof typeof WEIGHTS> {
  return (await othersRunBrowserTests()) ? 'low' : 'default';
}

/**
 * A cpu group of its own for one libvirtd's guests (cgroup v1, as root; else null: its guests stay in the shared
 * `machine` group), weighed for now. The caller binds the returned directory over the cpu hierarchy in the daemon's
 * mount namespace, and removes it with `removeOwnGuestGroup` once the daemon and its guests are gone.
 */
export async function ownGuestGroup(name: string): Promise<string | null> {
  if (process.getuid?.() !== 0 || !existsSync(path.join(V1, 'cpu.shares'))) return null;
  const dir = path.join(V1, `${OWN_GROUP_PREFIX}${name}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'cpu.shares'), String(OWN_GROUP_SHARES[await weightForNow()]));
    return dir;
  } catch {
    return null;
  }
}

/** Removes an own group (its empty subgroups first: libvirt's `machine` and what a crashed run left in it). */
export async function removeOwnGuestGroup(dir: string): Promise<void> {
  const { stdout } = await execFileP('find', [dir, '-depth', '-type', 'd']).catch(() => ({ stdout: '' }));
  for (const d of stdout.split('\n').filter(Boolean)) await rmdir(d).catch(() => undefined);
}

async function weighGuests(weight: keyof typeof WEIGHTS): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const w = WEIGHTS[weight];
  try {
    if (existsSync(path.join(V1, 'cpu.shares'))) {
      await mkdir(path.join(V1, 'machine'), { recursive: true });
      await writeFile(path.join(V1, 'machine', 'cpu.shares'), String(w.v1Shares));
      for (const own of (await readdir(V1)).filter((n) => n.startsWith(OWN_GROUP_PREFIX)))
        await writeFile(path.join(V1, own, 'cpu.shares'), String(OWN_GROUP_SHARES[weight])).catch(() => undefined);
    } else if (existsSync(path.join(V2, 'cgroup.controllers'))) {
      await mkdir(path.join(V2, 'machine'), { recursive: true });
      await writeFile(path.join(V2, 'machine', 'cpu.weight'), String(w.v2Weight));
    }
  } catch {
    // Read-only or without the cpu controller: the guests keep the kernel's default weight.
  }
}
