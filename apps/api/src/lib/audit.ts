/** The audit log: who did what to which record, with before/after where useful. */
import type { Db, Tx } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

export interface AuditEntry {
  companyId: number | null;
  actorUserId: number | null;
  /** e.g. 'team.create', 'user.delete', 'vm.start' */
  action: string;
  targetType: string;
  targetId: string | number | null;
  before?: unknown;
  after?: unknown;
  requestId?: string;
}

export interface Audit {
  record(entry: AuditEntry, tx?: Tx): Promise<void>;
}

/**
 * The personal API token acting in each request being served (request ids are UUIDs): every entry recorded with
 * that request's id names the token (docs/api-tokens.md). Set and cleared by the session plugin.
 */
const tokenOfRequest = new Map<string, { id: number; name: string }>();
export const requestTokens = {
  set(requestId: string, token: { id: number; name: string }): void {
    tokenOfRequest.set(requestId, token);
  },
  clear(requestId: string): void {
    tokenOfRequest.delete(requestId);
  },
};

export function createAudit(db: Db): Audit {
  return {
    async record(entry, tx) {
      const token = entry.requestId ? tokenOfRequest.get(entry.requestId) : undefined;
      await (tx ?? db).insert(auditLog).values({
        companyId: entry.companyId,
        actorUserId: entry.actorUserId,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId === null ? null : String(entry.targetId),
        before: entry.before ?? null,
        after: entry.after ?? null,
        requestId: entry.requestId ?? null,
        ...(token ? { actorTokenId: token.id, actorTokenName: token.name } : {}),
      });
    },
  };
}
