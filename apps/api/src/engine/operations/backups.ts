/**
 * The runner's side of backups (issue 24 item 2; docs/decisions/0021-backups.md): what a backup operation writes on
 * its vm_backups row once the driver answered, or once it failed for good. The service makes the row (state
 * 'creating') and marks it 'restoring' in the transaction that queues the operation.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { operationSchema } from '@portal/contract/vm-lifecycle';
import type { Db, Tx } from '../../db/client.ts';
import { vmBackups } from '../../db/schema.ts';
import { closeStoragePeriods, openStoragePeriod, resizeStoragePeriod } from '../../db/storage-periods.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import type { BackupDeleted, BackupInfo, ProviderDriver } from '../../providers/provider.ts';

/**
 * Backups' rows are deleted in `tx` at `at` (decision 0027): their storage periods end at that instant, and the backups
 * their driver merged them into (its delete's answer) take their new size on their rows and in billing from then on.
 * A merged backup's stored file is new (the base's data written into it), so what proved the old one does not prove it:
 * its verification is queued again (decision 0026), unless one is queued already. Its last proof stays shown meanwhile.
 */
export async function backupsDeleted(
  tx: Tx,
  ids: number[],
  at: Date,
  merged: { providerId: number; deleted: BackupDeleted | void }[] = [],
) {
  await closeStoragePeriods(tx, 'backup', ids, at);
  for (const { providerId, deleted } of merged)
    for (const child of deleted?.merged ?? []) {
      const [row] = await tx
        .update(vmBackups)
        .set({
          incremental: child.incremental,
          ...(child.sizeBytes !== null && { sizeBytes: child.sizeBytes }),
          verifyAttempts: sql`case when ${vmBackups.verifyAfter} is null then 0 else ${vmBackups.verifyAttempts} end`,
          verifyAfter: sql`coalesce(${vmBackups.verifyAfter}, ${at.toISOString()}::timestamptz)`,
        })
        .where(and(eq(vmBackups.providerId, providerId), eq(vmBackups.providerName, child.name)))
        .returning({ id: vmBackups.id });
      if (row && child.sizeBytes !== null) await resizeStoragePeriod(tx, 'backup', row.id, child.sizeBytes, at);
    }
}

