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

export function createAudit(db: Db): Audit {
  return {
    async record(entry, tx) {
      await (tx ?? db).insert(auditLog).values({
        companyId: entry.companyId,
        actorUserId: entry.actorUserId,
        action: entry.action,
        targetType: entry.targetType,
        targetId: entry.targetId === null ? null : String(entry.targetId),
        before: entry.before ?? null,
        after: entry.after ?? null,
        requestId: entry.requestId ?? null,
      });
    },
  };
}
