/**
 * Refuses guessable new passwords with zxcvbn-ts (a maintained TypeScript port of Dropbox's zxcvbn): its
 * dictionaries hold the commonest leaked passwords, names and words, and it sees l33t, keyboard walks,
 * dates and repeats, which a fixed list misses (`P@ssw0rd1234` passes the shape rules but not this).
 * Server-side only: the dictionaries are too big for the portal bundle, and the server is where the rule holds.
 */
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import * as common from '@zxcvbn-ts/language-common';
import * as en from '@zxcvbn-ts/language-en';

/** zxcvbn's score 0–4; 3 is "safely unguessable: moderate protection from offline slow-hash attacks". */
export const MIN_PASSWORD_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
  });
  return estimator;
}

/** True when the password is too common or too easy to guess (the user's own email counts against it). */
export function isGuessablePassword(password: string, userInputs: string[] = []): boolean {
  const inputs = userInputs.flatMap((s) => s.toLowerCase().split(/[@.\s]+/)).filter((s) => s.length >= 3);
  return zxcvbn().check(password, inputs).score < MIN_PASSWORD_SCORE;
}
