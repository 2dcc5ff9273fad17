/**
 * A host's sample (sampleAll): states and the running domains' statistics in the one `virsh domstats` of a pass.
 * REAL_QEMU is what libvirt 9.0's QEMU driver printed for a running 2-vCPU domain (a tap interface, one qcow2 disk,
 * no guest OS so no balloon statistics from inside: memory is what QEMU holds); libvirt's `test` driver gives only
 * states (it has no statistics), so against it sampleAll answers the states statusAll gives and no statistics.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parseDomainSample, parseDomainStates } from './domain-states.ts';
import { createLibvirtDriver } from './libvirt.ts';
import { refForKey } from './names.ts';

/** `virsh domstats --state --cpu-total --balloon --vcpu --block --interface` on a QEMU host (libvirt 9.0.0). */
const REAL_QEMU = [
  "Domain: 'irontech-0123456789abcdef0123'",
  '  state.state=1',
  '  state.reason=1',
  '  cpu.time=401302000',
  '  cpu.user=216632000',
  '  cpu.system=184670000',
  '  cpu.cache.monitor.count=0',
  '  cpu.haltpoll.success.time=0',
  '  cpu.haltpoll.fail.time=0',
  '  balloon.current=131072',
  '  balloon.maximum=131072',
  '  balloon.last-update=0',
  '  balloon.rss=48096',
  '  vcpu.current=2',
  '  vcpu.maximum=2',
  '  vcpu.0.state=1',
  '  vcpu.0.time=110000000',
  '  vcpu.0.wait=0',
  '  vcpu.0.delay=527608013',
  '  vcpu.1.state=1',
  '  vcpu.1.time=0',
  '  vcpu.1.wait=0',
  '  vcpu.1.delay=38423420',
  '  net.count=1',
  '  net.0.name=irtmx0',
  '  net.0.rx.bytes=90',
  '  net.0.rx.pkts=1',
  '  net.0.rx.errs=0',
  '  net.0.rx.drop=0',
  '  net.0.tx.bytes=0',
  '  net.0.tx.pkts=0',
  '  net.0.tx.errs=0',
  '  net.0.tx.drop=0',
  '  block.count=1',
  '  block.0.name=vda',
  '  block.0.path=/tmp/metrics-work/qemu/disk.qcow2',
  '  block.0.backingIndex=1',
  '  block.0.rd.reqs=1',
  '  block.0.rd.bytes=512',
  '  block.0.rd.times=58898',
  '  block.0.wr.reqs=0',
  '  block.0.wr.bytes=0',
  '  block.0.wr.times=0',
  '  block.0.fl.reqs=0',
  '  block.0.fl.times=0',
  '  block.0.allocation=0',
  '  block.0.capacity=67108864',
  '  block.0.physical=204800',
].join('\n');

it('reads the counters of a running QEMU domain as libvirt prints them', () => {
  const ref = 'irontech-0123456789abcdef0123';
  const sample = parseDomainSample(REAL_QEMU);
  expect(sample.states).toEqual(new Map([[ref, 'running']]));
  expect(sample.stats.get(ref)).toEqual({
    cpuTimeNs: 401_302_000,
    vcpus: 2,
    // No balloon statistics from the guest: balloon.rss (KiB) is what QEMU holds.
    memoryUsedBytes: 48_096 * 1024,
    diskReadBytes: 512,
    diskWriteBytes: 0,
    netRxBytes: 90,
    netTxBytes: 0,
  });
});

it('sums disks and interfaces, prefers what the guest reports, and gives no statistics without cpu.time', () => {
  const [a, b, c] = [refForKey('a'), refForKey('b'), refForKey('c')];
  const out = [
    `Domain: '${a}'`,
    '  state.state=1',
    '  cpu.time=5000',
    '  balloon.rss=900000',
    '  balloon.available=4000000',
    '  balloon.unused=1000000',
    '  vcpu.current=4',
    '  net.count=2',
    '  net.0.rx.bytes=10',
    '  net.0.tx.bytes=20',
    '  net.1.rx.bytes=30',
    '  net.1.tx.bytes=40',
    '  block.count=2',
    '  block.0.rd.bytes=100',
    '  block.0.wr.bytes=200',
    '  block.1.rd.bytes=300',
    '  block.1.wr.bytes=400',
    '',
    // Shut off: libvirt gives its state only.
    `Domain: '${b}'`,
    '  state.state=5',
    '  state.reason=1',
    '',
    // Not the portal's: never in the answer, whatever it holds.
    "Domain: 'web 'prod''",
    '  state.state=1',
    '  cpu.time=1',
    '',
    `Domain: '${c}'`,
    '  state.state=3',
    '  cpu.time=7',
  ].join('\n');
  const sample = parseDomainSample(out);
  expect(sample.states).toEqual(
    new Map([
      [a, 'running'],
      [b, 'stopped'],
      [c, 'stopped'],
    ]),
  );
  expect(sample.stats.get(a)).toEqual({
    cpuTimeNs: 5000,
    vcpus: 4,
    memoryUsedBytes: 3_000_000 * 1024,
    diskReadBytes: 400,
    diskWriteBytes: 600,
    netRxBytes: 40,
    netTxBytes: 60,
  });
  expect(sample.stats.has(b)).toBe(false);
  // A paused domain keeps its counters: they are read (its deltas are simply 0).
  expect(sample.stats.get(c)).toMatchObject({ cpuTimeNs: 7, vcpus: 1, memoryUsedBytes: null, netRxBytes: 0 });
  expect(parseDomainStates(out)).toEqual(sample.states);
  // Ours without a state: the whole answer fails, as for statusAll.
  expect(() => parseDomainSample(`Domain: '${a}'\n  cpu.time=5\n`)).toThrow(/no state for irontech-/);
});

it("asks the host once for states and statistics: the test driver's states, as statusAll gives them", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'domain-sample-'));
  try {
    const domains = [1, 5, 1, 3]
      .map(
        (runstate, i) => `<domain type='test' xmlns:test='http://libvirt.org/schemas/domain/test/1.0'>
          <name>${refForKey(`s-${i}`)}</name><memory>65536</memory><os><type>hvm</type></os>
          <test:runstate>${runstate}</test:runstate></domain>`,
      )
      .join('');
    const file = path.join(dir, 'node.xml');
    await writeFile(file, `<node>${domains}</node>`);
    const calls = path.join(dir, 'calls');
    const wrapper = path.join(dir, 'virsh');
    const virsh = execFileSync('sh', ['-c', 'command -v virsh'], { encoding: 'utf8' }).trim();
    await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${virsh}' "$@"\n`, { mode: 0o700 });
    const driver = createLibvirtDriver({ uri: `test://${file}`, virshBinary: wrapper, session: false });
    const sample = await driver.sampleAll();
    expect((await readFile(calls, 'utf8')).trim().split('\n')).toEqual([
      `-q -c test://${file} domstats --state --cpu-total --balloon --vcpu --block --interface`,
    ]);
    expect(sample.states).toEqual(await driver.statusAll());
    // By domain (libvirt lists running domains before the others, and each group in no promised order).
    expect(Object.fromEntries(sample.states)).toEqual(
      Object.fromEntries(['running', 'stopped', 'running', 'stopped'].map((state, i) => [refForKey(`s-${i}`), state])),
    );
    expect(sample.stats.size).toBe(0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
