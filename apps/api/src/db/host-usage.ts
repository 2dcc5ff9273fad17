/**
 * What each host's live (not deleted) VMs take: their count and the CPUs, RAM and disk of their sizes. One
 * definition for the reseller's and the operator's host lists and for placement, so the numbers staff see are
 * the numbers placement decides with. A VM on its way to a host (a draining host's move, queued or running:
 * engine/drain) counts on that host too, from the moment it is queued: its room there is held while its disk copies.
 * A VM with an upgrade queued or running counts at its new size (issue 23 item 3: the upgrade's room is checked on its
 * host when queued, engine/placement.ts refuseGrowthWithoutRoom; upgrades only grow), so two upgrades at once on one
 * host do not both take the last room.
 */
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import type { Db, Tx } from './client.ts';
import { configurations, operations, virtualMachines } from './schema.ts';

export interface HostUsage {
  vms: number;
  cpu: number;
  ram: number;
  disk: number;
}

export const NO_USAGE: HostUsage = { vms: 0, cpu: 0, ram: 0, disk: 0 };

/** The grouped query (one row per host with VMs); `hostIds` narrows it to those hosts. */
export function hostUsageQuery(db: Db | Tx, hostIds?: number[]) {
  // At most one active operation per VM (operations_one_active_per_vm): the join adds no rows.
  const upgradeTo = sql<number>`(${operations.payload}->>'configurationId')::int`;
  const placed = db
    .select({
      hostId: sql<number>`${virtualMachines.hostId}`.as('host_id'),
      size: sql<number>`coalesce(${upgradeTo}, ${virtualMachines.configurationId})`.as('size'),
    })
    .from(virtualMachines)
    .leftJoin(
      operations,
      and(
        eq(operations.vmId, virtualMachines.id),
        eq(operations.kind, 'resize'),
        inArray(operations.status, ['pending', 'running']),
      ),
    )
    .where(
      and(
        isNull(virtualMachines.deletedAt),
        hostIds ? inArray(virtualMachines.hostId, hostIds) : isNotNull(virtualMachines.hostId),
      ),
    );
  // Active operations are few (operations_due_idx leads with the status).
  const toHost = sql<number>`(${operations.payload}->>'toHostId')::int`;
  const arriving = db
    .select({ hostId: toHost.as('host_id'), size: virtualMachines.configurationId })
    .from(operations)
    .innerJoin(virtualMachines, eq(virtualMachines.id, operations.vmId))
    .where(
      and(
        inArray(operations.status, ['pending', 'running']),
        eq(operations.kind, 'move'),
        isNull(virtualMachines.deletedAt),
        hostIds ? inArray(toHost, hostIds) : undefined,
      ),
    );
  const onHost = unionAll(placed, arriving).as('on_host');
  return db
    .select({
      hostId: onHost.hostId,
      vms: sql<number>`count(*)::int`.as('vms'),
      cpu: sql<number>`coalesce(sum(${configurations.cpu}), 0)::int`.as('cpu'),
      ram: sql<number>`coalesce(sum(${configurations.ram}), 0)::int`.as('ram'),
      disk: sql<number>`coalesce(sum(${configurations.disk}), 0)::int`.as('disk'),
    })
    .from(onHost)
    .innerJoin(configurations, eq(configurations.id, onHost.size))
    .groupBy(onHost.hostId);
}

/** Usage per host id for the given hosts (hosts without VMs get NO_USAGE). */
export async function hostUsageOf(db: Db | Tx, hostIds: number[]): Promise<Map<number, HostUsage>> {
  const rows = hostIds.length ? await hostUsageQuery(db, hostIds) : [];
  const byHost = new Map(hostIds.map((id) => [id, NO_USAGE]));
  for (const r of rows)
    byHost.set(r.hostId!, { vms: Number(r.vms), cpu: Number(r.cpu), ram: Number(r.ram), disk: Number(r.disk) });
  return byHost;
}
