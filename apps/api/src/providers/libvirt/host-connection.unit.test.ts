/** How the portal connects to a host (issue 21): an operator's URI as written, a reseller's rendered by the portal. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSshKeyPair, sshFingerprint } from '../../lib/ssh-keys.ts';
import { HOST_KEY_MISSING, HostRefusedError, hostTarget, URI_REFUSED, type HostAccess } from './host-connection.ts';

const hostKey = generateSshKeyPair('host').publicKeyOpenSsh.split(' ').slice(0, 2).join(' ');
const resolved: string[] = [];
const access: HostAccess = {
  egress: {
    resolveAllowed: (host) => {
      resolved.push(host);
      if (host === 'inside.example.net')
        return Promise.reject(Object.assign(new Error('not reachable'), { code: 'EEGRESS' }));
      return Promise.resolve(['203.0.113.7']);
    },
  },
  allowTcp: false,
  resellerKey: () => Promise.resolve({ privateKey: 'PRIVATE KEY\n' }),
};
const reseller = { resellerId: 3 };

describe('hostTarget', () => {
  it("uses an operator's URI as written", async () => {
    const uri = 'qemu:///system?socket=/tmp/x/libvirt-sock';
    expect(await hostTarget({ resellerId: null }, { uri }, null).connect()).toBe(uri);
  });

  it('refuses a stored reseller URI that fails the policy, or a qemu+ssh host without a pinned key, before anything', () => {
    for (const uri of [
      'qemu+ext:///system?command=/tmp/x',
      'qemu:///system',
      'qemu+ssh://h.example.net/system?keyfile=/k',
    ])
      expect(() => hostTarget(reseller, { uri, hostKey }, access)).toThrow(new HostRefusedError(URI_REFUSED));
    expect(() => hostTarget(reseller, { uri: 'qemu+ssh://h.example.net/system' }, access)).toThrow(HOST_KEY_MISSING);
    expect(() => hostTarget(reseller, { uri: 'qemu+tls://h.example.net/system' }, null)).toThrow(URI_REFUSED);
  });

  it('connects over ssh to the checked address, with the portal key, ssh client and pinned key only', async () => {
    const target = hostTarget(reseller, { uri: 'qemu+ssh://kvm1.example.net:2222/system', hostKey }, access);
    expect(target.label).toBe('qemu+ssh://kvm1.example.net:2222/system');
    const uri = await target.connect();
    const m = /^qemu\+ssh:\/\/root@203\.0\.113\.7:2222\/system\?keyfile=(\S+)&no_tty=1&command=(\S+)$/.exec(uri);
    expect(m, uri).not.toBeNull();
    const [key, ssh] = [m![1]!, m![2]!];
    const dir = path.dirname(key);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, 'utf8')).toBe('PRIVATE KEY\n');
    expect(readFileSync(path.join(dir, 'known_hosts'), 'utf8')).toBe(`irontech-pinned-host ${hostKey}\n`);
    const wrapper = readFileSync(ssh, 'utf8');
    for (const option of [
      'StrictHostKeyChecking=yes',
      'GlobalKnownHostsFile=/dev/null',
      'HostKeyAlias=irontech-pinned-host',
    ])
      expect(wrapper).toContain(option);
    expect(wrapper).toMatch(/^#!\/bin\/sh\nexec ssh -F \/dev\/null /);
    // Each connection checks the address again.
    resolved.length = 0;
    await target.connect();
    expect(resolved).toEqual(['kvm1.example.net']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('names a TLS host (its certificate is checked against the name) after checking its addresses; refusals pass through', async () => {
    expect(await hostTarget(reseller, { uri: 'qemu+tls://kvm1.example.net/system' }, access).connect()).toBe(
      'qemu+tls://kvm1.example.net/system',
    );
    await expect(
      hostTarget(reseller, { uri: 'qemu+tls://inside.example.net/system' }, access).connect(),
    ).rejects.toThrow('not reachable');
  });
});

it("computes OpenSSH's fingerprint", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'irontech-fp-'));
  try {
    const file = path.join(dir, 'k.pub');
    writeFileSync(file, `${hostKey} c\n`);
    const expected = execFileSync('ssh-keygen', ['-lf', file], { encoding: 'utf8' }).split(' ')[1];
    expect(sshFingerprint(hostKey)).toBe(expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
