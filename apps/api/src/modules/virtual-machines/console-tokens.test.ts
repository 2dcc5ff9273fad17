/**
 * Console tokens in the database: single use (also under concurrent attempts), bound to VM and session,
 * expiring, stored only as a keyed hash, purged once expired.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleTokens } from '../../db/schema.ts';
import { cryptoRandom, keyedHash } from '../../lib/crypto.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { CONSOLE_TOKEN_TTL_MS, createConsoleTokenStore } from './console-tokens.ts';

const SECRET = 'console-test-secret-0123456789-0123456789';
let t: TestApp;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

beforeAll(async () => {
  t = await createTestApp({ seed: false });
});
afterAll(async () => {
  await t.close();
});

describe('the store', () => {
  const store = () => createConsoleTokenStore({ db: t.db, secret: SECRET, clock, random: cryptoRandom });

  it('stores only a keyed hash, and lets a token through once, for its VM and session', async () => {
    const s = store();
    const token = await s.issue(7, 'session-a');
    const [row] = await t.db
      .select()
      .from(consoleTokens)
      .where(eq(consoleTokens.tokenHash, keyedHash(SECRET, `console:${token}`)));
    expect(row).toMatchObject({ vmId: 7, sessionId: 'session-a', usedAt: null });
    expect(await t.db.select().from(consoleTokens).where(eq(consoleTokens.tokenHash, token))).toEqual([]);

    expect(await s.consume(token, 7, 'session-a')).toBe(true);
    expect(await s.consume(token, 7, 'session-a')).toBe(false);
    // A second store (another instance) sees it spent too.
    expect(await store().consume(token, 7, 'session-a')).toBe(false);
    expect(await s.consume('not-a-token', 7, 'session-a')).toBe(false);
  });

  it('refuses another session or VM, and such an attempt spends the token', async () => {
    const s = store();
    const stolen = await s.issue(7, 'session-a');
    expect(await s.consume(stolen, 7, 'session-b')).toBe(false);
    expect(await s.consume(stolen, 7, 'session-a')).toBe(false);
    const wrongVm = await s.issue(7, 'session-a');
    expect(await s.consume(wrongVm, 8, 'session-a')).toBe(false);
    expect(await s.consume(wrongVm, 7, 'session-a')).toBe(false);
  });

  it('lets exactly one of many concurrent attempts through', async () => {
    const token = await store().issue(9, 'session-c');
    // Separate stores stand for separate instances; on PostgreSQL these run on separate connections.
    const results = await Promise.all(Array.from({ length: 8 }, () => store().consume(token, 9, 'session-c')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('expires after a minute, and purges expired rows', async () => {
    const s = store();
    const late = await s.issue(7, 'session-a');
    offsetMs = CONSOLE_TOKEN_TTL_MS + 1;
    try {
      expect(await s.consume(late, 7, 'session-a')).toBe(false);
      const live = await s.issue(7, 'session-a'); // also purges what expired (the first issue of this store purged nothing)
      const rows = await t.db.select().from(consoleTokens);
      expect(rows.every((r) => r.expiresAt.getTime() >= clock.now().getTime())).toBe(true);
      expect(rows).toHaveLength(1);
      offsetMs += CONSOLE_TOKEN_TTL_MS + 1;
      expect(await s.purgeExpired()).toBe(1);
      expect(await s.consume(live, 7, 'session-a')).toBe(false);
    } finally {
      offsetMs = 0;
    }
  });
});
