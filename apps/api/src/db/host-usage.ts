/**
 * What each host's live (not deleted) VMs take: their count and the CPUs, RAM and disk of their sizes. One
 * definition for the reseller's and the operator's host lists and for placement, so the numbers staff see are
 * the numbers placement decides with.
 */
import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from './client.ts';
import { configurations, virtualMachines } from './schema.ts';

export interface HostUsage {
  vms: number;
  cpu: number;
  ram: number;
  disk: number;
}

export const NO_USAGE: HostUsage = { vms: 0, cpu: 0, ram: 0, disk: 0 };

/** The grouped query (one row per host with VMs); `hostIds` narrows it to those hosts. */
export function hostUsageQuery(db: Db | Tx, hostIds?: number[]) {
  return db
    .select({
      hostId: virtualMachines.hostId,
      vms: sql<number>`count(*)::int`.as('vms'),
      cpu: sql<number>`coalesce(sum(${configurations.cpu}), 0)::int`.as('cpu'),
      ram: sql<number>`coalesce(sum(${configurations.ram}), 0)::int`.as('ram'),
      disk: sql<number>`coalesce(sum(${configurations.disk}), 0)::int`.as('disk'),
    })
    .from(virtualMachines)
    .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
    .where(
      and(
        isNull(virtualMachines.deletedAt),
        hostIds ? inArray(virtualMachines.hostId, hostIds) : isNotNull(virtualMachines.hostId),
      ),
    )
    .groupBy(virtualMachines.hostId);
}

/** Usage per host id for the given hosts (hosts without VMs get NO_USAGE). */
export async function hostUsageOf(db: Db | Tx, hostIds: number[]): Promise<Map<number, HostUsage>> {
  const rows = hostIds.length ? await hostUsageQuery(db, hostIds) : [];
  const byHost = new Map(hostIds.map((id) => [id, NO_USAGE]));
  for (const r of rows)
    byHost.set(r.hostId!, { vms: Number(r.vms), cpu: Number(r.cpu), ram: Number(r.ram), disk: Number(r.disk) });
  return byHost;
}
