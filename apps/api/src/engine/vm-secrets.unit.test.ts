import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPairSync } from 'node:crypto';
import { expect, it } from 'vitest';
import { asOpenSshPrivateKey, generateCredentials } from './vm-secrets.ts';

const run = promisify(execFile);

async function publicKeyFromPrivate(privateKey: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vm-key-'));
  try {
    const file = path.join(dir, 'id');
    await writeFile(file, privateKey, { mode: 0o600 });
    // ssh-keygen -y reads the key as `ssh -i` does.
    return (await run('ssh-keygen', ['-y', '-f', file])).stdout.trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('hands out a private key OpenSSH reads, matching the public key the guest gets', async () => {
  const creds = generateCredentials('my vm');
  expect(creds.privateKeyOpenSsh).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n/);
  const derived = await publicKeyFromPrivate(creds.privateKeyOpenSsh);
  expect(creds.publicKeyOpenSsh.startsWith(derived)).toBe(true);
});

it('converts a key stored as PKCS#8 into the OpenSSH format', async () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const converted = asOpenSshPrivateKey(pem, 'old');
  expect(converted).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
  expect(await publicKeyFromPrivate(converted)).toMatch(/^ssh-ed25519 /);
});
