/**
 * The cloud-init NoCloud seed: an ISO 9660 image labelled `cidata` holding `meta-data` and `user-data`. Debian
 * and Ubuntu cloud images apply it with cloud-init; the Irontech guest (scripts/guest-image) reads the same
 * subset of #cloud-config with a small awk script, so the driver writes only what both understand.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** A YAML single-quoted scalar (the only escape is a doubled quote); newlines are not allowed in any field. */
export function yamlQuote(s: string): string {
  if (/[\r\n]/.test(s)) throw new Error('seed values must be single lines');
  return `'${s.replace(/'/g, "''")}'`;
}

export interface SeedInput {
  instanceId: string;
  hostname: string;
  user: string;
  password: string;
  publicKey: string;
}

export function seedFiles(s: SeedInput): { metaData: string; userData: string } {
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
  const key = s.publicKey.trim();
  if (key) lines.push('    ssh_authorized_keys:', `      - ${yamlQuote(key)}`);
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
  return { metaData, userData: `${lines.join('\n')}\n` };
}

/** Builds the seed ISO with genisoimage (Debian `genisoimage`) and returns its bytes. */
export async function buildSeedIso(s: SeedInput): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'irontech-seed-'));
  try {
    const { metaData, userData } = seedFiles(s);
    await writeFile(path.join(dir, 'meta-data'), metaData, { mode: 0o600 });
    await writeFile(path.join(dir, 'user-data'), userData, { mode: 0o600 });
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
