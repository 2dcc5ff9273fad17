/**
 * Real SSH public key lines for tests (issue 23 item 5), made with node:crypto and written in SSH's wire format
 * (RFC 4253 6.6, RFC 5656 3.1, RFC 8709): what `ssh-keygen` puts in a .pub file.
 */
import { generateKeyPairSync } from 'node:crypto';

function sshString(data: Buffer | string): Buffer {
  const buf = typeof data === 'string' ? Buffer.from(data) : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(buf.length);
  return Buffer.concat([len, buf]);
}

/** An unsigned big-endian integer as an SSH mpint: minimal, with a zero byte when its top bit is set. */
function mpint(unsigned: Buffer): Buffer {
  let i = 0;
  while (i < unsigned.length - 1 && unsigned[i] === 0) i++;
  const body = unsigned.subarray(i);
  return sshString(body[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), body]) : body);
}

const line = (type: string, blob: Buffer, comment: string) =>
  `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;

export function ed25519KeyLine(comment = 'test@ed25519'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return line('ssh-ed25519', Buffer.concat([sshString('ssh-ed25519'), sshString(raw)]), comment);
}

export function rsaKeyLine(bits: number, comment = `test@rsa${bits}`): string {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: bits });
  const jwk = publicKey.export({ format: 'jwk' });
  const blob = Buffer.concat([
    sshString('ssh-rsa'),
    mpint(Buffer.from(jwk.e!, 'base64url')),
    mpint(Buffer.from(jwk.n!, 'base64url')),
  ]);
  return line('ssh-rsa', blob, comment);
}

const CURVES = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' } as const;

export function ecdsaKeyLine(curve: keyof typeof CURVES, comment = `test@${curve}`): string {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: CURVES[curve] });
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  const type = `ecdsa-sha2-${curve}`;
  return line(type, Buffer.concat([sshString(type), sshString(curve), sshString(point)]), comment);
}

/** A DSA-typed line (a type the store refuses): any blob naming ssh-dss is enough for the type check. */
export function dsaKeyLine(): string {
  const blob = Buffer.concat([sshString('ssh-dss'), ...[1, 2, 3, 4].map(() => sshString(Buffer.alloc(20, 7)))]);
  return line('ssh-dss', blob, 'old@dsa');
}
