/**
 * The error handler's safety net for check-then-write races: the database's unique and foreign-key
 * violations answer 409 (not 500), a NUL that slipped through answers 400, and whatever is logged of a
 * failed query carries its SQL and the database's code and message, never the bound parameters
 * (sign-in codes, tokens, personal data). Runs on PGlite and on PostgreSQL.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_MESSAGES, VALIDATION } from '@portal/contract/messages';
import { distributors, resellers } from '../db/schema.ts';
import { loggerOptions } from '../app.ts';
import { SQLSTATE, databaseErrorOf, loggableError } from '../lib/errors.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { registerErrorHandling } from './errors.ts';

const SECRET = 'secret-code-748211';

let t: TestApp;
let app: FastifyInstance;
let lines: string[] = [];

beforeAll(async () => {
  t = await createTestApp({ seed: false });
  await t.db.insert(distributors).values({ name: 'Existing', externalId: SECRET });
  app = Fastify({ logger: { ...loggerOptions('info'), stream: { write: (line: string) => void lines.push(line) } } });
  registerErrorHandling(app);
  app.post('/duplicate', async () => {
    await t.db.insert(distributors).values({ name: 'Twin', externalId: SECRET });
    return { ok: true };
  });
  app.post('/dangling', async () => {
    await t.db.transaction(async (tx) => {
      await tx
        .insert(resellers)
        .values({ name: `Orphan ${SECRET}`, distributorId: 2_000_000_000, externalId: `r-${SECRET}` });
    });
    return { ok: true };
  });
  app.post('/nul', async () => {
    await t.db.insert(distributors).values({ name: `a\u0000${SECRET}`, externalId: 'nul' });
    return { ok: true };
  });
  app.post('/broken', async () => {
    await t.db.execute(sql`select * from no_such_table where secret = ${SECRET}`);
    return { ok: true };
  });
  app.post('/plain', async () => {
    throw new Error('plain failure');
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});
beforeEach(() => {
  lines = [];
});

const logged = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('database errors in the error handler', () => {
  it('a unique violation answers 409 with a generic message', async () => {
    const res = await app.inject({ method: 'POST', url: '/duplicate' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ message: API_MESSAGES.duplicate, data: { requestId: expect.any(String) } });
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toMatch(/insert|constraint|duplicate key/i);
  });

  it('a foreign-key violation answers 409 with a generic message', async () => {
    const res = await app.inject({ method: 'POST', url: '/dangling' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ message: API_MESSAGES.referenceConflict });
    expect(res.body).not.toContain(SECRET);
  });

  it('a NUL the database refuses answers 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/nul' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ message: VALIDATION.controlCharacters });
  });

  it('any other database error is a 500 that hides internals', async () => {
    const res = await app.inject({ method: 'POST', url: '/broken' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ message: API_MESSAGES.internal });
    expect(res.body).not.toMatch(/no_such_table|select/i);
  });

  it('logs each with the database code and message, never the query parameters', async () => {
    for (const url of ['/duplicate', '/dangling', '/nul', '/broken']) {
      lines = [];
      await app.inject({ method: 'POST', url });
      const entries = logged().filter((e) => e.err !== undefined);
      expect(entries, url).toHaveLength(1);
      const err = entries[0]!.err as {
        type: string;
        source: string;
        message: string;
        query?: string;
        code: string;
        stack: string;
      };
      expect(err.type).toBe('LoggedQueryError');
      expect(err.source).toBe('DrizzleQueryError');
      expect(err.code).toMatch(/^[0-9A-Z]{5}$/);
      expect(err.message).toMatch(new RegExp(`^${err.code} .{4,}`));
      expect(err.query).toMatch(/insert into|select/i);
      expect(err.stack).toMatch(/\n\s+at /);
      expect(lines.join('\n'), url).not.toContain(SECRET);
    }
    lines = [];
    await app.inject({ method: 'POST', url: '/duplicate' });
    const entry = logged().find((e) => e.err) as { level: number; err: Record<string, unknown> };
    expect(entry.level).toBe(40);
    expect(entry.err).toMatchObject({
      code: SQLSTATE.uniqueViolation,
      table: 'distributors',
      constraint: expect.stringContaining('external_id'),
    });
    expect(entry.err).not.toHaveProperty('detail');
    expect(entry.err).not.toHaveProperty('params');
  });

  it('still logs ordinary errors in full', async () => {
    const res = await app.inject({ method: 'POST', url: '/plain' });
    expect(res.statusCode).toBe(500);
    const entry = logged().find((e) => e.err) as { err: { type: string; message: string; stack: string } };
    expect(entry.err).toMatchObject({ type: 'Error', message: 'plain failure' });
    expect(entry.err.stack).toContain('plain failure');
  });
});

describe('the server logger', () => {
  async function failedQuery(): Promise<unknown> {
    try {
      await t.db.insert(distributors).values({ name: 'Twin', externalId: SECRET });
    } catch (err) {
      return err;
    }
    throw new Error('expected a unique violation');
  }

  it('strips query parameters wherever a failed query is logged', async () => {
    const err = await failedQuery();
    expect(String((err as Error).message)).toContain(SECRET); // what Drizzle puts in the message
    app.log.error({ err, operationId: 7 }, 'worker failed');
    app.log.warn(err as Error);
    app.log.error(err as Error, 'as the first argument');
    const entries = logged();
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({ operationId: 7, msg: 'worker failed', err: { code: SQLSTATE.uniqueViolation } });
    expect(entries[1]).toMatchObject({ err: { code: SQLSTATE.uniqueViolation } });
    expect(entries[2]).toMatchObject({ msg: 'as the first argument', err: { code: SQLSTATE.uniqueViolation } });
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('finds the database error behind the query error', async () => {
    const err = await failedQuery();
    expect(databaseErrorOf(err)).toMatchObject({ code: SQLSTATE.uniqueViolation });
    expect(JSON.stringify(loggableError(err))).not.toContain(SECRET);
    const plain = new Error('x');
    expect(loggableError(plain)).toBe(plain);
    expect(databaseErrorOf(plain)).toBeNull();
    expect(databaseErrorOf(Object.assign(new Error('pipe'), { code: 'EPIPE' }))).toBeNull();
  });
});
