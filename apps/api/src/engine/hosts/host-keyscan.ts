/**
 * Reads an SSH server's host key with `ssh-keyscan` (issue 21: a reseller's host key is pinned at registration,
 * after the reseller compared its fingerprint). Called only with an address the egress policy allowed, as an IP
 * literal and a port: nothing the tenant typed reaches the command line.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { parseSshPublicKey } from '../../lib/ssh-keys.ts';

/** Preferred first: the key type OpenSSH itself prefers. */
const PREFERENCE = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'];

/** The host's key (`type base64`), or null when it did not answer over SSH in time. */
export function scanHostKey(address: string, port: number, timeoutS = 5): Promise<string | null> {
  if (!net.isIP(address)) return Promise.reject(new Error('scanHostKey takes an IP address'));
  return new Promise((resolve) => {
    execFile(
      'ssh-keyscan',
      ['-T', String(timeoutS), '-t', 'ed25519,ecdsa,rsa', '-p', String(port), '--', address],
      { timeout: (timeoutS + 5) * 1000, maxBuffer: 256 * 1024 },
      (_err, stdout) => {
        const keys = String(stdout ?? '')
          .split('\n')
          .filter((l) => l && !l.startsWith('#'))
          .map((l) => parseSshPublicKey(l.split(/\s+/).slice(1).join(' ')))
          .filter((k) => k !== null);
        keys.sort((a, b) => PREFERENCE.indexOf(a.type) - PREFERENCE.indexOf(b.type));
        resolve(keys[0]?.text ?? null);
      },
    );
  });
}
