/**
 * The pieces of the libvirt driver that need no daemon: names derived from the key, the NAT network's
 * addresses, and the NoCloud seed read back by the guest's own reader (scripts/guest-image/seed.awk, run
 * with the busybox the guest runs) — passwords and keys with quotes, dollars and a leading dash survive — the
 * 1:1 NAT mapping and the host hook that reads it (run with a recording stand-in for iptables), and how a bridged
 * network (no libvirt DHCP) is told apart and its address read from `virsh domifaddr --source arp`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { guestHostname, macForKey, refForKey, REF_RE, uuidForKey } from './names.ts';
import { seedFiles, yamlQuote } from './seed.ts';
import { domainXml, domifaddrIps, hasDhcp, natNetworkXml, parseMeta, type DomainParams } from './xml.ts';

const execFileP = promisify(execFile);
const SEED_AWK = fileURLToPath(new URL('../../../../../scripts/guest-image/seed.awk', import.meta.url));
const NAT_HOOK = fileURLToPath(new URL('../../../../../scripts/libvirt-hooks/qemu', import.meta.url));

it('derives the ref, MAC and UUID from the key, the same every time', () => {
  expect(refForKey('k1')).toMatch(REF_RE);
  expect(refForKey('k1')).toBe(refForKey('k1'));
  expect(refForKey('k1')).not.toBe(refForKey('k2'));
  expect(macForKey('k1')).toMatch(/^52:54:00(:[0-9a-f]{2}){3}$/);
  expect(uuidForKey('k1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(guestHostname('Web 01 (prod)')).toBe('web-01-prod');
  expect(guestHostname('***')).toBe('vm');
});

it('lays a NAT network over the CIDR and refuses a malformed one', () => {
  const xml = natNetworkXml('n', 'br0', '10.231.77.0/24');
  expect(xml).toContain("<ip address='10.231.77.1' netmask='255.255.255.0'>");
  expect(xml).toContain("<range start='10.231.77.2' end='10.231.77.254'/>");
  expect(natNetworkXml('n', 'br0', '10.8.0.0/16')).toContain("netmask='255.255.0.0'");
  expect(() => natNetworkXml('n', 'br0', '10.231.77.0')).toThrow(/cidr/);
  expect(() => natNetworkXml('n', 'br0', '300.1.1.0/24')).toThrow(/cidr/);
});

it('keeps the request in the domain metadata, escaped, and reads it back', () => {
  const meta = { key: 'k<&>"\'', name: 'a & b', image: 'Debian 12', region: 'US East', cpu: 2, ramGb: 4, diskGb: 40 };
  const xml = domainXml({ ...domainParams(null), meta });
  expect(parseMeta(xml)).toEqual(meta);
  expect(xml).toContain('<title>a &amp; b</title>');
  expect(parseMeta('<domain/>')).toBeNull();
});

it('writes a seed the guest reads back exactly', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'seed-'));
  try {
    const password = `-it's "x" $(rm -rf /) \\ 9`;
    const publicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBhO+RunSY0rsWAURZvDhbvXMIYqFdeFPAv+ey4Dir49 it's@me";
    const { metaData, userData } = seedFiles({
      instanceId: 'i-1',
      hostname: 'web-01',
      user: 'root',
      password,
      publicKey,
    });
    expect(userData.startsWith('#cloud-config\n')).toBe(true);
    expect(userData).toContain('disable_root: false');
    await writeFile(path.join(dir, 'meta-data'), metaData);
    await writeFile(path.join(dir, 'user-data'), userData);
    await execFileP('busybox', [
      'awk',
      '-v',
      `out=${dir}`,
      '-f',
      SEED_AWK,
      path.join(dir, 'meta-data'),
      path.join(dir, 'user-data'),
    ]);
    expect(await readFile(path.join(dir, 'hostname'), 'utf8')).toBe('web-01\n');
    expect(await readFile(path.join(dir, 'user'), 'utf8')).toBe('root\n');
    expect(await readFile(path.join(dir, 'password'), 'utf8')).toBe(password);
    expect(await readFile(path.join(dir, 'keys'), 'utf8')).toBe(`${publicKey}\n`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

it('refuses seed values that would break out of their line', () => {
  expect(yamlQuote("a'b")).toBe("'a''b'");
  expect(() => yamlQuote('a\nb')).toThrow();
});

it("names the NICs by MAC in the seed's network-config (DHCP on each), and none without MACs", () => {
  const base = { instanceId: 'i-1', hostname: 'web-01', user: 'root', password: 'p', publicKey: '' };
  expect(seedFiles(base).networkConfig).toBeNull();
  expect(seedFiles({ ...base, macs: ['52:54:00:AA:bb:01', '52:54:00:aa:bb:02'] }).networkConfig).toBe(
    [
      'version: 2',
      'ethernets:',
      '  eth0:',
      "    match: { macaddress: '52:54:00:aa:bb:01' }",
      '    set-name: eth0',
      '    dhcp4: true',
      '  eth1:',
      "    match: { macaddress: '52:54:00:aa:bb:02' }",
      '    set-name: eth1',
      '    dhcp4: true',
      '',
    ].join('\n'),
  );
  expect(() => seedFiles({ ...base, macs: ["52:54:00:aa:bb:01' x"] })).toThrow(/MAC/);
});

it('gives the domain a virtio-serial channel for the guest agent', () => {
  expect(domainXml(domainParams(null))).toContain(
    "<channel type='unix'><target type='virtio' name='org.qemu.guest_agent.0'/></channel>",
  );
});

const domainParams = (nat: DomainParams['nat']): DomainParams => ({
  ref: refForKey('k'),
  uuid: uuidForKey('k'),
  mac: macForKey('k'),
  // A name that tries to look like a mapping: it stays escaped text inside the machine element.
  meta: {
    key: 'k',
    name: `x<irontech:nat public="6.6.6.6" private="7.7.7.7"/>`,
    image: 'i',
    region: 'r',
    cpu: 1,
    ramGb: 1,
    diskGb: 1,
  },
  domainType: 'qemu',
  machine: 'q35',
  diskPath: '/p/d.qcow2',
  seedPath: '/p/s.iso',
  serialLogPath: '/p/l.log',
  network: 'irontech',
  nat,
});

/** Runs the hook with `xml` on stdin and a stand-in iptables that records its calls (and has no rules). */
async function runHook(xml: string, op: string): Promise<{ code: number; calls: string[] }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'nat-hook-'));
  try {
    const fake = path.join(dir, 'iptables');
    await writeFile(fake, `#!/bin/sh\necho "$*" >> ${dir}/calls\ncase " $* " in *" -C "*) exit 1;; esac\n`, {
      mode: 0o755,
    });
    const code = await new Promise<number>((resolve) => {
      const child = execFile('sh', [NAT_HOOK, 'irontech-x', op, 'begin', '-'], {
        env: { IRONTECH_IPTABLES: fake },
      });
      child.on('exit', (c) => resolve(c ?? -1));
      // The hook may end before it reads the domain (an operation it has nothing to do for): a broken pipe then.
      child.stdin!.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code !== 'EPIPE') throw err;
      });
      child.stdin!.end(xml);
    });
    const calls = (await readFile(path.join(dir, 'calls'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
    return { code, calls: calls.filter((c) => !/ -C /.test(c)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('writes the 1:1 NAT mapping into the metadata, and the hook turns it into DNAT, SNAT and FORWARD rules', async () => {
  const xml = domainXml(domainParams({ publicIp: '192.0.2.10', privateIp: '10.231.0.5' }));
  expect(xml).toContain(
    "<irontech:nat xmlns:irontech='https://irontech.dev/libvirt/nat/1' public='192.0.2.10' private='10.231.0.5'/>",
  );
  expect(domainXml(domainParams(null))).not.toContain('libvirt/nat/1');
  expect(() => domainXml(domainParams({ publicIp: "1.2.3.4' x='", privateIp: '10.0.0.1' }))).toThrow(/IPv4/);

  const started = await runHook(xml, 'start');
  expect(started.code).toBe(0);
  const comment = '-m comment --comment irontech-nat irontech-x';
  expect(started.calls).toEqual([
    `-w -t nat -I PREROUTING 1 -d 192.0.2.10/32 -j DNAT --to-destination 10.231.0.5 ${comment}`,
    `-w -t nat -I OUTPUT 1 -d 192.0.2.10/32 -j DNAT --to-destination 10.231.0.5 ${comment}`,
    `-w -t nat -I POSTROUTING 1 -s 10.231.0.5/32 -j SNAT --to-source 192.0.2.10 ${comment}`,
    `-w -t filter -I FORWARD 1 -d 10.231.0.5/32 -m conntrack --ctstate DNAT --ctorigdst 192.0.2.10/32 -j ACCEPT ${comment}`,
  ]);
  // libvirt hands the hook its own serialisation (double quotes, one attribute per position as written).
  const reformatted = xml.replace(/'/g, '"');
  expect((await runHook(reformatted, 'reconnect')).calls).toHaveLength(4);
  // Stopping with no rule left to delete deletes nothing and succeeds; other operations and other domains are left alone.
  expect(await runHook(xml, 'stopped')).toEqual({ code: 0, calls: [] });
  expect(await runHook(xml, 'migrate')).toEqual({ code: 0, calls: [] });
  expect(await runHook(domainXml(domainParams(null)), 'start')).toEqual({ code: 0, calls: [] });
});

it("tells a bridged network (the operator's DHCP) from one libvirt serves, and reads ARP addresses by MAC", () => {
  expect(hasDhcp(natNetworkXml('n', 'br0', '10.231.77.0/24'))).toBe(true);
  expect(hasDhcp("<network><name>lan</name><forward mode='bridge'/><bridge name='br0'/></network>")).toBe(false);
  expect(hasDhcp("<network><forward mode='route'/><ip address='203.0.113.1' netmask='255.255.255.0'/></network>")).toBe(
    false,
  );
  const arp = ` Name       MAC address          Protocol     Address
-------------------------------------------------------------------------------
 vnet0      52:54:00:aa:bb:cc    ipv4         192.168.1.50/0
 vnet1      52:54:00:dd:ee:ff    ipv4         192.168.1.51/0
`;
  expect(domifaddrIps(arp, '52:54:00:AA:BB:CC')).toEqual(['192.168.1.50']);
  expect(domifaddrIps(arp, '52:54:00:00:00:01')).toEqual([]);
});