export function createBackupRows(db: Db, clock: Clock = systemClock) {
  return {
    /**
     * The take succeeded: the backup is ready, with what the driver measured, and due for its verification (the
     * verifier's job on this row, beside the VM's operations: decision 0024; BACKUP_VERIFY=off leaves it due). Its
     * storage period opens in the same transaction, at its completion (decision 0027).
     */
    async taken(id: number, info: BackupInfo): Promise<boolean> {
      return db.transaction(async (tx) => {
        const done = await tx
          .update(vmBackups)
          .set({
            state: 'ready',
            sizeBytes: info.sizeBytes,
            incremental: info.incremental,
            consistency: info.consistency,
            error: null,
            completedAt: clock.now(),
            verifiedAt: null,
            verificationError: null,
            verificationNote: null,
            verifyAfter: clock.now(),
            verifyAttempts: 0,
          })
          // Only a take still under way: one ended meanwhile (interrupted, or deleted with its VM) stays as it is, and
          // the caller removes the copy nobody will see (decision 0025). False then.
          .where(and(eq(vmBackups.id, id), eq(vmBackups.state, 'creating')))
          .returning({ id: vmBackups.id, vmId: vmBackups.vmId, completedAt: vmBackups.completedAt });
        const row = done[0];
        if (!row) return false;
        if (row.vmId !== null && row.completedAt !== null)
          await openStoragePeriod(
            tx,
            { kind: 'backup', objectId: id, vmId: row.vmId, sizeBytes: info.sizeBytes ?? 0 },
            row.completedAt,
          );
        return true;
      });
    },
    /**
     * A queued take's turn came (decision 0025): 'queued' becomes 'creating' (a retry finds it 'creating' already).
     * False when the row is gone or ended meanwhile (deleted with its VM): nothing is to be taken.
     */
    async begin(id: number): Promise<boolean> {
      const rows = await db
        .update(vmBackups)
        .set({ state: 'creating', error: null })
        .where(and(eq(vmBackups.id, id), inArray(vmBackups.state, ['queued', 'creating'])))
        .returning({ id: vmBackups.id });
      return rows.length === 1;
    },
    /**
     * Takes left unfinished with no take operation under way (a process died between ending the operation and its row,
     * decision 0025): failed with `reason`, never left 'creating' for ever. Run when a runner starts. Answers how many.
     */
    async endOrphans(reason: string): Promise<number> {
      const rows = await db
        .update(vmBackups)
        .set({ state: 'failed', error: reason })
        .where(
          and(
            inArray(vmBackups.state, ['queued', 'creating']),
            sql`not exists (select 1 from operations o where o.kind = 'backup' and o.status in ('pending', 'running')
              and (o.payload->>'backupId')::int = ${vmBackups.id})`,
          ),
        )
        .returning({ id: vmBackups.id });
      return rows.length;
    },
    /** A restore succeeded: the backup is still there, ready for another. */
    async restored(id: number) {
      await db.update(vmBackups).set({ state: 'ready', error: null }).where(eq(vmBackups.id, id));
    },
    /**
     * A VM is deleted. Its backups are kept (vm_id null: the company's list still shows them, a restore as a new VM
     * reads them) or deleted with it, at the driver first (a backup already gone is no error), then their rows.
     */
    async onVmDeleted(vmId: number, keep: boolean, driver: ProviderDriver) {
      // Newest first: a backup goes before the one it is made over, so no merge is made only to be deleted.
      const rows = await db
        .select()
        .from(vmBackups)
        .where(eq(vmBackups.vmId, vmId))
        .orderBy(sql`${vmBackups.id} desc`);
      if (keep) {
        // A take that never finished is no backup to keep.
        const unfinished = rows.filter((r) => r.state === 'queued' || r.state === 'creating' || r.state === 'failed');
        for (const r of unfinished) await driver.backupDelete?.(r.providerName);
        await db.transaction(async (tx) => {
          if (unfinished.length)
            await tx.delete(vmBackups).where(
              inArray(
                vmBackups.id,
                unfinished.map((r) => r.id),
              ),
            );
          await backupsDeleted(
            tx,
            unfinished.map((r) => r.id),
            clock.now(),
          );
          await tx.update(vmBackups).set({ vmId: null }).where(eq(vmBackups.vmId, vmId));
        });
        return;
      }
      for (const r of rows) await driver.backupDelete?.(r.providerName);
      // Their storage ends with their rows, in one transaction (decision 0027).
      await db.transaction(async (tx) => {
        await tx.delete(vmBackups).where(eq(vmBackups.vmId, vmId));
        await backupsDeleted(
          tx,
          rows.map((r) => r.id),
          clock.now(),
        );
      });
    },
    /**
     * A backup operation failed for good: a take leaves a 'failed' row with the reason (the customer deletes it; it
     * does not count against the limit); a restore leaves the backup ready as it was, with the reason.
     */
    async failed(row: { kind: string; payload: unknown }, reason: string) {
      const parsed = operationSchema.safeParse({ kind: row.kind, payload: row.payload });
      if (!parsed.success) return;
      const operation = parsed.data;
      if (operation.kind === 'create' && operation.payload.fromBackup) {
        await db
          .update(vmBackups)
          .set({ state: 'ready' })
          .where(and(eq(vmBackups.id, operation.payload.fromBackup.backupId), eq(vmBackups.state, 'restoring')));
        return;
      }
      if (operation.kind !== 'backup' && operation.kind !== 'backupRestore') return;
      // A take's row only while it is unfinished: a take that ended ready (its operation's outcome lost) stays ready.
      await db
        .update(vmBackups)
        .set({ state: operation.kind === 'backup' ? 'failed' : 'ready', error: reason })
        .where(
          and(
            eq(vmBackups.id, operation.payload.backupId),
            operation.kind === 'backup' ? inArray(vmBackups.state, ['queued', 'creating']) : undefined,
          ),
        );
    },
  };
}
export type BackupRows = ReturnType<typeof createBackupRows>;
