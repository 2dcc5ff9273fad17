/** SQL of personal API tokens (docs/api-tokens.md). Every read and write takes its owner or company scope. */
import { and, desc, eq, inArray, isNull, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { companies, personalTokens, teamMembers, users } from '../../db/schema.ts';
import { mustSetUpStrongFactorSql } from '../../db/strong-factor.ts';

export type TokenRow = typeof personalTokens.$inferSelect;

export function createApiTokensRepository(db: Db) {
  const columns = {
    id: personalTokens.id,
    userId: personalTokens.userId,
    companyId: personalTokens.companyId,
    name: personalTokens.name,
    hint: personalTokens.hint,
    scope: personalTokens.scope,
    teamIds: personalTokens.teamIds,
    ipAllowList: personalTokens.ipAllowList,
    createdAt: personalTokens.createdAt,
    expiresAt: personalTokens.expiresAt,
    lastUsedAt: personalTokens.lastUsedAt,
    lastUsedIp: personalTokens.lastUsedIp,
    revokedAt: personalTokens.revokedAt,
  };
  return {
    listOwn: (userId: number) =>
      db
        .select(columns)
        .from(personalTokens)
        .where(eq(personalTokens.userId, userId))
        .orderBy(desc(personalTokens.createdAt), desc(personalTokens.id)),
    listCompany: (companyId: number, userId?: number) =>
      db
        .select({ ...columns, userEmail: users.email })
        .from(personalTokens)
        .innerJoin(users, eq(users.id, personalTokens.userId))
        .where(
          and(
            eq(personalTokens.companyId, companyId),
            userId === undefined ? undefined : eq(personalTokens.userId, userId),
          ),
        )
        .orderBy(desc(personalTokens.createdAt), desc(personalTokens.id)),
    async findInCompany(companyId: number, id: number) {
      const [row] = await db
        .select({ ...columns, userEmail: users.email })
        .from(personalTokens)
        .innerJoin(users, eq(users.id, personalTokens.userId))
        .where(and(eq(personalTokens.id, id), eq(personalTokens.companyId, companyId)))
        .limit(1);
      return row;
    },
    async liveCount(userId: number, now: Date) {
      const [row] = await db
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(personalTokens)
        .where(
          and(eq(personalTokens.userId, userId), isNull(personalTokens.revokedAt), gt(personalTokens.expiresAt, now)),
        );
      return row?.n ?? 0;
    },
    /** Which of `teamIds` the user is a member of. */
    async memberTeams(userId: number, teamIds: number[]) {
      const rows = await db
        .select({ teamId: teamMembers.teamId })
        .from(teamMembers)
        .where(and(eq(teamMembers.userId, userId), inArray(teamMembers.teamId, teamIds)));
      return new Set(rows.map((r) => r.teamId));
    },
    async insert(values: typeof personalTokens.$inferInsert) {
      const [row] = await db.insert(personalTokens).values(values).returning(columns);
      return row!;
    },
    /** Revokes (once: an already revoked token keeps its time); the owner or company condition is the caller's scope. */
    async revoke(where: { id: number; userId?: number; companyId: number }, now: Date) {
      await db
        .update(personalTokens)
        .set({ revokedAt: now })
        .where(
          and(
            eq(personalTokens.id, where.id),
            eq(personalTokens.companyId, where.companyId),
            where.userId === undefined ? undefined : eq(personalTokens.userId, where.userId),
            isNull(personalTokens.revokedAt),
          ),
        );
    },
    /** The bearer's token with its user and company, by the secret's hash (one indexed read per call). */
    async byHash(hash: string) {
      const [row] = await db
        .select({
          id: personalTokens.id,
          name: personalTokens.name,
          scope: personalTokens.scope,
          teamIds: personalTokens.teamIds,
          ipAllowList: personalTokens.ipAllowList,
          expiresAt: personalTokens.expiresAt,
          revokedAt: personalTokens.revokedAt,
          lastUsedAt: personalTokens.lastUsedAt,
          lastUsedIp: personalTokens.lastUsedIp,
          userId: users.id,
          companyId: users.companyId,
          tokenCompanyId: personalTokens.companyId,
          email: users.email,
          isCompanyAdmin: users.isCompanyAdmin,
          staffRole: users.staffRole,
          mustResetPassword: users.forcePasswordReset,
          // The company requires an authenticator app the user has not set up: the token is refused too.
          mustSetUpTwoFactor: mustSetUpStrongFactorSql,
          resellerId: companies.resellerId,
          suspendedAt: companies.suspendedAt,
        })
        .from(personalTokens)
        .innerJoin(users, eq(users.id, personalTokens.userId))
        .innerJoin(companies, eq(companies.id, users.companyId))
        .where(eq(personalTokens.tokenHash, hash))
        .limit(1);
      return row;
    },
    async touch(id: number, at: Date, ip: string) {
      await db.update(personalTokens).set({ lastUsedAt: at, lastUsedIp: ip }).where(eq(personalTokens.id, id));
    },
  };
}
export type ApiTokensRepository = ReturnType<typeof createApiTokensRepository>;
