/** Per-VM credentials: an Ed25519 key pair and a password, kept encrypted at rest (lib/ssh-keys.ts). */
import { randomBytes } from 'node:crypto';
import { generateSshKeyPair } from '../lib/ssh-keys.ts';

export { asOpenSshPrivateKey, createSecretBox, openSshPrivateKey, type SecretBox } from '../lib/ssh-keys.ts';

export interface VmCredentials {
  /** OpenSSH's own private key format (`ssh -i` refuses PKCS#8 Ed25519 keys). */
  privateKeyOpenSsh: string;
  publicKeyOpenSsh: string;
  password: string;
}

export function generateCredentials(comment: string): VmCredentials {
  return {
    ...generateSshKeyPair(comment),
    // 20 characters from a URL-safe alphabet, with the classes a password policy wants.
    password: `${randomBytes(15).toString('base64url')}-9aZ`,
  };
}
