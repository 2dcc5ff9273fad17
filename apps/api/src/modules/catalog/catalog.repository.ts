/** SQL of the reseller area's catalog and hosts; every query takes the staff member's reseller id. */
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import {
  configurationPrices,
  configurations,
  countries,
  hosts,
  images,
  providerOfferings,
  providers,
  regions,
  resellers,
} from '../../db/schema.ts';
import { hostUsageQuery } from '../../db/host-usage.ts';
import { providerServes } from '../access/catalog-visibility.ts';

export type HostRow = typeof hosts.$inferSelect;
export type PriceRow = typeof configurationPrices.$inferSelect;

export function createCatalogRepository(db: Db) {
  /** The reseller's hosts (of its own providers), with what their live VMs take. */
  function hostsQuery(resellerId: number, hostId?: number) {
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
      .where(and(eq(providers.resellerId, resellerId), hostId === undefined ? undefined : eq(hosts.id, hostId)))
      .orderBy(asc(hosts.name));
  }

  return {
    async currency(resellerId: number): Promise<string> {
      const [row] = await db
        .select({ currency: resellers.currency })
        .from(resellers)
        .where(eq(resellers.id, resellerId));
      return row?.currency ?? 'USD';
    },

    /** Every platform size with the reseller's price row, if any. */
    sizes: (resellerId: number) =>
      db
        .select({ size: configurations, price: configurationPrices })
        .from(configurations)
        .leftJoin(
          configurationPrices,
          and(
            eq(configurationPrices.configurationId, configurations.id),
            eq(configurationPrices.resellerId, resellerId),
          ),
        )
        .orderBy(asc(configurations.cpu), asc(configurations.id)),

    async size(id: number) {
      const [row] = await db.select().from(configurations).where(eq(configurations.id, id));
      return row ?? null;
    },

    async price(tx: Tx | Db, resellerId: number, configurationId: number): Promise<PriceRow | null> {
      const [row] = await tx
        .select()
        .from(configurationPrices)
        .where(
          and(eq(configurationPrices.resellerId, resellerId), eq(configurationPrices.configurationId, configurationId)),
        )
        .for('update');
      return row ?? null;
    },

    async savePrice(
      tx: Tx,
      row: { resellerId: number; configurationId: number; monthlyPrice: string; hourlyPrice: string; offered: boolean },
    ): Promise<PriceRow> {
      const [saved] = await tx
        .insert(configurationPrices)
        .values(row)
        .onConflictDoUpdate({
          target: [configurationPrices.resellerId, configurationPrices.configurationId],
          set: {
            monthlyPrice: row.monthlyPrice,
            hourlyPrice: row.hourlyPrice,
            offered: row.offered,
            updatedAt: new Date(),
          },
        })
        .returning();
      return saved!;
    },

    async hasOwnProviders(resellerId: number): Promise<boolean> {
      const [row] = await db
        .select({ id: providers.id })
        .from(providers)
        .where(eq(providers.resellerId, resellerId))
        .limit(1);
      return !!row;
    },

    /** Regions where a provider serving the reseller's customers offers something, with those providers' names. */
    servedRegions: (resellerId: number) =>
      db
        .selectDistinct({ id: regions.id, name: regions.name, country: countries.name, provider: providers.name })
        .from(providerOfferings)
        .innerJoin(providers, eq(providers.id, providerOfferings.providerId))
        .innerJoin(regions, eq(regions.id, providerOfferings.regionId))
        .innerJoin(countries, eq(countries.id, regions.countryId))
        .where(and(eq(providers.enabled, true), providerServes(resellerId, providers.resellerId)))
        .orderBy(asc(countries.name), asc(regions.name), asc(providers.name)),

    imagesOf: (regionIds: number[]) =>
      regionIds.length === 0
        ? Promise.resolve([])
        : db
            .select({ regionId: images.regionId, name: images.name })
            .from(images)
            .where(sql`${images.regionId} in ${regionIds}`)
            .orderBy(asc(images.name)),

    hostCounts: (resellerId: number) =>
      db
        .select({ regionId: hosts.regionId, n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(providers.resellerId, resellerId))
        .groupBy(hosts.regionId),

    hosts: (resellerId: number) => hostsQuery(resellerId),
    async host(resellerId: number, id: number) {
      const [row] = await hostsQuery(resellerId, id);
      return row ?? null;
    },
    async hostByName(name: string) {
      const [row] = await db
        .select({ id: hosts.id, resellerId: providers.resellerId })
        .from(hosts)
        .innerJoin(providers, eq(providers.id, hosts.providerId))
        .where(eq(hosts.name, name));
      return row ?? null;
    },

    /** The reseller's providers that hosts may be registered under (libvirt ones). */
    libvirtProviders: (resellerId: number) =>
      db
        .select({ id: providers.id, name: providers.name })
        .from(providers)
        .where(and(eq(providers.resellerId, resellerId), eq(providers.driver, 'libvirt')))
        .orderBy(asc(providers.name)),
    async provider(resellerId: number, id: number) {
      const [row] = await db
        .select()
        .from(providers)
        .where(and(eq(providers.id, id), eq(providers.resellerId, resellerId)));
      return row ?? null;
    },
    allRegions: () => db.select({ id: regions.id, name: regions.name }).from(regions).orderBy(asc(regions.name)),
    async region(id: number) {
      const [row] = await db.select({ id: regions.id }).from(regions).where(eq(regions.id, id));
      return row ?? null;
    },
  };
}
export type CatalogRepository = ReturnType<typeof createCatalogRepository>;
export type HostListRow = Awaited<ReturnType<CatalogRepository['hosts']>>[number];
