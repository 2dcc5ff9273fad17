/**
 * SSH keys in OpenSSH's own formats, and the secret box that keeps private keys sealed at rest (AES-256-GCM
 * under a key derived from the server secret). Used for each VM's credentials and each reseller's portal key
 * (the key the portal logs in to a reseller's libvirt hosts with, issue 21).
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

function sshString(buf: Buffer | string): Buffer {
  const data = typeof buf === 'string' ? Buffer.from(buf) : buf;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  return Buffer.concat([len, data]);
}

const uint32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};

function ed25519Raw(privateKey: KeyObject): { seed: Buffer; pub: Buffer } {
  const jwk = privateKey.export({ format: 'jwk' });
  if (jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) throw new Error('not an Ed25519 key');
  return { seed: Buffer.from(jwk.d, 'base64url'), pub: Buffer.from(jwk.x, 'base64url') };
}

/**
 * An Ed25519 private key in the `openssh-key-v1` format (PROTOCOL.key in OpenSSH's sources), unencrypted:
 * magic, cipher/kdf "none", one public key blob, then the private section (check integers, key type, public
 * key, seed||public, comment) padded 1,2,3… to the 8-byte block. Small enough to write here rather than pull a
 * dependency for one format.
 */
export function openSshPrivateKey(privateKey: KeyObject, comment: string): string {
  const { seed, pub } = ed25519Raw(privateKey);
  const pubBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let priv = Buffer.concat([
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(comment),
  ]);
  const pad = (8 - (priv.length % 8)) % 8;
  priv = Buffer.concat([priv, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(pubBlob),
    sshString(priv),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** Keys stored before OpenSSH's format was used (PKCS#8 PEM) are handed out in OpenSSH's format too. */
export function asOpenSshPrivateKey(stored: string, comment = ''): string {
  if (!stored.includes('-----BEGIN PRIVATE KEY-----')) return stored;
  return openSshPrivateKey(createPrivateKey(stored), comment);
}

/** A new Ed25519 key pair: the private key in OpenSSH's format, the public key as an authorized_keys line. */
export function generateSshKeyPair(comment: string): { privateKeyOpenSsh: string; publicKeyOpenSsh: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const blob = Buffer.concat([sshString('ssh-ed25519'), sshString(raw)]);
  const safeComment = comment.replace(/[^\w.@-]/g, '_');
  return {
    privateKeyOpenSsh: openSshPrivateKey(privateKey, safeComment),
    publicKeyOpenSsh: `ssh-ed25519 ${blob.toString('base64')} ${safeComment}`,
  };
}

const KEY_TYPES = new Set([
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
]);

/** `type base64` of a public key line (comment dropped), or null when it is not one; the blob must name its type. */
export function parseSshPublicKey(line: string): { type: string; blob: Buffer; text: string } | null {
  const [type, data] = line.trim().split(/\s+/);
  if (!type || !data || !KEY_TYPES.has(type) || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return null;
  const blob = Buffer.from(data, 'base64');
  if (blob.length < 4) return null;
  const len = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + len).toString('latin1') !== type) return null;
  return { type, blob, text: `${type} ${data}` };
}

/** OpenSSH's fingerprint of a public key: `SHA256:` and the unpadded base64 of the blob's SHA-256. */
export function sshFingerprint(publicKey: string): string {
  const parsed = parseSshPublicKey(publicKey);
  if (!parsed) throw new Error('not an SSH public key');
  return `SHA256:${createHash('sha256').update(parsed.blob).digest('base64').replace(/=+$/, '')}`;
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
