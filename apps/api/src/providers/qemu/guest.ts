/**
 * The QEMU driver's guest: a Debian kernel from the host's `/boot` (apt `linux-image-amd64`) and an initramfs
 * built here, in Node, from the host's static busybox (apt `busybox-static`). Nothing is downloaded.
 *
 * The initramfs is a gzipped `newc` cpio archive holding busybox, an `/init` shell script, `/dev/console`
 * and, when the kernel's modules are on the host, the ACPI power button and evdev modules so that a
 * `system_powerdown` shuts the guest down cleanly. It is the same for every machine (the machine's name
 * comes on the kernel command line) and is cached by content.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** Bumped whenever the script or the archive layout changes, so caches are rebuilt. */
const GUEST_FORMAT = 2;

/** Printed by the guest when it is ready; the driver waits for it on the serial log. */
export const LOGIN_PROMPT_SUFFIX = ' login: ';

/**
 * PID 1 of the guest. Mounts the pseudo file systems, arms the power button, prints a short banner
 * (CPUs and memory the guest sees, which the tests read back) and a login-like prompt, and idles.
 */
const INIT_SCRIPT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
NAME=guest
for arg in $(cat /proc/cmdline); do
  case "$arg" in irontech.name=*) NAME="\${arg#irontech.name=}" ;; esac
done
hostname "$NAME"
for m in /lib/modules/*.ko; do [ -e "$m" ] && insmod "$m" 2>/dev/null; done
sleep 0.2
for e in /sys/class/input/event*; do
  [ -e "$e" ] || continue
  if [ "$(cat "$e/device/name" 2>/dev/null)" = "Power Button" ]; then
    dev="/dev/input/\${e##*/}"
    ( dd if="$dev" of=/dev/null bs=24 count=1 2>/dev/null
      echo; echo "$NAME: power button pressed, shutting down"; sync; poweroff -f ) &
  fi
done
# From here on only emergencies (power down, restart) reach the console, so the prompt stays last.
dmesg -n 1
CPUS=$(grep -c '^processor' /proc/cpuinfo)
MEM=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
echo
echo "irontech-guest: booted $(uname -r) with cpus=$CPUS memory=\${MEM}MB"
echo
echo "Debian GNU/Linux 12 $NAME ttyS0 (busybox guest)"
echo
printf '%s login: ' "$NAME"
while :; do sleep 3600; done
`;

interface CpioEntry {
  name: string;
  mode: number;
  data?: Buffer;
  rdevMajor?: number;
  rdevMinor?: number;
}

/** A `newc` cpio archive (what the kernel unpacks as an initramfs). */
export function cpioNewc(entries: CpioEntry[]): Buffer {
  const parts: Buffer[] = [];
  const pad4 = (n: number) => (4 - (n % 4)) % 4;
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  let ino = 1;
  const push = (e: CpioEntry) => {
    const data = e.data ?? Buffer.alloc(0);
    const name = Buffer.from(`${e.name}\0`);
    const header =
      '070701' +
      [ino++, e.mode, 0, 0, 1, 0, data.length, 0, 0, e.rdevMajor ?? 0, e.rdevMinor ?? 0, name.length, 0].map(hex).join('');
    parts.push(Buffer.from(header, 'ascii'), name, Buffer.alloc(pad4(110 + name.length)), data, Buffer.alloc(pad4(data.length)));
  };
  for (const e of entries) push(e);
  push({ name: 'TRAILER!!!', mode: 0 });
  return Buffer.concat(parts);
}

/** True when the ELF file has no program interpreter (a static executable that runs alone in the guest). */
export function isStaticElf(buf: Buffer): boolean {
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) return false;
  const phoff = Number(buf.readBigUInt64LE(32));
  const phentsize = buf.readUInt16LE(54);
  const phnum = buf.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const off = phoff + i * phentsize;
    if (off + 4 > buf.length) return false;
    if (buf.readUInt32LE(off) === 3 /* PT_INTERP */) return false;
  }
  return true;
}

/** The newest `/boot/vmlinuz-*`, or null. */
export async function findKernel(bootDir = '/boot'): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(bootDir);
  } catch {
    return null;
  }
  const kernels = names.filter((n) => n.startsWith('vmlinuz-')).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const newest = kernels.at(-1);
  return newest ? path.join(bootDir, newest) : null;
}

/** The host's static busybox (Debian's `busybox-static` installs it as /bin/busybox), or null. */
export async function findStaticBusybox(candidates = ['/bin/busybox', '/usr/bin/busybox']): Promise<string | null> {
  for (const c of candidates) {
    try {
      if (isStaticElf(await readFile(c))) return c;
    } catch {
      /* next */
    }
  }
  return null;
}

/**
 * Builds (or reuses) the initramfs for this kernel and busybox under `cacheDir`; returns its path.
 * The power-button modules are taken from `/lib/modules/<version of the kernel>` when present.
 */
export async function ensureInitramfs(opts: { cacheDir: string; kernelPath: string; busyboxPath: string; modulesRoot?: string }): Promise<string> {
  const busybox = await readFile(opts.busyboxPath);
  if (!isStaticElf(busybox)) throw new Error(`${opts.busyboxPath} is not a static x86-64 executable (install busybox-static)`);
  const version = path.basename(opts.kernelPath).replace(/^vmlinuz-/, '');
  const modDir = path.join(opts.modulesRoot ?? '/lib/modules', version, 'kernel');
  const modules: Array<{ name: string; data: Buffer }> = [];
  // Order matters: evdev first so the button's input device gets its /dev/input/event node.
  for (const rel of ['drivers/input/evdev.ko', 'drivers/acpi/button.ko']) {
    const file = path.join(modDir, rel);
    if (existsSync(file)) modules.push({ name: `${modules.length}-${path.basename(rel)}`, data: await readFile(file) });
  }
  const hash = createHash('sha256').update(`format ${GUEST_FORMAT}\n`).update(INIT_SCRIPT).update(busybox);
  for (const m of modules) hash.update(m.name).update(m.data);
  const file = path.join(opts.cacheDir, `initramfs-${hash.digest('hex').slice(0, 16)}.cpio.gz`);
  if (existsSync(file)) return file;

  const dir = (name: string): CpioEntry => ({ name, mode: 0o040755 });
  const archive = cpioNewc([
    dir('bin'),
    dir('dev'),
    { name: 'dev/console', mode: 0o020600, rdevMajor: 5, rdevMinor: 1 },
    { name: 'dev/null', mode: 0o020666, rdevMajor: 1, rdevMinor: 3 },
    dir('etc'),
    dir('lib'),
    dir('lib/modules'),
    ...modules.map((m) => ({ name: `lib/modules/${m.name}`, mode: 0o100644, data: m.data })),
    dir('proc'),
    dir('root'),
    dir('sys'),
    { name: 'tmp', mode: 0o041777 },
    { name: 'bin/busybox', mode: 0o100755, data: busybox },
    { name: 'init', mode: 0o100755, data: Buffer.from(INIT_SCRIPT) },
  ]);
  await mkdir(opts.cacheDir, { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, gzipSync(archive, { level: 6 }));
  await rename(tmp, file);
  return file;
}
