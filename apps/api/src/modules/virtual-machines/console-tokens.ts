/**
 * Single-use, short-lived console tokens bound to the session that asked for them.
 *
 * They live in the database (`console_tokens`, keyed hash of the token only), so a link issued by one API
 * instance opens on any other. Single use holds across instances: the one `update … where used_at is null
 * returning` that finds the row wins, whichever instance runs it. Expired rows are purged now and then
 * when links are issued.
 */
import { and, eq, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { consoleTokens } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash, type Random } from '../../lib/crypto.ts';

export const CONSOLE_TOKEN_TTL_MS = 60_000;

export interface ConsoleTokenStore {
  /** A new token for this VM and session, valid CONSOLE_TOKEN_TTL_MS. */
  issue(vmId: number, sessionId: string): Promise<string>;
  /** Records `token` (made by the caller) for this VM and session. */
  save(token: string, vmId: number, sessionId: string): Promise<void>;
  /**
   * True once, on whichever instance asks first, for a live token of this VM and session. Like a key that
   * is handed in, a token is spent by any attempt, even one for another VM or session.
   */
  consume(token: string, vmId: number, sessionId: string): Promise<boolean>;
  /** Deletes expired rows; returns how many. */
  purgeExpired(): Promise<number>;
}

export interface ConsoleTokenDeps {
  db: Db;
  secret: string;
  clock: Clock;
  random: Random;
  /** Told when an opportunistic purge fails (it never fails an issue). */
  onPurgeError?: (err: unknown) => void;
}

export function createConsoleTokenStore(deps: ConsoleTokenDeps): ConsoleTokenStore {
  const { db, clock } = deps;
  const hashOf = (token: string) => keyedHash(deps.secret, `console:${token}`);
  let lastPurge = 0;

  const store: ConsoleTokenStore = {
    async issue(vmId, sessionId) {
      const token = deps.random.token(24);
      await store.save(token, vmId, sessionId);
      return token;
    },
    async save(token, vmId, sessionId) {
      const now = clock.now();
      // At most one purge per TTL per instance, alongside the insert and never failing it.
      const purge =
        now.getTime() - lastPurge >= CONSOLE_TOKEN_TTL_MS
          ? ((lastPurge = now.getTime()), store.purgeExpired().catch((err: unknown) => deps.onPurgeError?.(err)))
          : undefined;
      await Promise.all([
        db.insert(consoleTokens).values({
          tokenHash: hashOf(token),
          vmId,
          sessionId,
          expiresAt: new Date(now.getTime() + CONSOLE_TOKEN_TTL_MS),
        }),
        purge,
      ]);
    },
    async consume(token, vmId, sessionId) {
      const now = clock.now();
      const [row] = await db
        .update(consoleTokens)
        .set({ usedAt: now })
        .where(and(eq(consoleTokens.tokenHash, hashOf(token)), isNull(consoleTokens.usedAt)))
        .returning({
          vmId: consoleTokens.vmId,
          sessionId: consoleTokens.sessionId,
          expiresAt: consoleTokens.expiresAt,
        });
      return !!row && row.vmId === vmId && row.sessionId === sessionId && row.expiresAt.getTime() >= now.getTime();
    },
    async purgeExpired() {
      const gone = await db
        .delete(consoleTokens)
        .where(lt(consoleTokens.expiresAt, clock.now()))
        .returning({ tokenHash: consoleTokens.tokenHash });
      return gone.length;
    },
  };
  return store;
}
