/**
 * The size that was sold (issue 23 item 3): the guest gets exactly its configuration's vCPUs, memory (GB = 1024 MiB)
 * and disk. No cap or scale: settings stored before the caps went (maxCpus, maxRamMb, maxDiskGb, vcpusPerCpu,
 * ramMbPerGb) still parse and change nothing. The resize is run through the real driver against a stand-in virsh
 * (a shell script that answers as libvirt does and records what it was asked to define and resize).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { VM_SIZES } from '@portal/contract/constants';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLibvirtDriver, libvirtSettingsSchema } from './libvirt.ts';
import { macForKey, refForKey, uuidForKey } from './names.ts';
import { domainXml, guestSize, parseMeta, type MachineMeta } from './xml.ts';

/** What every stored demo provider carried before issue 23 item 3, and what a test host scaled with. */
const RETIRED = { maxCpus: 1, maxRamMb: 256, maxDiskGb: 2, vcpusPerCpu: 0.5, ramMbPerGb: 64 };

const meta = (size: { cpu: number; ram: number; disk: number }): MachineMeta => ({
  key: 'k',
  name: 'Web 01',
  image: 'Debian 12',
  region: 'US East',
  cpu: size.cpu,
  ramGb: size.ram,
  diskGb: size.disk,
});

const xmlOf = (m: MachineMeta) =>
  domainXml({
    ref: refForKey(m.key),
    uuid: uuidForKey(m.key),
    mac: macForKey(m.key),
    meta: m,
    domainType: 'qemu',
    machine: 'q35',
    diskPath: '/p/d.qcow2',
    seedPath: '/p/s.iso',
    serialLogPath: '/p/l.log',
    network: 'irontech',
  });

it("gives every catalog size's guest exactly its vCPUs, memory and disk", () => {
  expect(VM_SIZES.length).toBeGreaterThan(0);
  for (const c of VM_SIZES) {
    expect(guestSize(meta(c))).toEqual({ vcpus: c.cpu, ramMb: c.ram * 1024, diskBytes: c.disk * 1024 ** 3 });
    const xml = xmlOf(meta(c));
    expect(xml).toContain(`<vcpu placement='static'>${c.cpu}</vcpu>`);
    expect(xml).toContain(`<memory unit='MiB'>${c.ram * 1024}</memory>`);
    expect(xml).toContain(`<currentMemory unit='MiB'>${c.ram * 1024}</currentMemory>`);
  }
  // Micro, as the issue found it: 2 cores, 4 GB, 80 GB (it got 457 MB and 10 GB).
  expect(guestSize(meta({ cpu: 2, ram: 4, disk: 80 }))).toEqual({
    vcpus: 2,
    ramMb: 4096,
    diskBytes: 85_899_345_920,
  });
  // A test's own small size (drivers take fractions of a GB): still exact.
  expect(guestSize({ cpu: 1, ramGb: 0.25, diskGb: 2 })).toEqual({ vcpus: 1, ramMb: 256, diskBytes: 2 * 1024 ** 3 });
});

it('parses stored settings that still carry the retired caps, and drops them', () => {
  const parsed = libvirtSettingsSchema.parse({ uri: 'qemu:///system', ...RETIRED });
  for (const key of Object.keys(RETIRED)) expect(parsed).not.toHaveProperty(key);
  expect(parsed.uri).toBe('qemu:///system');
});

let dir = '';
let virsh = '';
const ref = refForKey('k');

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'guest-size-'));
  virsh = path.join(dir, 'virsh');
  // A stopped machine defined as Micro with a 2 GiB disk (what the old caps left it); define and vol-resize record.
  await writeFile(path.join(dir, 'domain.xml'), xmlOf(meta({ cpu: 2, ram: 4, disk: 80 })));
  await writeFile(
    virsh,
    `#!/bin/sh
S='${dir}'
shift 3
echo "$*" >> "$S/calls"
case "$1" in
  pool-info) echo "State:          running" ;;
  pool-dumpxml) echo "<pool><target><path>/var/lib/irontech</path></target></pool>" ;;
  net-info) echo "Active:         yes" ;;
  dumpxml) cat "$S/domain.xml" ;;
  define) cp "$2" "$S/defined.xml"; echo "Domain defined" ;;
  domstate) echo "shut off" ;;
  vol-info) echo "Capacity:       2147483648" ;;
  vol-resize) echo "Size of volume changed" ;;
  *) echo "error: unexpected $1" >&2; exit 1 ;;
esac
`,
  );
  await chmod(virsh, 0o755);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('resizes to exactly the new size, whatever retired caps the stored settings still carry', async () => {
  const driver = createLibvirtDriver(
    libvirtSettingsSchema.parse({
      uri: 'qemu:///system',
      virshBinary: virsh,
      session: false,
      uploadGuestImage: false,
      ...RETIRED,
    }),
  );
  // Micro → Small: 6 cores, 10 GB, 180 GB.
  await driver.resize(ref, { cpu: 6, ramGb: 10, diskGb: 180 });
  const defined = await readFile(path.join(dir, 'defined.xml'), 'utf8');
  expect(defined).toContain("<vcpu placement='static'>6</vcpu>");
  expect(defined).toContain("<memory unit='MiB'>10240</memory>");
  expect(parseMeta(defined)).toMatchObject({ cpu: 6, ramGb: 10, diskGb: 180 });
  const calls = (await readFile(path.join(dir, 'calls'), 'utf8')).trim().split('\n');
  expect(calls).toContain(`vol-resize --pool irontech ${ref}.qcow2 ${180 * 1024 ** 3}B`);
});
