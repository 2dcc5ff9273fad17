/**
 * The QEMU driver against real QEMU on this host (TCG when KVM does not work): one machine is created,
 * operated and deleted. Needs apt `qemu-system-x86 busybox-static linux-image-amd64`, which `.ci/run`
 * installs. Every QEMU process started under the test's state directory is killed in afterAll.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MachineSpec, ProviderDriver } from '../provider.ts';
import { createProviderRegistry } from '../registry.ts';
import { findKernel, findStaticBusybox } from './guest.ts';
import { createQemuDriver, qemuPidsUnder, refForKey } from './qemu.ts';

const MISSING = 'QEMU test prerequisites are missing; `.ci/run` installs them (apt-get install qemu-system-x86 busybox-static linux-image-amd64)';

let stateDir = '';
let driver: ProviderDriver;
let ref = '';

const spec: MachineSpec = {
  key: 'vm-qemu-unit-1',
  name: 'qemu-unit',
  image: 'debian-12',
  cpu: 1,
  ramGb: 4,
  diskGb: 20,
  region: 'local',
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample test@example',
  password: 'not-stored',
};

const count = (text: string, needle: string) => text.split(needle).length - 1;
/** The CPU count the guest printed in its last boot banner. */
const lastCpus = (text: string) => [...text.matchAll(/irontech-guest: booted \S+ with cpus=(\d+)/g)].at(-1)?.[1];

/** Why this host cannot run the test, if it cannot: every test then fails with it (none is skipped). */
let missing: string | null = null;

beforeAll(async () => {
  try {
    execFileSync('qemu-system-x86_64', ['--version'], { stdio: 'pipe' });
  } catch (e) {
    missing = `${MISSING}: qemu-system-x86_64 is not runnable (${(e as Error).message})`;
    return;
  }
  if (!(await findKernel())) missing = `${MISSING}: no /boot/vmlinuz-*`;
  else if (!(await findStaticBusybox())) missing = `${MISSING}: no static /bin/busybox`;
  if (missing) return;
  stateDir = await mkdtemp(path.join(os.tmpdir(), 'qemu-unit-'));
  driver = createProviderRegistry().driverFor({ id: 1, driver: 'qemu', settings: { stateDir, maxRamMb: 192, maxCpus: 2, bootTimeoutMs: 45_000 } });
});

beforeEach(() => {
  if (missing) throw new Error(missing);
});

afterAll(async () => {
  if (!stateDir) return;
  for (const pid of await qemuPidsUnder(stateDir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  await rm(stateDir, { recursive: true, force: true });
});

describe('QEMU driver', { timeout: 60_000 }, () => {
  it('creates a machine that boots to a login prompt on its serial console', async () => {
    const created = await driver.create(spec);
    ref = created.ref;
    expect(ref).toBe(refForKey(spec.key));
    expect(created).toMatchObject({ publicIp: null, privateIp: null });
    const text = await driver.console(ref);
    expect(text).toContain('Linux version');
    expect(text).toMatch(/qemu-unit login: $/);
    expect(lastCpus(text)).toBe('1');
    expect(await qemuPidsUnder(stateDir)).toHaveLength(1);
    // The password is not kept on disk.
    expect(await readFile(path.join(stateDir, ref, 'machine.json'), 'utf8')).not.toContain('not-stored');
  });

  it('is idempotent by key, concurrently and from a fresh driver over the same state', async () => {
    const [a, b] = await Promise.all([driver.create(spec), driver.create(spec)]);
    expect(a.ref).toBe(ref);
    expect(b.ref).toBe(ref);
    const restarted = createQemuDriver({ stateDir });
    expect((await restarted.create(spec)).ref).toBe(ref);
    expect(await restarted.status(ref)).toBe('running');
    expect(await qemuPidsUnder(stateDir)).toHaveLength(1);
  });

  it('reports status, usage and health', async () => {
    expect(await driver.status(ref)).toBe('running');
    expect(await driver.status('qemu-00000000000000000000')).toBe('missing');
    expect(await driver.status('../etc')).toBe('missing');
    const first = await driver.usage(ref);
    await new Promise((r) => setTimeout(r, 300));
    const usage = await driver.usage(ref);
    for (const u of [first, usage]) {
      expect(u.cpuPercent).toBeGreaterThanOrEqual(0);
      expect(u.cpuPercent).toBeLessThanOrEqual(100);
      expect(u.ramUsedGb).toBeGreaterThan(0);
      expect(u.ramUsedGb).toBeLessThan(1);
    }
    const health = await driver.health();
    expect(health.healthy).toBe(true);
    expect(health.detail).toMatchObject({ running: 1, accel: expect.stringMatching(/^(kvm|tcg)$/) });
  });

  it('resets: the console shows a second boot', async () => {
    expect(count(await driver.console(ref), 'Linux version')).toBe(1);
    await driver.reset(ref);
    const text = await driver.console(ref);
    expect(count(text, 'Linux version')).toBe(2);
    expect(count(text, 'qemu-unit login: ')).toBe(2);
    expect(text).toMatch(/qemu-unit login: $/);
    expect(await driver.status(ref)).toBe('running');
  });

  it('stops (clean ACPI power-off, no process left) and starts again', async () => {
    await driver.stop(ref);
    expect(await driver.status(ref)).toBe('stopped');
    expect(await qemuPidsUnder(stateDir)).toHaveLength(0);
    expect(await driver.usage(ref)).toEqual({ cpuPercent: 0, ramUsedGb: 0 });
    const stopped = await driver.console(ref);
    expect(stopped).toContain('power button pressed');
    expect(stopped).toContain('reboot: Power down');
    await driver.stop(ref); // idempotent
    await driver.start(ref);
    expect(await driver.status(ref)).toBe('running');
    expect(await driver.console(ref)).toMatch(/qemu-unit login: $/);
    await driver.start(ref); // idempotent
    expect(await qemuPidsUnder(stateDir)).toHaveLength(1);
  });

  it('powers off at once without asking the guest (force stop), and starts again', async () => {
    const asked = count(await driver.console(ref), 'power button pressed');
    await driver.forceStop(ref);
    expect(await driver.status(ref)).toBe('stopped');
    expect(await qemuPidsUnder(stateDir)).toHaveLength(0);
    // The guest was not asked: no new ACPI power-button event on its console.
    expect(count(await driver.console(ref), 'power button pressed')).toBe(asked);
    await driver.forceStop(ref); // idempotent
    await driver.start(ref);
    expect(await driver.status(ref)).toBe('running');
    expect(await driver.console(ref)).toMatch(/qemu-unit login: $/);
  });

  it('resizes a running machine: it reboots with the new vCPU count', async () => {
    await driver.resize(ref, { cpu: 2, ramGb: 8, diskGb: 40 });
    expect(await driver.status(ref)).toBe('running');
    const text = await driver.console(ref);
    expect(lastCpus(text)).toBe('2');
    expect(text).toMatch(/qemu-unit login: $/);
    const [pid] = await qemuPidsUnder(stateDir);
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    expect(cmdline[cmdline.indexOf('-smp') + 1]).toBe('2');
    expect(cmdline[cmdline.indexOf('-m') + 1]).toBe('192'); // 8 GB billed, capped by maxRamMb
  });

  it('deletes: missing, no process and no state left', async () => {
    await driver.delete(ref);
    expect(await driver.status(ref)).toBe('missing');
    expect(await qemuPidsUnder(stateDir)).toHaveLength(0);
    expect(existsSync(path.join(stateDir, ref))).toBe(false);
    await driver.delete(ref); // idempotent
    await expect(driver.console(ref)).rejects.toThrow(/does not exist/);
  });
});
