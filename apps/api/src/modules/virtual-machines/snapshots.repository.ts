/** SQL of a VM's snapshots (issue 24 item 1): the list, the per-VM limit from the reseller's catalog, the rows' states. */
import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { SNAPSHOTS } from '@portal/contract/constants';
import type { SnapshotState } from '@portal/contract/snapshots';
import type { Db, Tx } from '../../db/client.ts';
import { configurationPrices, vmSnapshots } from '../../db/schema.ts';

export type SnapshotRow = typeof vmSnapshots.$inferSelect;

export function createSnapshotRepository(db: Db) {
  return {
    /** A VM's snapshots, newest first. */
    list: (vmId: number) =>
      db
        .select()
        .from(vmSnapshots)
        .where(eq(vmSnapshots.vmId, vmId))
        .orderBy(desc(vmSnapshots.createdAt), desc(vmSnapshots.id)),
    /** One snapshot of this VM (another VM's id answers nothing). */
    async byId(vmId: number, id: number): Promise<SnapshotRow | undefined> {
      const [row] = await db
        .select()
        .from(vmSnapshots)
        .where(and(eq(vmSnapshots.vmId, vmId), eq(vmSnapshots.id, id)))
        .limit(1);
      return row;
    },
    /** How many snapshots a VM of this size may keep: the reseller's catalog row, or the default. */
    async limit(resellerId: number, configurationId: number): Promise<number> {
      const [row] = await db
        .select({ limit: configurationPrices.snapshotLimit })
        .from(configurationPrices)
        .where(
          and(eq(configurationPrices.resellerId, resellerId), eq(configurationPrices.configurationId, configurationId)),
        )
        .limit(1);
      return row?.limit ?? SNAPSHOTS.defaultPerVm;
    },
    /** The snapshots that count against the limit: all but failed takes. */
    async counted(tx: Tx, vmId: number): Promise<number> {
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(vmSnapshots)
        .where(and(eq(vmSnapshots.vmId, vmId), ne(vmSnapshots.state, 'failed')));
      return row?.n ?? 0;
    },
    async nameTaken(tx: Tx, vmId: number, name: string): Promise<boolean> {
      const [row] = await tx
        .select({ id: vmSnapshots.id })
        .from(vmSnapshots)
        .where(and(eq(vmSnapshots.vmId, vmId), eq(vmSnapshots.name, name)))
        .limit(1);
      return !!row;
    },
    /** The next snapshot id, taken before the row is written: the operation's payload names it. */
    async nextId(): Promise<number> {
      const res = await db.execute<{ id: number }>(
        sql`select nextval(pg_get_serial_sequence('vm_snapshots', 'id'))::int as id`,
      );
      return Number(res.rows[0]!.id);
    },
    async insert(
      tx: Tx,
      row: { id: number; vmId: number; name: string; providerName: string; configurationId: number },
    ) {
      await tx.insert(vmSnapshots).values({ ...row, state: 'creating' });
    },
    /** Moves a snapshot from one of `from` to `to`; false when it was in none of them (another request was first). */
    async setState(tx: Tx, id: number, from: readonly SnapshotState[], to: SnapshotState): Promise<boolean> {
      const done = await tx
        .update(vmSnapshots)
        .set({ state: to, error: null })
        .where(and(eq(vmSnapshots.id, id), inArray(vmSnapshots.state, [...from])))
        .returning({ id: vmSnapshots.id });
      return done.length === 1;
    },
  };
}
export type SnapshotRepository = ReturnType<typeof createSnapshotRepository>;
