/** Per-VM credentials: an Ed25519 key pair and a password, kept encrypted at rest (AES-256-GCM). */
import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, randomBytes } from 'node:crypto';

export interface VmCredentials {
  privateKeyPem: string;
  publicKeyOpenSsh: string;
  password: string;
}

function sshString(buf: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
}

export function generateCredentials(comment: string): VmCredentials {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const blob = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  const safeComment = comment.replace(/[^\w.@-]/g, '_');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyOpenSsh: `ssh-ed25519 ${blob.toString('base64')} ${safeComment}`,
    // 20 characters from a URL-safe alphabet, with the classes a password policy wants.
    password: `${randomBytes(15).toString('base64url')}-9aZ`,
  };
}

export function createSecretBox(secret: string) {
  const key = createHash('sha256').update(`vm-secrets:${secret}`).digest();
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
    },
    open(sealed: string): string {
      const buf = Buffer.from(sealed.replace(/^v1:/, ''), 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
      decipher.setAuthTag(buf.subarray(12, 28));
      return Buffer.concat([decipher.update(buf.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;
