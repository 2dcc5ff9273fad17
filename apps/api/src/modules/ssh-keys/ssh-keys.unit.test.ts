/**
 * The key store's rule (contract: parseSshPublicKey) on real keys of every accepted type, and what it refuses with
 * which words; the fingerprint is the one `ssh-keygen -l` prints for the same line.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SSH_KEY_TEXT } from '@portal/contract/messages';
import { parseSshPublicKey, userDataSchema } from '@portal/contract/ssh-keys';
import { sshFingerprint } from '../../lib/ssh-keys.ts';
import { dsaKeyLine, ecdsaKeyLine, ed25519KeyLine, rsaKeyLine } from '../../../test/ssh-key-lines.ts';

const dir = mkdtempSync(join(tmpdir(), 'ssh-keys-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `ssh-keygen -l -f` of a line: `bits SHA256:… comment (TYPE)`. */
function keygen(line: string): { bits: number; fingerprint: string } {
  const file = join(dir, 'key.pub');
  writeFileSync(file, `${line}\n`);
  const [bits, fingerprint] = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', file], {
    encoding: 'utf8',
  }).split(' ');
  return { bits: Number(bits), fingerprint: fingerprint! };
}

const refused = (text: string) => {
  const parsed = parseSshPublicKey(text);
  return parsed.ok ? null : parsed.message;
};

describe('accepted keys', () => {
  const cases: [string, string, number][] = [
    ['ssh-ed25519', ed25519KeyLine('me@laptop'), 256],
    ['ecdsa-sha2-nistp256', ecdsaKeyLine('nistp256'), 256],
    ['ecdsa-sha2-nistp384', ecdsaKeyLine('nistp384'), 384],
    ['ecdsa-sha2-nistp521', ecdsaKeyLine('nistp521'), 521],
    ['ssh-rsa', rsaKeyLine(2048), 2048],
    ['ssh-rsa', rsaKeyLine(3072, ''), 3072],
  ];
  it.each(cases)('%s: type, bits and the fingerprint ssh-keygen prints', (type, line, bits) => {
    const parsed = parseSshPublicKey(`  ${line}\n`);
    if (!parsed.ok) throw new Error(parsed.message);
    expect([parsed.key.type, parsed.key.bits, parsed.key.line]).toEqual([type, bits, line]);
    expect(keygen(line)).toEqual({ bits, fingerprint: sshFingerprint(parsed.key.line) });
  });
});

describe('refused keys and their messages', () => {
  it('an RSA key under 2048 bits', () => {
    expect(refused(rsaKeyLine(1024))).toBe(SSH_KEY_TEXT.rsaTooShort);
    expect(refused(rsaKeyLine(2040))).toBe(SSH_KEY_TEXT.rsaTooShort);
  });
  it('a type outside the list (DSA) is named', () => {
    expect(refused(dsaKeyLine())).toBe(SSH_KEY_TEXT.typeRefused('ssh-dss'));
  });
  it('a private key says so', () => {
    expect(
      refused('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'),
    ).toBe(SSH_KEY_TEXT.privateKey);
  });
  it('anything malformed is "not an SSH public key"', () => {
    const good = ed25519KeyLine();
    const [type, data] = good.split(' ') as [string, string];
    const blob = Buffer.from(data, 'base64');
    for (const text of [
      'hello world',
      'ssh-ed25519',
      `${type} ${data.slice(0, -8)}`, // truncated
      `${type} ${data}!`, // not base64
      `ssh-rsa ${data}`, // the blob names another type
      `${type} ${Buffer.concat([blob, Buffer.from([0])]).toString('base64')}`, // trailing bytes
      `${type} ${Buffer.concat([blob.subarray(0, -1)]).toString('base64')}`, // a 31-byte key
      `${good}\n${good}`, // two lines
      `from="10.0.0.1" ${good}`, // authorized_keys options
      `${type} ${data} bell\u0007`,
    ])
      expect(refused(text), text).toBe(SSH_KEY_TEXT.notAKey);
    expect(refused('   ')).toBe(SSH_KEY_TEXT.keyRequired);
    expect(refused(`${type} ${'A'.repeat(20_000)}`)).toBe(SSH_KEY_TEXT.tooLong);
  });
});

describe('user-data', () => {
  const check = (v: string) => {
    const r = userDataSchema.safeParse(v);
    return r.success ? null : r.error.issues[0]!.message;
  };
  it('is #cloud-config or a #! script of at most 16 KiB (UTF-8 bytes), or empty', () => {
    expect(check('#cloud-config\nruncmd: [touch /x]\n')).toBeNull();
    expect(check('#!/bin/sh\necho hi\n')).toBeNull();
    expect(check('')).toBeNull();
    expect(check(`#!/bin/sh\n#${'x'.repeat(16 * 1024 - 11)}`)).toBeNull();
    expect(check(`#!/bin/sh\n#${'x'.repeat(16 * 1024 - 10)}`)).toBe(SSH_KEY_TEXT.userDataTooLarge(16 * 1024));
    expect(check(`#!/bin/sh\n#${'é'.repeat(8 * 1024)}`)).toBe(SSH_KEY_TEXT.userDataTooLarge(16 * 1024));
    expect(check('echo hi')).toBe(SSH_KEY_TEXT.userDataFormat);
    expect(check(' #cloud-config')).toBe(SSH_KEY_TEXT.userDataFormat);
  });
});
