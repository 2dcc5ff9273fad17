/**
 * The runner's side of snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md): what a snapshot operation
 * writes on its vm_snapshots row once the driver answered, or once it failed for good. The service makes the row
 * (state 'creating') and marks it 'reverting' or 'deleting' in the transaction that queues the operation.
 */
import { eq } from 'drizzle-orm';
import { operationSchema } from '@portal/contract/vm-lifecycle';
import type { Db } from '../../db/client.ts';
import { vmSnapshots } from '../../db/schema.ts';
import type { SnapshotInfo } from '../../providers/provider.ts';

export function createSnapshotRows(db: Db) {
  return {
    /** The take succeeded: the snapshot is ready, with what the driver measured. */
    async taken(id: number, info: SnapshotInfo) {
      await db
        .update(vmSnapshots)
        .set({ state: 'ready', sizeBytes: info.sizeBytes, includesMemory: info.includesMemory, error: null })
        .where(eq(vmSnapshots.id, id));
    },
    /** A revert succeeded: the snapshot is still there, ready for another. */
    async reverted(id: number) {
      await db.update(vmSnapshots).set({ state: 'ready', error: null }).where(eq(vmSnapshots.id, id));
    },
    async deleted(id: number) {
      await db.delete(vmSnapshots).where(eq(vmSnapshots.id, id));
    },
    /** A VM's disk is gone or made anew (delete, rebuild): so are its snapshots. */
    async dropAll(vmId: number) {
      await db.delete(vmSnapshots).where(eq(vmSnapshots.vmId, vmId));
    },
    /**
     * A snapshot operation failed for good: a take leaves a 'failed' row with the reason (the customer deletes it);
     * a revert or a delete leaves the snapshot ready as it was, with the reason of the failure.
     */
    async failed(row: { kind: string; payload: unknown }, reason: string) {
      const parsed = operationSchema.safeParse({ kind: row.kind, payload: row.payload });
      if (!parsed.success) return;
      const operation = parsed.data;
      if (operation.kind !== 'snapshot' && operation.kind !== 'snapshotRevert' && operation.kind !== 'snapshotDelete')
        return;
      await db
        .update(vmSnapshots)
        .set({ state: operation.kind === 'snapshot' ? 'failed' : 'ready', error: reason })
        .where(eq(vmSnapshots.id, operation.payload.snapshotId));
    },
  };
}
export type SnapshotRows = ReturnType<typeof createSnapshotRows>;
