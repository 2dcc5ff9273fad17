/**
 * The customer's own SSH keys and first-boot script (issue 23 item 5): the key store's routes and schemas, the one
 * rule of what a public key may be (parsed from its wire format here, so the portal's form and the server refuse
 * the same keys with the same words), and the rule for a create's cloud-init user-data.
 *
 * A public key line is `type base64 [comment]`; the base64 is the key's blob in SSH's wire format (RFC 4253 6.6,
 * RFC 5656 3.1, RFC 8709 4): a string naming the type again, then for ssh-ed25519 a 32-byte string, for
 * ecdsa-sha2-<curve> the curve's name and its point (0x04 || X || Y), for ssh-rsa the mpints e and n. Parsed by
 * hand (a few dozen lines) rather than with a library: the portal's bundle needs it too, and no library is needed
 * for reading four length-prefixed fields. The fingerprint (`SHA256:` + unpadded base64 of the blob's SHA-256, as
 * `ssh-keygen -l` prints it) is the server's work (node:crypto).
 */
import './zod-setup.ts';
import { z } from 'zod';
import { idParamsSchema, route, timestampSchema } from './common.ts';
import { LIMITS, SSH_KEYS, USER_DATA_MAX_BYTES } from './constants.ts';
import { SSH_KEY_TEXT, VALIDATION } from './messages.ts';
import { MULTI_LINE_PATTERN, SINGLE_LINE_PATTERN } from './validation.ts';

export const SSH_KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

/** Each curve's field size in bytes: its point is 1 + 2 × that. */
const CURVE_BYTES: Record<string, number> = { nistp256: 32, nistp384: 48, nistp521: 66 };
const CURVE_BITS: Record<string, number> = { nistp256: 256, nistp384: 384, nistp521: 521 };

export interface ParsedSshKey {
  type: SshKeyType;
  /** The blob, as the line carried it (validated base64). */
  base64: string;
  blob: Uint8Array;
  /** RSA: the modulus' bit length; ECDSA: the curve's size; Ed25519: 256. */
  bits: number;
  /** The comment after the key, '' when none. */
  comment: string;
  /** `type base64 comment`, the comment dropped when empty: the line the guest's authorized_keys gets. */
  line: string;
}

/** Reads SSH wire-format fields off a blob; every read is bounds-checked (null past the end). */
function wireReader(blob: Uint8Array) {
  let at = 0;
  return {
    string(): Uint8Array | null {
      if (at + 4 > blob.length) return null;
      const len = ((blob[at]! << 24) >>> 0) + (blob[at + 1]! << 16) + (blob[at + 2]! << 8) + blob[at + 3]!;
      at += 4;
      if (len > blob.length - at) return null;
      const out = blob.subarray(at, at + len);
      at += len;
      return out;
    },
    get done() {
      return at === blob.length;
    },
  };
}

const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** The type word of something that names a key type, accepted or not (ssh-dss, sk-ssh-ed25519@openssh.com, …). */
const TYPE_WORD = /^[a-z0-9][a-z0-9@.-]{2,63}$/;

/** Bit length of a positive mpint (big-endian, at most one leading zero byte). */
function mpintBits(n: Uint8Array): number | null {
  if (n.length === 0 || (n[0]! & 0x80) !== 0) return null; // zero or negative
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  if (i > 1 || i === n.length) return null; // not minimal, or zero
  return (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]!));
}

