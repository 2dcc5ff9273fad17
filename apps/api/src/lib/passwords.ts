/** argon2id hashing (OWASP parameters: 19 MiB, 2 iterations, 1 lane). */
import { hash, verify } from '@node-rs/argon2';
import { API_MESSAGES } from '@portal/contract/messages';
import { BadRequestError } from './errors.ts';
import { isGuessablePassword } from './password-strength.ts';

const OPTIONS = {
  algorithm: 2 /* Algorithm.Argon2id (a const enum) */,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/** A hash of a random password, verified against when the email is unknown so timing does not tell. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password-Aa1!');
  return dummyHash;
}

/** Hashes a password a user chose, after refusing one that is too common or easy to guess. */
export function hashNewPassword(password: string, userInputs: string[] = []): Promise<string> {
  if (isGuessablePassword(password, userInputs)) throw new BadRequestError(API_MESSAGES.passwordTooCommon);
  return hashPassword(password);
}
