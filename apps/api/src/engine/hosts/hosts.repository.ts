/**
 * Every host query: the hosts service (operator CLI, imports, the reseller area's host management), the host
 * monitor, placement and the reseller area's catalog read hosts here, so a host is read and written one way.
 * Host lists carry what each host's live VMs take (db/host-usage.ts, the numbers placement decides with).
 * A query that must see the caller's transaction (placement's locks, removal) takes it as its first argument.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { hostUsageOf, hostUsageQuery } from '../../db/host-usage.ts';
import { hosts, providers, publicAddresses, regions, virtualMachines } from '../../db/schema.ts';

export type HostRow = typeof hosts.$inferSelect;
export type HostValues = typeof hosts.$inferInsert;
export type HostProviderRow = typeof providers.$inferSelect;

/** A host with what its live VMs take (placement's view of it). */
export interface HostLoad {
  host: HostRow;
  used: { cpu: number; ram: number; disk: number };
}

/**
 * The provider's hosts in the region with what their live VMs take, locked for the caller's transaction
 * (placement: a VM placed meanwhile on another connection waits, so capacity is never oversold).
 */
export async function hostLoadsForUpdate(tx: Tx, providerId: number, regionId: number): Promise<HostLoad[]> {
  const rows = await tx
    .select()
    .from(hosts)
    .where(and(eq(hosts.providerId, providerId), eq(hosts.regionId, regionId)))
    .orderBy(hosts.id)
    .for('update');
  if (rows.length === 0) return [];
  const byHost = await hostUsageOf(
    tx,
    rows.map((h) => h.id),
  );
  return rows.map((host) => {
    const { cpu, ram, disk } = byHost.get(host.id)!;
    return { host, used: { cpu, ram, disk } };
  });
}

/**
 * The hosts of these providers in the region with what their live VMs take, by provider, read without locks: the
 * create form's "can this size be placed now" (vm.service regionConfigurations), which the create checks again under
 * placement's locks. Providers without hosts there are absent from the map.
 */
export async function hostLoadsByProvider(
  q: Db | Tx,
  providerIds: number[],
  regionId: number,
): Promise<Map<number, HostLoad[]>> {
  const byProvider = new Map<number, HostLoad[]>();
  if (providerIds.length === 0) return byProvider;
  const rows = await q
    .select()
    .from(hosts)
    .where(and(inArray(hosts.providerId, providerIds), eq(hosts.regionId, regionId)))
    .orderBy(hosts.id);
  const usage = await hostUsageOf(
    q,
    rows.map((h) => h.id),
  );
  for (const host of rows) {
    const { cpu, ram, disk } = usage.get(host.id)!;
    byProvider.set(host.providerId, [...(byProvider.get(host.providerId) ?? []), { host, used: { cpu, ram, disk } }]);
  }
  return byProvider;
}

