/** Random tokens, codes and keyed hashes. Secrets are stored only as HMACs keyed by the server secret. */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

export interface Random {
  token(bytes?: number): string;
  /** A string of `length` decimal digits, uniformly random. */
  digits(length: number): string;
}

export const cryptoRandom: Random = {
  token: (bytes = 32) => randomBytes(bytes).toString('base64url'),
  digits: (length) => Array.from({ length }, () => randomInt(10)).join(''),
};

export function keyedHash(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
