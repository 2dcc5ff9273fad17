/**
 * The QEMU driver: real guests on this host. Each machine is one daemonised `qemu-system-x86_64` process
 * booting a Debian kernel with a busybox initramfs (see guest.ts), its serial console written to a log
 * file (the text console), controlled over a QMP unix socket. No network device is given to the guest.
 *
 * Every machine has a directory `<stateDir>/<ref>/` holding `machine.json` (key, spec without the
 * password, phase, the size it runs at), `qemu.pid`, `qmp.sock` and `console.log`. The ref is derived
 * from the idempotency key, so a create with the same key finds the same machine, even from another
 * process or after the portal restarted (the QEMU processes outlive it).
 *
 * Power: "stopped" means no QEMU process (stop asks the guest to power off over ACPI, then quits QEMU);
 * start boots a new process. The spec's size is the billed size; the guest runs with at most
 * `maxRamMb` MB and `maxCpus` vCPUs so a demo host can afford it.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants, existsSync } from 'node:fs';
import { access, appendFile, mkdir, open, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { TransientProviderError, type CreatedMachine, type MachineSpec, type MachineState, type ProviderDriver, type Usage } from '../provider.ts';
import { LOGIN_PROMPT_SUFFIX, ensureInitramfs, findKernel, findStaticBusybox } from './guest.ts';
import { qmpCommand } from './qmp.ts';

const execFileP = promisify(execFile);

export const qemuSettingsSchema = z.object({
  /** Where machines live (one directory each). Default: `<tmpdir>/irontech-qemu`. */
  stateDir: z.string().min(1).max(200).optional(),
  /** Where the built initramfs and the accelerator probe are cached. Default: `<tmpdir>/irontech-qemu-cache`. */
  cacheDir: z.string().min(1).max(500).optional(),
  /** The emulator binary. Default: `qemu-system-x86_64` on the PATH. */
  qemuBinary: z.string().min(1).max(500).optional(),
  /** Guest kernel. Default: the newest `/boot/vmlinuz-*` (apt `linux-image-amd64`). */
  kernelPath: z.string().min(1).max(500).optional(),
  /** A static busybox. Default: `/bin/busybox` from apt `busybox-static`. */
  busyboxPath: z.string().min(1).max(500).optional(),
  /** `auto` (default) uses KVM only when /dev/kvm opens and a probe boot proves it works, else TCG. */
  accel: z.enum(['auto', 'kvm', 'tcg']).optional(),
  /** Most RAM a guest really gets, in MB (default 256); the spec's RAM is what is billed. */
  maxRamMb: z.number().int().min(128).max(1_048_576).optional(),
  /** Most vCPUs a guest really gets (default: host cores, at most 4); the spec's CPUs are what is billed. */
  maxCpus: z.number().int().min(1).max(64).optional(),
  /** How long a boot may take before the action fails transiently (default 60 s; TCG boots take ~5 s). */
  bootTimeoutMs: z.number().int().min(1000).max(600_000).optional(),
  /** How long stop waits for the guest's clean power-off before quitting QEMU (default 5 s). */
  stopTimeoutMs: z.number().int().min(0).max(600_000).optional(),
});
export type QemuSettings = z.infer<typeof qemuSettingsSchema>;

type StoredSpec = Omit<MachineSpec, 'password'>;

interface MachineFile {
  ref: string;
  key: string;
  spec: StoredSpec;
  /** `creating` until the first boot reached its prompt. */
  phase: 'creating' | 'created';
  createdAt: string;
  /** What the current (or last) QEMU process was given. */
  run?: { cpus: number; ramMb: number; accel: 'kvm' | 'tcg'; logOffset: number; startedAt: string };
}

