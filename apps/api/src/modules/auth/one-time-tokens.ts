/** Emailed single-use keys (reset links, invitations): random, stored keyed-hashed, expiring. */
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { oneTimeTokens } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { keyedHash, type Random } from '../../lib/crypto.ts';

export type TokenPurpose = 'reset_password' | 'confirm_email';

export interface OneTimeTokens {
  issue(userId: number, purpose: TokenPurpose, ttlMs: number, tx?: Tx): Promise<string>;
  /** Marks the key used and returns true when it is valid for this user and purpose. */
  consume(userId: number, purpose: TokenPurpose, key: string, tx: Tx): Promise<boolean>;
}

export function createOneTimeTokens(deps: { db: Db; secret: string; clock: Clock; random: Random }): OneTimeTokens {
  const hashOf = (key: string) => keyedHash(deps.secret, `ott:${key}`);
  return {
    async issue(userId, purpose, ttlMs, tx) {
      const key = deps.random.token(32);
      const db = tx ?? deps.db;
      // A new link replaces older unused ones of the same purpose.
      await db
        .update(oneTimeTokens)
        .set({ usedAt: deps.clock.now() })
        .where(and(eq(oneTimeTokens.userId, userId), eq(oneTimeTokens.purpose, purpose), isNull(oneTimeTokens.usedAt)));
      await db.insert(oneTimeTokens).values({
        userId,
        purpose,
        tokenHash: hashOf(key),
        expiresAt: new Date(deps.clock.now().getTime() + ttlMs),
      });
      return key;
    },
    async consume(userId, purpose, key, tx) {
      const used = await tx
        .update(oneTimeTokens)
        .set({ usedAt: deps.clock.now() })
        .where(
          and(
            eq(oneTimeTokens.tokenHash, hashOf(key)),
            eq(oneTimeTokens.userId, userId),
            eq(oneTimeTokens.purpose, purpose),
            isNull(oneTimeTokens.usedAt),
            gt(oneTimeTokens.expiresAt, deps.clock.now()),
          ),
        )
        .returning({ id: oneTimeTokens.id });
      return used.length === 1;
    },
  };
}
