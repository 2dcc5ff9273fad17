/**
 * SQL of backup schedules (decision 0023): a VM's schedule, the due ones with what a pass needs of their VM and
 * company, the claim of a slot (UPDATE ... WHERE next_run_at = the value read: of two API processes one wins), the
 * follow-up of a queued take, and the scheduled backups retention may delete.
 */
import { and, asc, desc, eq, inArray, isNull, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { companies, operations, virtualMachines, vmBackups, vmBackupSchedules } from '../../db/schema.ts';

export type BackupScheduleRow = typeof vmBackupSchedules.$inferSelect;
export type BackupScheduleFields = Pick<BackupScheduleRow, 'frequency' | 'weekday' | 'hour' | 'keep' | 'nextRunAt'>;

export function createBackupScheduleRepository(db: Db) {
  return {
    async byVm(vmId: number): Promise<BackupScheduleRow | undefined> {
      const [row] = await db.select().from(vmBackupSchedules).where(eq(vmBackupSchedules.vmId, vmId)).limit(1);
      return row;
    },
    /** Sets the VM's schedule (a new rule starts afresh: no error of the old one, its pending take still followed). */
    async upsert(vmId: number, fields: BackupScheduleFields, now: Date): Promise<BackupScheduleRow> {
      const [row] = await db
        .insert(vmBackupSchedules)
        .values({ vmId, ...fields, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: vmBackupSchedules.vmId,
          set: { ...fields, lastError: null, updatedAt: now },
        })
        .returning();
      return row!;
    },
    async remove(vmId: number): Promise<boolean> {
      const gone = await db
        .delete(vmBackupSchedules)
        .where(eq(vmBackupSchedules.vmId, vmId))
        .returning({ vmId: vmBackupSchedules.vmId });
      return gone.length === 1;
    },
    /** Schedules of deleted VMs (VMs are soft-deleted, so the foreign key's cascade does not see them). */
    async removeOfDeletedVms(): Promise<number> {
      const gone = await db
        .delete(vmBackupSchedules)
        // From the schedules' side (few rows), each VM by its key: not a scan of every deleted VM.
        .where(
          sql`exists (select 1 from ${virtualMachines} where ${virtualMachines.id} = ${vmBackupSchedules.vmId}
            and ${virtualMachines.deletedAt} is not null)`,
        )
        .returning({ vmId: vmBackupSchedules.vmId });
      return gone.length;
    },
    /** Due schedules of live VMs, oldest slot first, with their VM, whether its company is suspended, whether it is being deleted. */
    async due(now: Date, limit: number) {
      return db
        .select({
          schedule: vmBackupSchedules,
          vm: virtualMachines,
          resellerId: companies.resellerId,
          suspended: sql<boolean>`${companies.suspendedAt} is not null`,
          deleting: sql<boolean>`exists (select 1 from ${operations} where ${operations.vmId} = ${virtualMachines.id}
            and ${operations.kind} = 'delete' and ${operations.status} in ('pending', 'running'))`,
        })
        .from(vmBackupSchedules)
        .innerJoin(virtualMachines, eq(virtualMachines.id, vmBackupSchedules.vmId))
        .innerJoin(companies, eq(companies.id, virtualMachines.companyId))
        .where(and(lte(vmBackupSchedules.nextRunAt, now), isNull(virtualMachines.deletedAt)))
        .orderBy(asc(vmBackupSchedules.nextRunAt), asc(vmBackupSchedules.vmId))
        .limit(limit);
    },
    /**
     * Claims the slot read as `read` by moving next_run_at on to `next`: true for the one process whose UPDATE still
     * finds `read` there (a second one finds `next` and gets nothing).
     */
    async claim(vmId: number, read: Date, next: Date, now: Date): Promise<boolean> {
      const done = await db
        .update(vmBackupSchedules)
        .set({ nextRunAt: next, lastRunAt: now, updatedAt: now })
        .where(and(eq(vmBackupSchedules.vmId, vmId), eq(vmBackupSchedules.nextRunAt, read)))
        .returning({ vmId: vmBackupSchedules.vmId });
      return done.length === 1;
    },
    /**
     * Moves a due slot on without a take: a suspended company's (its schedules stop; no catch-up after a resume), a VM
     * being deleted.
     */
    async skip(vmId: number, read: Date, next: Date, now: Date): Promise<boolean> {
      const done = await db
        .update(vmBackupSchedules)
        .set({ nextRunAt: next, updatedAt: now })
        .where(and(eq(vmBackupSchedules.vmId, vmId), eq(vmBackupSchedules.nextRunAt, read)))
        .returning({ vmId: vmBackupSchedules.vmId });
      return done.length === 1;
    },
    /** The slot's outcome: the take queued (followed until it ends) or why it was refused. */
    async queued(vmId: number, backupId: number) {
      await db.update(vmBackupSchedules).set({ pendingBackupId: backupId }).where(eq(vmBackupSchedules.vmId, vmId));
    },
    async failed(vmId: number, error: string) {
      await db.update(vmBackupSchedules).set({ lastError: error }).where(eq(vmBackupSchedules.vmId, vmId));
    },
    /** Schedules whose queued take has ended (ready or failed), with that backup. */
    async ended() {
      return db
        .select({ schedule: vmBackupSchedules, backup: vmBackups })
        .from(vmBackupSchedules)
        .innerJoin(vmBackups, eq(vmBackups.id, vmBackupSchedules.pendingBackupId))
        .where(inArray(vmBackups.state, ['ready', 'failed']))
        .limit(500);
    },
    /** Claims the follow-up of an ended take (one process does its retention) and records its outcome. */
    async settle(vmId: number, backupId: number, error: string | null): Promise<boolean> {
      const done = await db
        .update(vmBackupSchedules)
        .set({ pendingBackupId: null, lastError: error })
        .where(and(eq(vmBackupSchedules.vmId, vmId), eq(vmBackupSchedules.pendingBackupId, backupId)))
        .returning({ vmId: vmBackupSchedules.vmId });
      return done.length === 1;
    },
    /** The VM's scheduled backups, newest first (what retention may delete). */
    scheduledBackups: (vmId: number) =>
      db
        .select()
        .from(vmBackups)
        .where(and(eq(vmBackups.vmId, vmId), eq(vmBackups.scheduled, true)))
        .orderBy(desc(vmBackups.createdAt), desc(vmBackups.id)),
  };
}
export type BackupScheduleRepository = ReturnType<typeof createBackupScheduleRepository>;
