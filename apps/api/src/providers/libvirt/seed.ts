/**
 * The cloud-init NoCloud seed: an ISO 9660 image labelled `cidata` holding `meta-data`, `user-data` and, given the
 * NICs' MACs, `network-config`. The Debian 12 guest (scripts/guest-image/build-debian.sh) and Debian/Ubuntu/Rocky
 * cloud images apply it with cloud-init; the busybox test fixture (scripts/guest-image/build.sh) reads a subset of
 * #cloud-config with a small awk script (and DHCPs every NIC), so the user-data holds only what both understand.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { combineUserData } from '../cloud-init-user-data.ts';

const execFileP = promisify(execFile);

/** A YAML single-quoted scalar (the only escape is a doubled quote); newlines are not allowed in any field. */
export function yamlQuote(s: string): string {
  if (/[\r\n]/.test(s)) throw new Error('seed values must be single lines');
  return `'${s.replace(/'/g, "''")}'`;
}

export interface SeedInput {
  /**
   * cloud-init's instance-id: a new one makes cloud-init run its once-per-instance modules again (users, keys,
   * user-data). A create uses the ref; a rebuild a new one each time (rebuild.ts).
   */
  instanceId: string;
  hostname: string;
  user: string;
  password: string;
  publicKey: string;
  /** The customer's chosen keys (single lines, validated by the key store), installed beside `publicKey`. */
  authorizedKeys?: string[] | undefined;
  /**
   * The customer's user-data (`#cloud-config` or a `#!` script). Given, the seed's user-data is a MIME multipart of
   * theirs and the portal's (cloud-init-user-data.ts); absent, the portal's #cloud-config alone, which is all the
   * busybox test fixture's awk reader understands.
   */
  userData?: string | null | undefined;
  /**
   * The machine's NICs by MAC, in order: the first is `eth0` (its private network), a second `eth1` (the public
   * network). They go into the seed's `network-config` (DHCP on each) so cloud-init brings up every NIC, not only
   * the first (its fallback), under the same names whatever the image's own naming.
   */
  macs?: string[];
}

const MAC_RE = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;

/** NoCloud `network-config` (version 2): DHCP on each NIC, matched by its MAC and named eth0, eth1, … */
export function networkConfig(macs: string[]): string {
  const lines = ['version: 2', 'ethernets:'];
  macs.forEach((mac, i) => {
    if (!MAC_RE.test(mac)) throw new Error(`"${mac}" is not a MAC address`);
    lines.push(`  eth${i}:`, `    match: { macaddress: '${mac}' }`, `    set-name: eth${i}`, '    dhcp4: true');
  });
  return `${lines.join('\n')}\n`;
}

export function seedFiles(s: SeedInput): { metaData: string; userData: string; networkConfig: string | null } {
  const metaData = `instance-id: ${s.instanceId}\nlocal-hostname: ${s.hostname}\n`;
  const lines = [
    '#cloud-config',
    `hostname: ${yamlQuote(s.hostname)}`,
    'ssh_pwauth: true',
    'chpasswd: { expire: false }',
    'users:',
    `  - name: ${yamlQuote(s.user)}`,
    '    lock_passwd: false',
    `    plain_text_passwd: ${yamlQuote(s.password)}`,
    "    sudo: 'ALL=(ALL) NOPASSWD:ALL'",
    '    shell: /bin/bash',
  ];
  const keys = [s.publicKey, ...(s.authorizedKeys ?? [])].map((k) => k.trim()).filter(Boolean);
  if (keys.length) lines.push('    ssh_authorized_keys:', ...keys.map((k) => `      - ${yamlQuote(k)}`));
  if (s.user === 'root') {
    // Cloud images refuse root logins by default: cloud-init's disable_root and OpenSSH's PermitRootLogin.
    lines.push(
      'disable_root: false',
      'write_files:',
      '  - path: /etc/ssh/sshd_config.d/60-irontech-root.conf',
      "    content: 'PermitRootLogin yes'",
      'runcmd:',
      "  - [sh, -c, 'systemctl reload ssh || systemctl reload sshd || true']",
    );
  }
  return {
    metaData,
    userData: combineUserData(`${lines.join('\n')}\n`, s.userData),
    networkConfig: s.macs?.length ? networkConfig(s.macs.map((m) => m.toLowerCase())) : null,
  };
}

/** Builds the seed ISO with genisoimage (Debian `genisoimage`) and returns its bytes. */
export async function buildSeedIso(s: SeedInput): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-seed-'));
  try {
    const { metaData, userData, networkConfig: network } = seedFiles(s);
    await writeFile(path.join(dir, 'meta-data'), metaData, { mode: 0o600 });
    await writeFile(path.join(dir, 'user-data'), userData, { mode: 0o600 });
    if (network) await writeFile(path.join(dir, 'network-config'), network, { mode: 0o600 });
    const iso = path.join(dir, 'seed.iso');
    try {
      await execFileP('genisoimage', [
        '-quiet',
        '-output',
        iso,
        '-volid',
        'cidata',
        '-joliet',
        '-rock',
        path.join(dir, 'user-data'),
        path.join(dir, 'meta-data'),
        ...(network ? [path.join(dir, 'network-config')] : []),
      ]);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error('genisoimage is not installed (apt-get install --no-install-recommends genisoimage)', {
          cause: e,
        });
      throw e;
    }
    return await readFile(iso);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
