/** Platform operator API tokens: random secrets stored as keyed hashes, created by `npm run operator-token`. */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { apiTokens } from '../../db/schema.ts';
import { cryptoRandom, keyedHash, type Random } from '../../lib/crypto.ts';

export interface OperatorTokens {
  /** The token's id when it is valid and not revoked, else null. */
  verify(token: string): Promise<number | null>;
  create(name: string): Promise<{ id: number; token: string }>;
}

export function createOperatorTokens(deps: { db: Db; secret: string; random?: Random }): OperatorTokens {
  const random = deps.random ?? cryptoRandom;
  return {
    async verify(token) {
      if (!token || token.length > 200) return null;
      const [row] = await deps.db
        .select({ id: apiTokens.id })
        .from(apiTokens)
        .where(and(eq(apiTokens.tokenHash, keyedHash(deps.secret, token)), isNull(apiTokens.revokedAt)))
        .limit(1);
      if (!row) return null;
      await deps.db.update(apiTokens).set({ lastUsedAt: new Date() }).where(eq(apiTokens.id, row.id));
      return row.id;
    },
    async create(name) {
      const token = `op_${random.token(32)}`;
      const [row] = await deps.db
        .insert(apiTokens)
        .values({ name, tokenHash: keyedHash(deps.secret, token) })
        .returning({ id: apiTokens.id });
      return { id: row!.id, token };
    },
  };
}
