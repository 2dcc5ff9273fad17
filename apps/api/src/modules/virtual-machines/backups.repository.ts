/** SQL of backups (issue 24 item 2): a VM's list, the company's, the per-VM limit from the reseller's catalog, states. */
import { and, desc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import { BACKUPS } from '@portal/contract/constants';
import type { BackupState } from '@portal/contract/backups';
import type { Db, Tx } from '../../db/client.ts';
import { companies, configurationPrices, providers, vmBackups, virtualMachines } from '../../db/schema.ts';
import { vmVisibleTo } from '../access/vm-visibility.ts';
import type { TenantScope } from '../../lib/auth-context.ts';

export type BackupRow = typeof vmBackups.$inferSelect;

export function createBackupRepository(db: Db) {
  return {
    /** A VM's backups, newest first. */
    list: (vmId: number) =>
      db
        .select()
        .from(vmBackups)
        .where(eq(vmBackups.vmId, vmId))
        .orderBy(desc(vmBackups.createdAt), desc(vmBackups.id)),
    /**
     * The company's backups the caller may see, newest first: those of the VMs they see, and those kept after their
     * VM was deleted, seen by the VM's team at the take (the visibility rule of VMs on the backup's owner).
     */
    async listForCompany(scope: TenantScope): Promise<BackupRow[]> {
      const rows = await db
        .select({ backup: vmBackups })
        .from(vmBackups)
        .leftJoin(virtualMachines, eq(virtualMachines.id, vmBackups.vmId))
        .where(
          vmVisibleTo(scope, {
            companyId: vmBackups.companyId,
            teamId: sql`coalesce(${virtualMachines.teamId}, ${vmBackups.teamId})`,
            createdByUserId: virtualMachines.createdByUserId,
          }),
        )
        .orderBy(desc(vmBackups.createdAt), desc(vmBackups.id))
        .limit(1000);
      return rows.map((r) => r.backup);
    },
    /** One backup of this VM (another VM's id answers nothing). */
    async byVm(vmId: number, id: number): Promise<BackupRow | undefined> {
      const [row] = await db
        .select()
        .from(vmBackups)
        .where(and(eq(vmBackups.vmId, vmId), eq(vmBackups.id, id)))
        .limit(1);
      return row;
    },
    /** One backup of this company, whatever its VM (another company's id answers nothing). */
    async byCompany(companyId: number, id: number): Promise<BackupRow | undefined> {
      const [row] = await db
        .select()
        .from(vmBackups)
        .where(and(eq(vmBackups.companyId, companyId), eq(vmBackups.id, id)))
        .limit(1);
      return row;
    },
    async provider(id: number) {
      const [row] = await db.select().from(providers).where(eq(providers.id, id)).limit(1);
      return row;
    },
    /** How many backups a VM of this size may keep: the reseller's catalog row, or the default. */
    async limit(resellerId: number, configurationId: number): Promise<number> {
      const [row] = await db
        .select({ limit: configurationPrices.backupLimit })
        .from(configurationPrices)
        .where(
          and(eq(configurationPrices.resellerId, resellerId), eq(configurationPrices.configurationId, configurationId)),
        )
        .limit(1);
      return row?.limit ?? BACKUPS.defaultPerVm;
    },
    /** The backups that count against the limit: all but failed takes. */
    async counted(tx: Tx, vmId: number): Promise<number> {
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(vmBackups)
        .where(and(eq(vmBackups.vmId, vmId), ne(vmBackups.state, 'failed')));
      return row?.n ?? 0;
    },
    /** The next backup id, taken before the row is written: the operation's payload names it. */
    async nextId(): Promise<number> {
      const res = await db.execute<{ id: number }>(
        sql`select nextval(pg_get_serial_sequence('vm_backups', 'id'))::int as id`,
      );
      return Number(res.rows[0]!.id);
    },
    /** A take's row: queued until the runner gives it its turn on the host (decision 0025). */
    async insert(tx: Tx, row: typeof vmBackups.$inferInsert) {
      await tx.insert(vmBackups).values({ ...row, state: 'queued' });
    },
    /** Moves a backup from one of `from` to `to`; false when it was in none of them (another request was first). */
    async setState(tx: Tx | Db, id: number, from: readonly BackupState[], to: BackupState): Promise<boolean> {
      const done = await tx
        .update(vmBackups)
        .set({ state: to, error: null })
        .where(and(eq(vmBackups.id, id), inArray(vmBackups.state, [...from])))
        .returning({ id: vmBackups.id });
      return done.length === 1;
    },
    /** A delete that failed: the backup is back in the state it had, with the reason. */
    async setError(id: number, error: string, state: BackupState) {
      await db.update(vmBackups).set({ state, error }).where(eq(vmBackups.id, id));
    },
    /**
     * Queues a ready backup's verification again (Verify now, decision 0026), as its take's end does: due now, its
     * attempts counted afresh; the last outcome stays shown until the new one. False when it is not ready or one is
     * already queued or running (never two verifications of a backup at once).
     */
    async queueVerification(tx: Tx, id: number, now: Date): Promise<boolean> {
      const done = await tx
        .update(vmBackups)
        .set({ verifyAfter: now, verifyAttempts: 0, verifyLockedUntil: null })
        .where(and(eq(vmBackups.id, id), eq(vmBackups.state, 'ready'), isNull(vmBackups.verifyAfter)))
        .returning({ id: vmBackups.id });
      return done.length === 1;
    },
    async companySuspended(companyId: number): Promise<boolean> {
      const [row] = await db
        .select({ at: companies.suspendedAt })
        .from(companies)
        .where(eq(companies.id, companyId))
        .limit(1);
      return row?.at != null;
    },
    async remove(tx: Tx | Db, id: number) {
      await tx.delete(vmBackups).where(eq(vmBackups.id, id));
    },
  };
}
export type BackupRepository = ReturnType<typeof createBackupRepository>;
