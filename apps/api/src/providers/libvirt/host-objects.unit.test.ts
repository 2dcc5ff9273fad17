/**
 * The pool-creation race on first start (issue 23 item 7): two drivers on one libvirt (the demo's two hosts) both
 * found no pool and both defined it, and the second was reported unreachable with "pool 'irontech' already exists".
 * A stand-in virsh (a shell script keeping the pool and network as files, answering as libvirt does, slow to look
 * up so the two setups overlap) plays the daemon: the drivers are the real ones.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLibvirtDriver } from './libvirt.ts';
import { defineIdempotent, serializePerUri } from './host-objects.ts';

let dir = '';
let virsh = '';

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pool-race-'));
  virsh = path.join(dir, 'virsh');
  // Every call is logged; pool-info/net-info take 0.3 s (both setups ask before either defines); "phantom-pool"
  // makes the first pool-info say "not found" although the pool exists (another process defined it meanwhile).
  await writeFile(
    virsh,
    `#!/bin/sh
S='${dir}'
shift 3
echo "$1" >> "$S/calls"
case "$1" in
  pool-info)
    sleep 0.3
    if [ -f "$S/phantom-pool" ]; then rm "$S/phantom-pool"; echo "error: failed to get pool '$2'" >&2; echo "error: Storage pool not found: no storage pool with matching name '$2'" >&2; exit 1; fi
    if [ -f "$S/pool" ]; then
      if [ "$2" = --bytes ]; then echo "Capacity:       10737418240"; else echo "State:          running"; fi
    else echo "error: failed to get pool '$2'" >&2; echo "error: Storage pool not found: no storage pool with matching name '$2'" >&2; exit 1; fi ;;
  pool-define)
    if [ -f "$S/pool" ]; then echo "error: Failed to define pool from $2" >&2; echo "error: operation failed: pool 'irontech' already exists with uuid 0b0e" >&2; exit 1; fi
    touch "$S/pool"; echo "Pool irontech defined from $2" ;;
  pool-build|pool-autostart|pool-start|net-autostart|net-start) echo ok ;;
  pool-dumpxml) echo "<pool><target><path>/var/lib/irontech</path></target></pool>" ;;
  net-info)
    sleep 0.3
    if [ -f "$S/net" ]; then echo "Active:         yes"; else echo "error: failed to get network 'irontech'" >&2; echo "error: Network not found: no network with matching name 'irontech'" >&2; exit 1; fi ;;
  net-define)
    if [ -f "$S/net" ]; then echo "error: operation failed: network 'irontech' already exists with uuid 1c1f" >&2; exit 1; fi
    touch "$S/net" ;;
  nodeinfo) printf 'CPU(s):              4\\nMemory size:         8388608 KiB\\n' ;;
  *) echo "error: unexpected $1" >&2; exit 1 ;;
esac
`,
  );
  await chmod(virsh, 0o755);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const settings = () => ({ uri: 'qemu:///system', virshBinary: virsh, session: false, uploadGuestImage: false });
const calls = async () => (await readFile(path.join(dir, 'calls'), 'utf8')).trim().split('\n');

it('two hosts on one libvirt starting together define the pool and network once, and both come up', async () => {
  const a = createLibvirtDriver(settings());
  const b = createLibvirtDriver(settings());
  const [ca, cb] = await Promise.all([a.capacity(), b.capacity()]);
  expect(ca).toEqual({ cpus: 4, ramGb: 8, diskGb: 10 });
  expect(cb).toEqual(ca);
  const log = await calls();
  expect(log.filter((c) => c === 'pool-define')).toHaveLength(1);
  expect(log.filter((c) => c === 'net-define')).toHaveLength(1);
});

it('a pool another process defined between the look-up and the define counts as defined', async () => {
  await writeFile(path.join(dir, 'pool'), '');
  await writeFile(path.join(dir, 'phantom-pool'), '');
  const a = createLibvirtDriver(settings());
  await expect(a.capacity()).resolves.toEqual({ cpus: 4, ramGb: 8, diskGb: 10 });
  expect(await calls()).toContain('pool-define');
});

it('setups of one URI run one after another; other URIs and failures do not hold them up', async () => {
  const order: string[] = [];
  const step =
    (name: string, ms: number, fail = false) =>
    async () => {
      order.push(`${name}:start`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`${name}:end`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
  const first = serializePerUri('qemu+ssh://h1/system', step('a', 50, true));
  const second = serializePerUri('qemu+ssh://h1/system', step('b', 10));
  const other = serializePerUri('qemu+ssh://h2/system', step('c', 10));
  await expect(first).rejects.toThrow('a failed');
  await expect(second).resolves.toBe('b');
  await expect(other).resolves.toBe('c');
  expect(order.indexOf('b:start')).toBeGreaterThan(order.indexOf('a:end'));
  expect(order.indexOf('c:start')).toBeLessThan(order.indexOf('a:end'));
  await expect(defineIdempotent(() => Promise.reject(new Error("pool 'x' already exists with uuid 1")))).resolves.toBe(
    undefined,
  );
  await expect(defineIdempotent(() => Promise.reject(new Error('permission denied')))).rejects.toThrow('denied');
});
