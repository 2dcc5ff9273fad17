/**
 * The runner's side of snapshots (issue 24 item 1; docs/decisions/0019-snapshots.md): what a snapshot operation
 * writes on its vm_snapshots row once the driver answered, or once it failed for good. The service makes the row
 * (state 'creating') and marks it 'reverting' or 'deleting' in the transaction that queues the operation.
 */
import { eq } from 'drizzle-orm';
import { operationSchema } from '@portal/contract/vm-lifecycle';
import type { Db } from '../../db/client.ts';
import { vmSnapshots } from '../../db/schema.ts';
import { closeStoragePeriods, openStoragePeriod } from '../../db/storage-periods.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import type { SnapshotInfo } from '../../providers/provider.ts';

/**
 * Storage billing (issue 24 item 4): a snapshot's storage period opens in the transaction that makes it ready and
 * closes in the one that deletes its row (db/storage-periods.ts), at the injected clock's time.
 */
export function createSnapshotRows(db: Db, clock: Clock = systemClock) {
  return {
    /** The take succeeded: the snapshot is ready, with what the driver measured; it is billed from now. */
    async taken(id: number, info: SnapshotInfo) {
      await db.transaction(async (tx) => {
        const [row] = await tx
          .update(vmSnapshots)
          .set({ state: 'ready', sizeBytes: info.sizeBytes, includesMemory: info.includesMemory, error: null })
          .where(eq(vmSnapshots.id, id))
          .returning({ vmId: vmSnapshots.vmId });
        if (row)
          await openStoragePeriod(
            tx,
            { kind: 'snapshot', objectId: id, vmId: row.vmId, sizeBytes: info.sizeBytes ?? 0 },
            clock.now(),
          );
      });
    },
    /** A revert succeeded: the snapshot is still there, ready for another. */
    async reverted(id: number) {
      await db.update(vmSnapshots).set({ state: 'ready', error: null }).where(eq(vmSnapshots.id, id));
    },
    async deleted(id: number) {
      await db.transaction(async (tx) => {
        await tx.delete(vmSnapshots).where(eq(vmSnapshots.id, id));
        await closeStoragePeriods(tx, 'snapshot', [id], clock.now());
      });
    },
    /** A VM's disk is gone or made anew (delete, rebuild): so are its snapshots, and their billing stops. */
    async dropAll(vmId: number) {
      await db.transaction(async (tx) => {
        const gone = await tx.delete(vmSnapshots).where(eq(vmSnapshots.vmId, vmId)).returning({ id: vmSnapshots.id });
        await closeStoragePeriods(
          tx,
          'snapshot',
          gone.map((g) => g.id),
          clock.now(),
        );
      });
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
