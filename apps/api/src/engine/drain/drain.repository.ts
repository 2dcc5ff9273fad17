/**
 * SQL of draining (docs/draining.md): the draining hosts, whether one already has a move under way, the next
 * machine to move off it, and the machine-less VMs it lets go of. Active operations are few and found through
 * operations_due_idx (status first); a VM's failed moves through operations_failed_vm_idx.
 */
import { and, asc, eq, isNotNull, isNull, sql } from 'drizzle-orm';
import { VM_STEADY_STATUSES } from '@portal/contract/vm-lifecycle';
import type { Db, Tx } from '../../db/client.ts';
import { configurations, hosts, providers, virtualMachines } from '../../db/schema.ts';

export type DrainHost = typeof hosts.$inferSelect;

/** The VM has no unfinished operation. */
const noActiveOperation = sql`not exists (select 1 from operations o where o.vm_id = ${virtualMachines.id} and o.status in ('pending', 'running'))`;

export function createDrainRepository(db: Db) {
  return {
    /** Hosts set to draining, with their provider. */
    draining: () =>
      db
        .select({ host: hosts, provider: providers })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(hosts.draining, true))
        .orderBy(asc(hosts.id)),

    /** A host by id with its provider (the runner's move step reads its target). */
    async hostById(id: number) {
      const [row] = await db
        .select({ host: hosts, provider: providers })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(hosts.id, id));
      return row ?? null;
    },

    /** Locks the host row for the transaction (two instances' drainers take turns per host); false when it is gone. */
    async lockHost(tx: Tx, hostId: number): Promise<DrainHost | null> {
      const [row] = await tx.select().from(hosts).where(eq(hosts.id, hostId)).for('update');
      return row ?? null;
    },

    /** Whether a move off this host is queued or running (one at a time per draining host). */
    async moveUnderWay(tx: Db | Tx, hostId: number): Promise<boolean> {
      const res = await tx.execute(sql`select 1 from operations
        where status in ('pending', 'running') and kind = 'move' and (payload->>'fromHostId')::int = ${hostId} limit 1`);
      return res.rows.length > 0;
    },

    /**
     * The host's machines that may move now, in id order: live, made (a provider ref), resting, with no operation
     * under way, and whose last failed move (if any) ended before `retryAfter`.
     */
    movable: (tx: Db | Tx, hostId: number, retryAfter: Date, limit: number) =>
      tx
        .select({ vm: virtualMachines, config: configurations })
        .from(virtualMachines)
        .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
        .where(
          and(
            eq(virtualMachines.hostId, hostId),
            isNull(virtualMachines.deletedAt),
            isNotNull(virtualMachines.providerRef),
            sql`${virtualMachines.status} in (${sql.join(
              VM_STEADY_STATUSES.map((s) => sql`${s}`),
              sql`, `,
            )})`,
            noActiveOperation,
            sql`not exists (select 1 from operations f where f.vm_id = ${virtualMachines.id} and f.status = 'failed'
              and f.kind = 'move' and f.finished_at > ${retryAfter.toISOString()}::timestamptz)`,
          ),
        )
        .orderBy(asc(virtualMachines.id))
        .limit(limit),

    /**
     * Lets go of the host's VMs that have no machine and never will (a create that failed for good: Error, no
     * provider ref, nothing under way): they hold no room anywhere and only deleting them is left. Answers how many.
     */
    async releaseMachineless(hostId: number): Promise<number> {
      const rows = await db
        .update(virtualMachines)
        .set({ hostId: null })
        .where(
          and(
            eq(virtualMachines.hostId, hostId),
            isNull(virtualMachines.deletedAt),
            isNull(virtualMachines.providerRef),
            eq(virtualMachines.status, 'Error'),
            noActiveOperation,
          ),
        )
        .returning({ id: virtualMachines.id });
      return rows.length;
    },
  };
}
export type DrainRepository = ReturnType<typeof createDrainRepository>;