const REF_RE = /^qemu-[0-9a-f]{20}$/;
const CLK_TCK = 100; // Linux USER_HZ on x86-64
const CONSOLE_TAIL_BYTES = 64 * 1024;
const MAX_LOG_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function refForKey(key: string): string {
  return `qemu-${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
}

/** The guest's hostname: the machine name reduced to what a hostname may hold. */
export function guestHostname(name: string): string {
  const h = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return h || 'vm';
}

/** QEMU option values escape commas by doubling them. */
const optPath = (p: string) => p.replace(/,/g, ',,');

export function createQemuDriver(settings: QemuSettings = {}): ProviderDriver {
  const stateDir = path.resolve(settings.stateDir ?? path.join(os.tmpdir(), 'irontech-qemu'));
  const cacheDir = path.resolve(settings.cacheDir ?? path.join(os.tmpdir(), 'irontech-qemu-cache'));
  const qemuBinary = settings.qemuBinary ?? 'qemu-system-x86_64';
  const maxRamMb = settings.maxRamMb ?? 256;
  const maxCpus = settings.maxCpus ?? Math.max(1, Math.min(4, os.availableParallelism()));
  const bootTimeoutMs = settings.bootTimeoutMs ?? 60_000;
  const stopTimeoutMs = settings.stopTimeoutMs ?? 5_000;

  const creating = new Map<string, Promise<CreatedMachine>>();
  const locks = new Map<string, Promise<unknown>>();
  const cpuSamples = new Map<string, { pid: number; ticks: number; at: number }>();

  /** Serialises the actions on one machine inside this process. */
  function withLock<T>(ref: string, fn: () => Promise<T>): Promise<T> {
    const prev = locks.get(ref) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    locks.set(ref, tail);
    void tail.then(() => {
      if (locks.get(ref) === tail) locks.delete(ref);
    });
    return next;
  }

  const dirOf = (ref: string) => {
    if (!REF_RE.test(ref)) throw new Error(`"${ref}" is not a QEMU machine reference`);
    return path.join(stateDir, ref);
  };
  const files = (ref: string) => {
    const dir = dirOf(ref);
    return {
      dir,
      machine: path.join(dir, 'machine.json'),
      pid: path.join(dir, 'qemu.pid'),
      qmp: path.join(dir, 'qmp.sock'),
      log: path.join(dir, 'console.log'),
    };
  };

  async function readMachine(ref: string): Promise<MachineFile | null> {
    try {
      return JSON.parse(await readFile(files(ref).machine, 'utf8')) as MachineFile;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }
  async function writeMachine(m: MachineFile) {
    const f = files(m.ref);
    const tmp = `${f.machine}.tmp`;
    await writeFile(tmp, JSON.stringify(m, null, 2));
    await rename(tmp, f.machine);
  }
  async function mustMachine(ref: string): Promise<MachineFile> {
    const m = await readMachine(ref);
    if (!m) throw new Error(`QEMU machine ${ref} does not exist`);
    return m;
  }

  /** The QEMU pid of a machine when that process is alive (and really is this machine's QEMU). */
  async function livePid(ref: string): Promise<number | null> {
    const f = files(ref);
    let pid: number;
    try {
      pid = Number.parseInt((await readFile(f.pid, 'utf8')).trim(), 10);
    } catch {
      return null;
    }
    if (!Number.isInteger(pid) || pid <= 1) return null;
    try {
      const st = await readFile(`/proc/${pid}/stat`, 'utf8');
      const state = st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') return null;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
      return cmdline.includes(f.pid) ? pid : null;
    } catch {
      return null;
    }
  }

  async function waitForExit(ref: string, ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if ((await livePid(ref)) === null) return true;
      await sleep(100);
    }
    return (await livePid(ref)) === null;
  }

  // ---- guest and accelerator -------------------------------------------------------------------------

  let guestPromise: Promise<{ kernel: string; initrd: string }> | null = null;
  function guest() {
    guestPromise ??= (async () => {
      const kernel = settings.kernelPath ?? (await findKernel());
      if (!kernel) throw new Error('No guest kernel: no /boot/vmlinuz-* (apt-get install linux-image-amd64, or set kernelPath)');
      await access(kernel, fsConstants.R_OK);
      const busybox = settings.busyboxPath ?? (await findStaticBusybox());
      if (!busybox) throw new Error('No static busybox for the guest (apt-get install busybox-static, or set busyboxPath)');
      const initrd = await ensureInitramfs({ cacheDir, kernelPath: kernel, busyboxPath: busybox });
      return { kernel, initrd };
    })();
    guestPromise.catch(() => (guestPromise = null));
    return guestPromise;
  }

  let accelPromise: Promise<'kvm' | 'tcg'> | null = null;
  function accel() {
    accelPromise ??= (async () => {
      if (settings.accel === 'kvm' || settings.accel === 'tcg') return settings.accel;
      try {
        await access('/dev/kvm', fsConstants.R_OK | fsConstants.W_OK);
      } catch {
        return 'tcg';
      }
      // /dev/kvm can open yet not run a guest (nested virtualisation without the CPU features a Linux
      // kernel wants). Boot the guest kernel under KVM for a moment: a working KVM prints its first
      // console line well under a second. The answer is cached per host boot, binary and kernel.
      const { kernel } = await guest();
      const bootId = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').catch(() => 'unknown');
      const cacheFile = path.join(cacheDir, `accel-${createHash('sha256').update(`${bootId.trim()}|${qemuBinary}|${kernel}`).digest('hex').slice(0, 16)}.json`);
      try {
        const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as { accel?: unknown };
        if (cached.accel === 'kvm' || cached.accel === 'tcg') return cached.accel;
      } catch {
        /* probe */
      }
      const works = await probeKvm(kernel);
      // A binary that does not run proves nothing about KVM: fail now, probe again next time.
      if (works === null) throw new Error(`${qemuBinary} is not installed (apt-get install qemu-system-x86)`);
      const result = works ? 'kvm' : 'tcg';
      await mkdir(cacheDir, { recursive: true });
      await writeFile(cacheFile, JSON.stringify({ accel: result, probedAt: new Date().toISOString() }));
      return result;
    })();
    accelPromise.catch(() => (accelPromise = null));
    return accelPromise;
  }

  /** True when a Linux boot under KVM prints its first line in time; null when QEMU could not be run. */
  function probeKvm(kernel: string, timeoutMs = 3000): Promise<boolean | null> {
    return new Promise((resolve) => {
      const args = ['-accel', 'kvm', '-cpu', 'host', '-nodefaults', '-no-user-config', '-display', 'none', '-m', '128', '-no-reboot'];
      args.push('-kernel', kernel, '-append', 'console=ttyS0 panic=-1', '-serial', 'stdio');
      const child = spawn(qemuBinary, args, { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      let done = false;
      const finish = (ok: boolean | null) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (child.exitCode === null && child.signalCode === null) {
          child.once('exit', () => resolve(ok));
          child.kill('SIGKILL');
        } else resolve(ok);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      child.on('error', () => finish(null));
      child.on('exit', () => finish(out.includes('Linux version')));
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        out += d;
        if (out.includes('Linux version')) finish(true);
      });
    });
  }

  // ---- processes -------------------------------------------------------------------------------------

  function guestSize(spec: StoredSpec) {
    return {
      cpus: Math.max(1, Math.min(Math.floor(spec.cpu), maxCpus)),
      ramMb: Math.max(128, Math.min(Math.floor(spec.ramGb * 1024), maxRamMb)),
    };
  }

  /** Boots a new QEMU process for a machine that has none; returns with the machine file updated. */
  async function powerOn(m: MachineFile): Promise<MachineFile> {
    const f = files(m.ref);
    if (Buffer.byteLength(f.qmp) > 107) throw new Error(`QEMU stateDir is too long for a unix socket path: ${f.qmp}`);
    const [{ kernel, initrd }, acc] = await Promise.all([guest(), accel()]);
    const { cpus, ramMb } = guestSize(m.spec);
    await rm(f.qmp, { force: true });
    await rm(f.pid, { force: true });
    // Keep the log bounded: QEMU is not running, so it can be cut safely.
    const size = await stat(f.log).then((s) => s.size, () => 0);
    if (size > MAX_LOG_BYTES) {
      const tail = await readTail(f.log, CONSOLE_TAIL_BYTES);
      await writeFile(f.log, tail);
    }
    await appendFile(
      f.log,
      `\n[host] ${new Date().toISOString()} power on: ${cpus} vCPU, ${ramMb} MB (${acc}); billed size ${m.spec.cpu} CPU, ${m.spec.ramGb} GB RAM, ${m.spec.diskGb} GB disk\n`,
    );
    const logOffset = (await stat(f.log)).size;
    const args = [
      '-name', m.ref,
      '-machine', 'pc',
      '-accel', acc,
      ...(acc === 'kvm' ? ['-cpu', 'host'] : []),
      '-m', String(ramMb),
      '-smp', String(cpus),
      '-nodefaults', '-no-user-config',
      '-display', 'none',
      '-nic', 'none',
      '-chardev', `file,id=con0,path=${optPath(f.log)},append=on`,
      '-serial', 'chardev:con0',
      '-qmp', `unix:${optPath(f.qmp)},server=on,wait=off`,
      '-kernel', kernel,
      '-initrd', initrd,
      '-append', `console=ttyS0 irontech.name=${guestHostname(m.spec.name)}`,
      '-daemonize',
      '-pidfile', f.pid,
    ];
    try {
      await execFileP(qemuBinary, args, { timeout: 30_000 });
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { stderr?: string };
      if (err.code === 'ENOENT') throw new Error(`${qemuBinary} is not installed (apt-get install qemu-system-x86)`);
      throw new TransientProviderError(`QEMU did not start: ${(err.stderr ?? err.message).trim().slice(0, 500)}`);
    }
    const next: MachineFile = { ...m, run: { cpus, ramMb, accel: acc, logOffset, startedAt: new Date().toISOString() } };
    await writeMachine(next);
    return next;
  }

  /** Waits for the login prompt written after `offset` in the serial log. */
  async function waitForPrompt(m: MachineFile, offset: number): Promise<void> {
    const f = files(m.ref);
    const prompt = `${guestHostname(m.spec.name)}${LOGIN_PROMPT_SUFFIX}`;
    const until = Date.now() + bootTimeoutMs;
    let pos = offset;
    let carry = '';
    for (;;) {
      const fh = await open(f.log, 'r');
      try {
        const { size } = await fh.stat();
        if (size > pos) {
          const buf = Buffer.alloc(size - pos);
          await fh.read(buf, 0, buf.length, pos);
          pos = size;
          const text = carry + buf.toString('latin1');
          if (text.includes(prompt)) return;
          carry = text.slice(-prompt.length);
        }
      } finally {
        await fh.close();
      }
      if ((await livePid(m.ref)) === null) {
        throw new TransientProviderError(`QEMU exited while ${m.spec.name} was booting: ${(await consoleTail(m.ref, 600)).trim()}`);
      }
      if (Date.now() > until) throw new TransientProviderError(`${m.spec.name} did not reach its login prompt within ${bootTimeoutMs} ms`);
      await sleep(100);
    }
  }

  /** Ends the QEMU process: a clean ACPI power-off when `graceful`, then quit, then SIGKILL. */
  async function powerOff(ref: string, graceful: boolean): Promise<void> {
    const f = files(ref);
    if ((await livePid(ref)) === null) return;
    if (graceful) {
      const asked = await qmpCommand(f.qmp, 'system_powerdown').then(() => true, () => false);
      if (asked && (await waitForExit(ref, stopTimeoutMs))) return;
    }
    await qmpCommand(f.qmp, 'quit').catch(() => undefined);
    if (await waitForExit(ref, 3000)) {
      if (graceful) await appendFile(f.log, `\n[host] ${new Date().toISOString()} the guest did not power off; QEMU was quit\n`).catch(() => undefined);
      return;
    }
    const pid = await livePid(ref);
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    if (!(await waitForExit(ref, 3000))) throw new TransientProviderError(`QEMU process of ${ref} did not exit`);
  }

  async function readTail(file: string, bytes: number): Promise<string> {
    let fh;
    try {
      fh = await open(file, 'r');
    } catch {
      return '';
    }
    try {
      const { size } = await fh.stat();
      const start = Math.max(0, size - bytes);
      const buf = Buffer.alloc(size - start);
      await fh.read(buf, 0, buf.length, start);
      let text = buf.toString('utf8');
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
      return text;
    } finally {
      await fh.close();
    }
  }

  async function consoleTail(ref: string, bytes = CONSOLE_TAIL_BYTES): Promise<string> {
    // Serial output ends lines with CR LF; the portal shows plain text.
    return (await readTail(files(ref).log, bytes)).replace(/\r/g, '');
  }

  const created = (ref: string): CreatedMachine => ({ ref, publicIp: null, privateIp: null });

  return {
    kind: 'qemu',

    async create(spec) {
      const pending = creating.get(spec.key);
      if (pending) return pending;
      const ref = refForKey(spec.key);
      const run = withLock(ref, async () => {
        let m = await readMachine(ref);
        if (m?.phase === 'created') return created(ref);
        if (!m) {
          const { password: _password, ...stored } = spec;
          m = { ref, key: spec.key, spec: stored, phase: 'creating', createdAt: new Date().toISOString() };
          await mkdir(files(ref).dir, { recursive: true });
          await appendFile(files(ref).log, `[host] ${m.createdAt} provisioned ${spec.name} (${spec.image}) in ${spec.region} as ${ref}\n`);
          await writeMachine(m);
        }
        // A create resumed after a restart may find its first boot still under way.
        if ((await livePid(ref)) === null || !m.run) m = await powerOn(m);
        await waitForPrompt(m, m.run?.logOffset ?? 0);
        await writeMachine({ ...m, phase: 'created' });
        return created(ref);
      });
      creating.set(spec.key, run);
      try {
        return await run;
      } finally {
        creating.delete(spec.key);
      }
    },

    start: (ref) =>
      withLock(ref, async () => {
        const m = await mustMachine(ref);
        const pid = await livePid(ref);
        if (pid !== null) {
          const st = (await qmpCommand(files(ref).qmp, 'query-status').catch(() => null)) as { status?: string } | null;
          if (st?.status === 'paused') await qmpCommand(files(ref).qmp, 'cont');
          return;
        }
        const next = await powerOn(m);
        await waitForPrompt(next, next.run?.logOffset ?? 0);
      }),

    stop: (ref) =>
      withLock(ref, async () => {
        await mustMachine(ref);
        await powerOff(ref, true);
      }),

    forceStop: (ref) =>
      withLock(ref, async () => {
        await mustMachine(ref);
        // QMP quit, then SIGKILL if QEMU lingers: the guest is not asked.
        await powerOff(ref, false);
      }),

    reset: (ref) =>
      withLock(ref, async () => {
        const m = await mustMachine(ref);
        if ((await livePid(ref)) === null) {
          // Resetting a machine that is off powers it on, as the reset button of a real one would not;
          // the portal only offers reset on running machines anyway.
          const next = await powerOn(m);
          await waitForPrompt(next, next.run?.logOffset ?? 0);
          return;
        }
        const f = files(ref);
        await appendFile(f.log, `\n[host] ${new Date().toISOString()} reset\n`);
        const offset = (await stat(f.log)).size;
        try {
          await qmpCommand(f.qmp, 'system_reset');
        } catch (e) {
          throw new TransientProviderError(`reset of ${ref} failed: ${(e as Error).message}`);
        }
        await waitForPrompt(m, offset);
      }),

    resize: (ref, size) =>
      withLock(ref, async () => {
        const m = await mustMachine(ref);
        const next: MachineFile = { ...m, spec: { ...m.spec, cpu: size.cpu, ramGb: size.ramGb, diskGb: size.diskGb } };
        await writeMachine(next);
        // A running machine reboots into its new size; a stopped one stays off.
        if ((await livePid(ref)) === null) {
          await appendFile(files(ref).log, `\n[host] ${new Date().toISOString()} resized to ${size.cpu} CPU, ${size.ramGb} GB RAM, ${size.diskGb} GB disk\n`);
          return;
        }
        await powerOff(ref, true);
        const booted = await powerOn(next);
        await waitForPrompt(booted, booted.run?.logOffset ?? 0);
      }),

    delete: (ref) =>
      withLock(ref, async () => {
        const f = files(ref);
        if (!existsSync(f.dir)) return;
        await powerOff(ref, false);
        await rm(f.dir, { recursive: true, force: true });
        cpuSamples.delete(ref);
      }),

    async status(ref): Promise<MachineState> {
      if (!REF_RE.test(ref)) return 'missing';
      if (!(await readMachine(ref))) return 'missing';
      if ((await livePid(ref)) === null) return 'stopped';
      const st = (await qmpCommand(files(ref).qmp, 'query-status').catch(() => null)) as { status?: string } | null;
      // A live process whose QMP is busy is still a running machine.
      if (!st?.status) return 'running';
      return st.status === 'running' ? 'running' : 'stopped';
    },

    async usage(ref): Promise<Usage> {
      const m = await readMachine(ref);
      const pid = m ? await livePid(ref) : null;
      if (!m || pid === null) return { cpuPercent: 0, ramUsedGb: 0 };
      const [statText, statusText, uptimeText] = await Promise.all([
        readFile(`/proc/${pid}/stat`, 'utf8'),
        readFile(`/proc/${pid}/status`, 'utf8'),
        readFile('/proc/uptime', 'utf8'),
      ]);
      const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const startTicks = Number(fields[19]);
      const now = Date.now();
      const prev = cpuSamples.get(ref);
      let cpuSeconds: number;
      let wallSeconds: number;
      if (prev && prev.pid === pid && now - prev.at >= 200) {
        cpuSeconds = (ticks - prev.ticks) / CLK_TCK;
        wallSeconds = (now - prev.at) / 1000;
      } else {
        // First look (or too soon after the last): the average since the process started.
        cpuSeconds = ticks / CLK_TCK;
        wallSeconds = Number.parseFloat(uptimeText) - startTicks / CLK_TCK;
      }
      if (!prev || prev.pid !== pid || now - prev.at >= 200) cpuSamples.set(ref, { pid, ticks, at: now });
      const vcpus = m.run?.cpus ?? 1;
      const raw = wallSeconds > 0 ? (cpuSeconds / wallSeconds / vcpus) * 100 : 0;
      const cpuPercent = Math.round(Math.min(100, Math.max(0, raw)) * 10) / 10;
      const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(statusText)?.[1] ?? 0);
      const ramUsedGb = Math.round((rssKb / 1024 / 1024) * 100) / 100;
      return { cpuPercent, ramUsedGb };
    },

    async console(ref) {
      await mustMachine(ref);
      return consoleTail(ref);
    },

    async health() {
      const detail: Record<string, unknown> = { stateDir, maxRamMb, maxCpus };
      let healthy = true;
      try {
        const { stdout } = await execFileP(qemuBinary, ['--version'], { timeout: 10_000 });
        detail.qemu = stdout.split('\n')[0]?.trim();
      } catch (e) {
        healthy = false;
        detail.qemu = `${qemuBinary} is not runnable: ${(e as Error).message} (apt-get install qemu-system-x86)`;
      }
      try {
        const g = await guest();
        detail.kernel = g.kernel;
        detail.initrd = g.initrd;
        if (healthy) detail.accel = await accel();
      } catch (e) {
        healthy = false;
        detail.guest = (e as Error).message;
      }
      try {
        const refs = (await readdir(stateDir)).filter((n) => REF_RE.test(n));
        detail.machines = refs.length;
        detail.running = (await Promise.all(refs.map((r) => livePid(r)))).filter((p) => p !== null).length;
      } catch {
        detail.machines = 0;
        detail.running = 0;
      }
      return { healthy, detail };
    },
  };
}

/** For tests and the runbook: the pids of every QEMU process whose command line mentions `dir`. */
export async function qemuPidsUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes('qemu-system') && cmd.includes(dir)) {
        const st = await readFile(`/proc/${name}/stat`, 'utf8');
        const state = st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3);
        if (state !== 'Z' && state !== 'X') pids.push(Number(name));
      }
    } catch {
      /* raced with an exit */
    }
  }
  return pids;
}