function decodeBase64(data: string): Uint8Array | null {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return null;
  try {
    return Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * One public key line (as in a .pub file or authorized_keys, without options) to its parts, or the message saying
 * why it is refused: not a key, a private key, a refused type, an RSA key under 2048 bits.
 */
export function parseSshPublicKey(text: string): { ok: true; key: ParsedSshKey } | { ok: false; message: string } {
  const fail = (message: string) => ({ ok: false as const, message });
  const line = text.trim();
  if (line === '') return fail(SSH_KEY_TEXT.keyRequired);
  if (line.length > SSH_KEYS.maxLineLength) return fail(SSH_KEY_TEXT.tooLong);
  if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(line) || line.startsWith('PuTTY-User-Key-File'))
    return fail(SSH_KEY_TEXT.privateKey);
  if (!SINGLE_LINE_PATTERN.test(line)) return fail(SSH_KEY_TEXT.notAKey);
  const [word = '', data = '', ...rest] = line.split(/[ \t]+/);
  const comment = rest.join(' ');
  const blob = decodeBase64(data);
  if (!blob) return fail(SSH_KEY_TEXT.notAKey);
  const reader = wireReader(blob);
  const inner = reader.string();
  // The blob names its own type; it must be the line's.
  if (!inner || latin1(inner) !== word) return fail(SSH_KEY_TEXT.notAKey);
  if (!(SSH_KEY_TYPES as readonly string[]).includes(word))
    return fail(TYPE_WORD.test(word) ? SSH_KEY_TEXT.typeRefused(word) : SSH_KEY_TEXT.notAKey);
  const type = word as SshKeyType;
  let bits: number | null = null;
  if (type === 'ssh-ed25519') {
    const pk = reader.string();
    if (pk?.length === 32) bits = 256;
  } else if (type === 'ssh-rsa') {
    const e = reader.string();
    const n = reader.string();
    const eBits = e && mpintBits(e);
    bits = n && eBits ? mpintBits(n) : null;
  } else {
    const curve = type.slice('ecdsa-sha2-'.length);
    const name = reader.string();
    const point = reader.string();
    const size = CURVE_BYTES[curve]!;
    if (name && latin1(name) === curve && point?.length === 1 + 2 * size && point[0] === 0x04)
      bits = CURVE_BITS[curve]!;
  }
  if (bits === null || !reader.done) return fail(SSH_KEY_TEXT.notAKey);
  if (type === 'ssh-rsa' && bits < SSH_KEYS.minRsaBits) return fail(SSH_KEY_TEXT.rsaTooShort);
  return {
    ok: true,
    key: { type, base64: data, blob, bits, comment, line: comment ? `${type} ${data} ${comment}` : `${type} ${data}` },
  };
}

export const sshKeyNameSchema = z
  .string({ error: SSH_KEY_TEXT.nameRequired })
  .trim()
  .min(1, { error: SSH_KEY_TEXT.nameRequired, abort: true })
  .max(LIMITS.name, SSH_KEY_TEXT.nameTooLong)
  .regex(SINGLE_LINE_PATTERN, VALIDATION.controlCharacters);

/** A public key line the store accepts (the message of parseSshPublicKey otherwise). */
export const sshPublicKeySchema = z.string({ error: SSH_KEY_TEXT.keyRequired }).superRefine((value, ctx) => {
  const parsed = parseSshPublicKey(value);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
});

export const addSshKeyBodySchema = z.object({ name: sshKeyNameSchema, publicKey: sshPublicKeySchema }).strict();
export type AddSshKeyBody = z.infer<typeof addSshKeyBodySchema>;

export const sshKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.enum(SSH_KEY_TYPES),
  bits: z.number().int(),
  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  fingerprint: z.string(),
  /** The line as stored (`type base64 comment`). */
  publicKey: z.string(),
  createdAt: timestampSchema,
});
export type SshKey = z.infer<typeof sshKeySchema>;

/** `#cloud-config` YAML or a script (`#!`), at most USER_DATA_MAX_BYTES of UTF-8; '' is the same as none. */
export const userDataSchema = z
  .string()
  .regex(MULTI_LINE_PATTERN, VALIDATION.controlCharacters)
  .refine((v) => new TextEncoder().encode(v).length <= USER_DATA_MAX_BYTES, {
    error: SSH_KEY_TEXT.userDataTooLarge(USER_DATA_MAX_BYTES),
    abort: true,
  })
  .refine((v) => v === '' || v.startsWith('#cloud-config') || v.startsWith('#!'), SSH_KEY_TEXT.userDataFormat);

/** What a user-data is, for the VM page: cloud-config or a script. */
export function userDataKind(userData: string): 'cloud-config' | 'script' {
  return userData.startsWith('#cloud-config') ? 'cloud-config' : 'script';
}

const base = { tag: 'SSH keys', access: 'user' } as const;

/** The signed-in user's own keys: nobody else sees or removes them (another user's id is 404). */
export const sshKeyRoutes = {
  list: route({
    ...base,
    method: 'GET',
    path: '/users/sshKeys',
    summary: "The caller's SSH public keys",
    data: z.array(sshKeySchema),
  }),
  add: route({
    ...base,
    method: 'POST',
    path: '/users/sshKeys',
    summary: 'Add an SSH public key (Ed25519, ECDSA, or RSA of 2048 bits or more)',
    body: addSshKeyBodySchema,
    data: sshKeySchema,
  }),
  remove: route({
    ...base,
    method: 'DELETE',
    path: '/users/sshKeys/:id',
    summary: "Remove one of the caller's SSH keys (VMs created with it keep their copy)",
    params: idParamsSchema,
    data: z.null(),
  }),
} as const;
