/**
 * Personal API tokens (issue 26 item 4; docs/api-tokens.md): the owner's list, create (the secret shown once)
 * and revoke; company administrators' list and revoke of their users' tokens. Another user's or company's token
 * is not found.
 */
import {
  API_TOKEN_LIMITS,
  API_TOKEN_MAX_DAYS,
  API_TOKEN_PREFIX,
  API_TOKEN_TEXT,
  type ApiToken,
  type CompanyApiToken,
} from '@portal/contract/api-tokens';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { ApiTokensRepository } from './api-tokens.repository.ts';
import { hashTokenSecret } from './token-resolver.ts';

type Deps = Pick<ModuleDeps, 'audit' | 'clock' | 'random'> & { repo: ApiTokensRepository };
type Ctx = { scope: TenantScope; requestId: string };

const DAY_MS = 86_400_000;

interface Row {
  id: number;
  name: string;
  hint: string;
  scope: 'read' | 'act';
  teamIds: number[] | null;
  ipAllowList: string[];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  revokedAt: Date | null;
}

function toToken(row: Row, now: Date): ApiToken {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    scope: row.scope,
    teamIds: row.teamIds,
    ipAllowList: row.ipAllowList,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    lastUsedAt: row.lastUsedAt ? iso(row.lastUsedAt) : null,
    lastUsedIp: row.lastUsedIp,
    revokedAt: row.revokedAt ? iso(row.revokedAt) : null,
    state: row.revokedAt ? 'revoked' : row.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active',
  };
}

const toCompanyToken = (row: Row & { userId: number; userEmail: string }, now: Date): CompanyApiToken => ({
  ...toToken(row, now),
  userId: row.userId,
  userEmail: row.userEmail,
});

/** A plain address is stored as its one-address range. */
const normaliseRange = (entry: string) => (entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`);

export function createApiTokensService({ audit, clock, random, repo }: Deps) {
  function requireAdmin(scope: TenantScope) {
    if (!scope.isCompanyAdmin) throw new ForbiddenError('Only company administrators can do that');
  }
  async function revokeAudit(ctx: Ctx, row: Row & { userId: number }, byAdmin: boolean) {
    await audit.record({
      companyId: ctx.scope.companyId,
      actorUserId: ctx.scope.userId,
      action: 'user.apiToken.revoke',
      targetType: 'apiToken',
      targetId: row.id,
      before: { name: row.name, userId: row.userId, ...(byAdmin ? { byCompanyAdmin: true } : {}) },
      requestId: ctx.requestId,
    });
  }
  return {
    async list(scope: TenantScope): Promise<ApiToken[]> {
      const now = clock.now();
      return (await repo.listOwn(scope.userId)).map((r) => toToken(r, now));
    },

    async create(
      ctx: Ctx,
      input: {
        name: string;
        scope: 'read' | 'act';
        teamIds?: number[] | null | undefined;
        expiresAt: string;
        ipAllowList: string[];
      },
    ): Promise<{ token: string; apiToken: ApiToken }> {
      const now = clock.now();
      const expiresAt = new Date(input.expiresAt);
      if (expiresAt.getTime() <= now.getTime())
        throw new BadRequestError(API_TOKEN_TEXT.expiryPast, [
          { path: 'expiresAt', message: API_TOKEN_TEXT.expiryPast },
        ]);
      // A day's slack: a form's "one year" picked in another time zone is still one year.
      if (expiresAt.getTime() > now.getTime() + (API_TOKEN_MAX_DAYS + 1) * DAY_MS)
        throw new BadRequestError(API_TOKEN_TEXT.expiryTooFar, [
          { path: 'expiresAt', message: API_TOKEN_TEXT.expiryTooFar },
        ]);
      const teamIds = input.scope === 'act' && input.teamIds ? [...new Set(input.teamIds)].sort((a, b) => a - b) : null;
      if (teamIds) {
        const mine = await repo.memberTeams(ctx.scope.userId, teamIds);
        if (teamIds.some((id) => !mine.has(id)))
          throw new BadRequestError(API_TOKEN_TEXT.notYourTeam, [
            { path: 'teamIds', message: API_TOKEN_TEXT.notYourTeam },
          ]);
      }
      if ((await repo.liveCount(ctx.scope.userId, now)) >= API_TOKEN_LIMITS.liveTokensPerUser)
        throw new ConflictError(API_TOKEN_TEXT.tooManyTokens);
      const secret = `${API_TOKEN_PREFIX}${random.token(32)}`;
      const row = await repo.insert({
        userId: ctx.scope.userId,
        companyId: ctx.scope.companyId,
        name: input.name,
        tokenHash: hashTokenSecret(secret),
        hint: secret.slice(0, API_TOKEN_PREFIX.length + 6),
        scope: input.scope,
        teamIds,
        ipAllowList: [...new Set(input.ipAllowList.map(normaliseRange))],
        createdAt: now,
        expiresAt,
      });
      await audit.record({
        companyId: ctx.scope.companyId,
        actorUserId: ctx.scope.userId,
        action: 'user.apiToken.create',
        targetType: 'apiToken',
        targetId: row.id,
        after: { name: row.name, scope: row.scope, teamIds, expiresAt: iso(expiresAt), ipAllowList: row.ipAllowList },
        requestId: ctx.requestId,
      });
      return { token: secret, apiToken: toToken(row, now) };
    },

    async revoke(ctx: Ctx, id: number): Promise<ApiToken> {
      const row = await repo.findInCompany(ctx.scope.companyId, id);
      if (!row || row.userId !== ctx.scope.userId) throw new NotFoundError(API_TOKEN_TEXT.notFound);
      const now = clock.now();
      await repo.revoke({ id, userId: ctx.scope.userId, companyId: ctx.scope.companyId }, now);
      if (!row.revokedAt) await revokeAudit(ctx, row, false);
      return toToken({ ...row, revokedAt: row.revokedAt ?? now }, now);
    },

    async companyList(scope: TenantScope, userId?: number): Promise<CompanyApiToken[]> {
      requireAdmin(scope);
      const now = clock.now();
      return (await repo.listCompany(scope.companyId, userId)).map((r) => toCompanyToken(r, now));
    },

    async companyRevoke(ctx: Ctx, id: number): Promise<CompanyApiToken> {
      requireAdmin(ctx.scope);
      const row = await repo.findInCompany(ctx.scope.companyId, id);
      if (!row) throw new NotFoundError(API_TOKEN_TEXT.notFound);
      const now = clock.now();
      await repo.revoke({ id, companyId: ctx.scope.companyId }, now);
      if (!row.revokedAt) await revokeAudit(ctx, row, true);
      return toCompanyToken({ ...row, revokedAt: row.revokedAt ?? now }, now);
    },
  };
}
export type ApiTokensService = ReturnType<typeof createApiTokensService>;
