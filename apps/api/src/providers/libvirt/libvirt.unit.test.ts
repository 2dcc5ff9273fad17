/**
 * The pieces of the libvirt driver that need no daemon: names derived from the key, the NAT network's
 * addresses, and the NoCloud seed read back by the guest's own reader (scripts/guest-image/seed.awk, run
 * with the busybox the guest runs) — passwords and keys with quotes, dollars and a leading dash survive.
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
import { domainXml, natNetworkXml, parseMeta } from './xml.ts';

const execFileP = promisify(execFile);
const SEED_AWK = fileURLToPath(new URL('../../../../../scripts/guest-image/seed.awk', import.meta.url));

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
  const xml = domainXml({
    ref: refForKey('k'),
    uuid: uuidForKey('k'),
    mac: macForKey('k'),
    meta,
    vcpus: 1,
    ramMb: 256,
    domainType: 'qemu',
    machine: 'q35',
    diskPath: '/p/d.qcow2',
    seedPath: '/p/s.iso',
    serialLogPath: '/p/l.log',
    network: 'irontech',
  });
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