export function createHostsRepository(db: Db) {
  /** Hosts with their region, provider and what their live VMs take; narrowed to a reseller's and/or one host. */
  function listQuery(filter: { resellerId?: number; hostId?: number }) {
    const used = hostUsageQuery(db).as('used');
    return db
      .select({
        host: hosts,
        region: regions.name,
        provider: providers.name,
        vms: sql<number>`coalesce(${used.vms}, 0)`.mapWith(Number),
        cpu: sql<number>`coalesce(${used.cpu}, 0)`.mapWith(Number),
        ram: sql<number>`coalesce(${used.ram}, 0)`.mapWith(Number),
        disk: sql<number>`coalesce(${used.disk}, 0)`.mapWith(Number),
      })
      .from(hosts)
      .innerJoin(providers, eq(providers.id, hosts.providerId))
      .innerJoin(regions, eq(regions.id, hosts.regionId))
      .leftJoin(used, eq(used.hostId, hosts.id))
      .where(
        and(
          filter.resellerId === undefined ? undefined : eq(providers.resellerId, filter.resellerId),
          filter.hostId === undefined ? undefined : eq(hosts.id, filter.hostId),
        ),
      )
      .orderBy(asc(hosts.name));
  }

  /** How many live (not deleted) VMs the host holds. */
  async function liveVms(q: Db | Tx, hostId: number): Promise<number> {
    const [live] = await q
      .select({ n: sql<number>`count(*)::int` })
      .from(virtualMachines)
      .where(and(eq(virtualMachines.hostId, hostId), isNull(virtualMachines.deletedAt)));
    return Number(live?.n ?? 0);
  }

  return {
    // ---- reads ----
    async byId(id: number): Promise<HostRow | null> {
      const [row] = await db.select().from(hosts).where(eq(hosts.id, id));
      return row ?? null;
    },
    async byName(name: string): Promise<HostRow | null> {
      const [row] = await db.select().from(hosts).where(eq(hosts.name, name));
      return row ?? null;
    },
    /** A host's id and the reseller its provider belongs to (null: the operator's), by name. */
    async ownerByName(name: string): Promise<{ id: number; resellerId: number | null } | null> {
      const [row] = await db
        .select({ id: hosts.id, resellerId: providers.resellerId })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(hosts.name, name));
      return row ?? null;
    },
    /** Every host (the operator's list) or a reseller's (its own providers'), with usage. */
    list: (filter: { resellerId?: number } = {}) => listQuery(filter),
    /** One of the reseller's hosts with usage, or null. */
    async ofReseller(resellerId: number, hostId: number) {
      const [row] = await listQuery({ resellerId, hostId });
      return row ?? null;
    },
    /** The operator's enabled hosts (not resellers'), by id: the public health check shows them as last seen. */
    operatorEnabled: () =>
      db
        .select({ host: hosts })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(and(eq(hosts.enabled, true), isNull(providers.resellerId)))
        .orderBy(asc(hosts.id)),
    /** How many hosts the reseller's providers have per region. */
    countByRegion: (resellerId: number) =>
      db
        .select({ regionId: hosts.regionId, n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(providers.resellerId, resellerId))
        .groupBy(hosts.regionId),
    /** How many hosts each of the reseller's providers has. */
    countByProvider: (resellerId: number) =>
      db
        .select({ providerId: hosts.providerId, n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(hosts)
        .where(sql`${hosts.providerId} in (select id from providers where reseller_id = ${resellerId})`)
        .groupBy(hosts.providerId),
    /** The enabled hosts with their providers (the host monitor's round). */
    enabledWithProviders: () =>
      db
        .select({ host: hosts, provider: providers })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(hosts.enabled, true)),
    loadsForUpdate: hostLoadsForUpdate,
    liveVms: (hostId: number) => liveVms(db, hostId),

    // ---- the provider and region a host is registered under ----
    async provider(ref: number | string): Promise<HostProviderRow | null> {
      const [row] = await db
        .select()
        .from(providers)
        .where(typeof ref === 'number' ? eq(providers.id, ref) : eq(providers.name, ref));
      return row ?? null;
    },
    async region(ref: number | string) {
      const [row] = await db
        .select()
        .from(regions)
        .where(typeof ref === 'number' ? eq(regions.id, ref) : eq(regions.name, ref));
      return row ?? null;
    },

    // ---- writes ----
    insert: async (values: HostValues): Promise<HostRow> => (await db.insert(hosts).values(values).returning())[0]!,
    update: async (id: number, values: Partial<HostValues>): Promise<HostRow> =>
      (await db.update(hosts).set(values).where(eq(hosts.id, id)).returning())[0]!,
    /** The host monitor's verdict: answering (seen now) or the reason it does not. */
    async recordCheck(id: number, error: string | null, now: Date): Promise<void> {
      await db
        .update(hosts)
        .set(error ? { lastError: error } : { lastError: null, lastSeenAt: now })
        .where(eq(hosts.id, id));
    },
    /**
     * Removes a host unless it still has live VMs (answers their number, and removes nothing, then). The host row is
     * locked first, as placement locks it, so a VM placed meanwhile is counted. Deleted VMs keep their history; they
     * no longer point at the host.
     */
    async removeIfEmpty(id: number): Promise<{ removed: boolean; found: boolean; liveVms: number }> {
      return db.transaction(async (tx) => {
        const [host] = await tx.select().from(hosts).where(eq(hosts.id, id)).for('update');
        if (!host) return { removed: false, found: false, liveVms: 0 };
        const live = await liveVms(tx, id);
        if (live > 0) return { removed: false, found: true, liveVms: live };
        await tx.update(virtualMachines).set({ hostId: null }).where(eq(virtualMachines.hostId, id));
        await tx.delete(hosts).where(eq(hosts.id, id));
        return { removed: true, found: true, liveVms: 0 };
      });
    },

    // ---- public address pools ----
    /** Adds addresses to a region's pool; those already in a pool are left as they are. Answers those added. */
    addPublicAddresses: (regionId: number, addresses: string[]) =>
      db
        .insert(publicAddresses)
        .values(addresses.map((address) => ({ regionId, address })))
        .onConflictDoNothing()
        .returning(),
    listPublicAddresses: () =>
      db
        .select({ address: publicAddresses.address, region: regions.name, vmId: publicAddresses.vmId })
        .from(publicAddresses)
        .innerJoin(regions, eq(regions.id, publicAddresses.regionId))
        .orderBy(asc(regions.name), asc(publicAddresses.id)),
    async publicAddress(address: string) {
      const [row] = await db.select().from(publicAddresses).where(eq(publicAddresses.address, address));
      return row ?? null;
    },
    async deletePublicAddress(id: number): Promise<void> {
      await db.delete(publicAddresses).where(eq(publicAddresses.id, id));
    },
  };
}
export type HostsRepository = ReturnType<typeof createHostsRepository>;
/** A row of a host list: the host, its region and provider names, what its live VMs take. */
export type HostListRow = Awaited<ReturnType<HostsRepository['list']>>[number];
