/**
 * Refuses input holding a lone UTF-16 surrogate (JSON's "\ud800"): it is not text, and PostgreSQL's json
 * and jsonb (audit records, client logs) reject it, which surfaced as a 500. One hook for every route
 * rather than a rule on each string schema, so a new route cannot forget it.
 */
import type { FastifyInstance } from 'fastify';
import { VALIDATION } from '@portal/contract/messages';
import { BadRequestError } from '../lib/errors.ts';

/** In Unicode mode a surrogate pair reads as one code point, so only a lone surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

/** Whether every string inside a parsed value is well-formed UTF-16 (depth-bounded: bodies are small). */
export function isWellFormedDeep(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return wellFormed(value);
  if (depth > 32 || value === null || typeof value !== 'object') return true;
  for (const [key, inner] of Object.entries(value)) {
    if (!wellFormed(key) || !isWellFormedDeep(inner, depth + 1)) return false;
  }
  return true;
}

export function registerWellFormedText(app: FastifyInstance) {
  app.addHook('preValidation', (request, _reply, done) => {
    if (!isWellFormedDeep(request.body) || !isWellFormedDeep(request.query) || !isWellFormedDeep(request.params)) {
      done(new BadRequestError(VALIDATION.malformedText));
      return;
    }
    done();
  });
}
