/**
 * SQL of the reseller area's catalog; every query takes the staff member's reseller id. Its hosts are read through
 * the engine's hosts repository (engine/hosts/hosts.repository.ts).
 */
import { and, asc, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import { STORAGE_KINDS, type StorageKind } from '@portal/contract/billing';
import type { Db, Tx } from '../../db/client.ts';
import {
  configurationPrices,
  configurations,
  countries,
  imageWithdrawals,
  images,
  providerOfferings,
  providers,
  regions,
  resellers,
  storagePrices,
  virtualMachines,
} from '../../db/schema.ts';
import { providerServes } from '../access/catalog-visibility.ts';
import { descriptionsFor, saveDescription } from '../../db/image-descriptions.ts';

export type ProviderRow = typeof providers.$inferSelect;
export type PriceRow = typeof configurationPrices.$inferSelect;

export function createCatalogRepository(db: Db) {
  return {
    /** The reseller's storage prices per GB-month by kind (no row: no price); `tx` locks them for a save. */
    async storagePrices(tx: Tx | Db, resellerId: number, lock = false) {
      const q = tx
        .select({ kind: storagePrices.kind, gbMonthPrice: storagePrices.gbMonthPrice })
        .from(storagePrices)
        .where(eq(storagePrices.resellerId, resellerId));
      const rows = lock ? await q.for('update') : await q;
      const of = (kind: StorageKind) => rows.find((r) => r.kind === kind)?.gbMonthPrice ?? null;
      return { snapshot: of('snapshot'), backup: of('backup') };
    },

    /** Sets (a price) or removes (null) each kind's price. */
    async saveStoragePrices(tx: Tx, resellerId: number, prices: Record<StorageKind, string | null>) {
      for (const kind of STORAGE_KINDS) {
        const price = prices[kind];
        if (price === null) {
          await tx
            .delete(storagePrices)
            .where(and(eq(storagePrices.resellerId, resellerId), eq(storagePrices.kind, kind)));
        } else {
          await tx
            .insert(storagePrices)
            .values({ resellerId, kind, gbMonthPrice: price })
            .onConflictDoUpdate({
              target: [storagePrices.resellerId, storagePrices.kind],
              set: { gbMonthPrice: price, updatedAt: new Date() },
            });
        }
      }
    },

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
      row: {
        resellerId: number;
        configurationId: number;
        monthlyPrice: string;
        hourlyPrice: string;
        offered: boolean;
        /** Left out: the row's limit stays (a new row: null, the default). */
        snapshotLimit?: number | null;
        /** Left out: the row's backup limit stays (a new row: null, the default). */
        backupLimit?: number | null;
      },
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
            ...(row.snapshotLimit !== undefined && { snapshotLimit: row.snapshotLimit }),
            ...(row.backupLimit !== undefined && { backupLimit: row.backupLimit }),
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
    regionsWithCountry: () =>
      db
        .select({ id: regions.id, name: regions.name, country: countries.name })
        .from(regions)
        .innerJoin(countries, eq(countries.id, regions.countryId))
        .orderBy(asc(countries.name), asc(regions.name)),
    regionsByIds: (ids: number[], tx: Tx | Db = db) =>
      ids.length === 0
        ? Promise.resolve([])
        : tx.select({ id: regions.id, name: regions.name }).from(regions).where(inArray(regions.id, ids)),

    // ---- the reseller's own providers ----
    ownProviders: (resellerId: number) =>
      db.select().from(providers).where(eq(providers.resellerId, resellerId)).orderBy(asc(providers.name)),
    async providerNamed(resellerId: number, name: string) {
      const [row] = await db
        .select({ id: providers.id })
        .from(providers)
        .where(and(eq(providers.resellerId, resellerId), sql`lower(${providers.name}) = lower(${name})`))
        .limit(1);
      return row ?? null;
    },
    /** Per provider of the reseller: the regions it serves and its live VMs (its hosts: the hosts repository). */
    async providerFacts(resellerId: number) {
      const own = sql`(select id from providers where reseller_id = ${resellerId})`;
      const [served, vmCounts] = await Promise.all([
        db
          .selectDistinct({ providerId: providerOfferings.providerId, regionId: providerOfferings.regionId })
          .from(providerOfferings)
          .where(sql`${providerOfferings.providerId} in ${own}`),
        db
          .select({ providerId: virtualMachines.providerId, n: sql<number>`count(*)::int`.mapWith(Number) })
          .from(virtualMachines)
          .where(and(sql`${virtualMachines.providerId} in ${own}`, isNull(virtualMachines.deletedAt)))
          .groupBy(virtualMachines.providerId),
      ]);
      return { served, vmCounts };
    },
    insertProvider: async (tx: Tx, row: { resellerId: number; name: string; driver: string; enabled: boolean }) =>
      (await tx.insert(providers).values(row).returning())[0]!,
    /** Locks the provider row: its driver and regions change one writer at a time. */
    async lockProvider(tx: Tx, resellerId: number, id: number): Promise<ProviderRow | null> {
      const [row] = await tx
        .select()
        .from(providers)
        .where(and(eq(providers.id, id), eq(providers.resellerId, resellerId)))
        .for('update');
      return row ?? null;
    },
    updateProvider: async (tx: Tx, id: number, patch: Partial<Pick<ProviderRow, 'name' | 'driver' | 'enabled'>>) =>
      (await tx.update(providers).set(patch).where(eq(providers.id, id)).returning())[0]!,
    /** A provider's settings, whole (the reseller changes some of them: the service merges). */
    setProviderSettings: async (tx: Tx, id: number, settings: Record<string, unknown>) =>
      (await tx.update(providers).set({ settings }).where(eq(providers.id, id)).returning())[0]!,
    /** The provider's live (not deleted) VMs, whatever region. */
    async providerLiveVms(tx: Tx, id: number): Promise<number> {
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(virtualMachines)
        .where(and(eq(virtualMachines.providerId, id), isNull(virtualMachines.deletedAt)));
      return row?.n ?? 0;
    },
    async providerInUse(tx: Tx, id: number): Promise<boolean> {
      const res = await tx.execute<{ used: boolean }>(
        sql`select exists (select 1 from hosts where provider_id = ${id})
          or exists (select 1 from virtual_machines where provider_id = ${id} and deleted_at is null) as used`,
      );
      return !!res.rows[0]?.used;
    },
    servedRegionIds: async (tx: Tx, providerId: number) =>
      (
        await tx
          .selectDistinct({ regionId: providerOfferings.regionId })
          .from(providerOfferings)
          .where(eq(providerOfferings.providerId, providerId))
      ).map((r) => r.regionId),
    /** Live VMs of a provider in a region (those keep a region served). */
    async liveVms(tx: Tx, providerId: number, regionId: number): Promise<number> {
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
        .from(virtualMachines)
        .where(
          and(
            eq(virtualMachines.providerId, providerId),
            eq(virtualMachines.regionId, regionId),
            isNull(virtualMachines.deletedAt),
          ),
        );
      return row?.n ?? 0;
    },
    /** The provider serves exactly these regions, each with every size (sizes added since are added too). */
    async setOfferings(tx: Tx, providerId: number, regionIds: number[]) {
      await tx
        .delete(providerOfferings)
        .where(
          and(
            eq(providerOfferings.providerId, providerId),
            regionIds.length ? notInArray(providerOfferings.regionId, regionIds) : undefined,
          ),
        );
      if (regionIds.length === 0) return;
      await tx.execute(
        sql`insert into provider_offerings (provider_id, region_id, configuration_id)
          select ${providerId}, r.id, c.id from regions r cross join configurations c where r.id in ${regionIds}
          on conflict do nothing`,
      );
    },

    // ---- images the reseller withdraws ----
    async image(regionId: number, name: string) {
      const [row] = await db
        .select({ id: images.id })
        .from(images)
        .where(and(eq(images.regionId, regionId), eq(images.name, name)));
      return row ?? null;
    },
    async setImageWithdrawn(tx: Tx, resellerId: number, regionId: number, image: string, withdrawn: boolean) {
      const key = and(
        eq(imageWithdrawals.resellerId, resellerId),
        eq(imageWithdrawals.regionId, regionId),
        eq(imageWithdrawals.image, image),
      );
      const [before] = await tx.select().from(imageWithdrawals).where(key);
      if (withdrawn) await tx.insert(imageWithdrawals).values({ resellerId, regionId, image }).onConflictDoNothing();
      else await tx.delete(imageWithdrawals).where(key);
      return { wasWithdrawn: !!before };
    },
    /** Each name's platform and own description (db/image-descriptions.ts; decision 0018). */
    imageDescriptions: (resellerId: number, names: string[]) => descriptionsFor(db, resellerId, names),
    saveImageDescription: saveDescription,
    withdrawnImages: (resellerId: number) =>
      db
        .select({ regionId: imageWithdrawals.regionId, image: imageWithdrawals.image })
        .from(imageWithdrawals)
        .where(eq(imageWithdrawals.resellerId, resellerId)),
    async region(id: number) {
      const [row] = await db.select({ id: regions.id }).from(regions).where(eq(regions.id, id));
      return row ?? null;
    },
  };
}
export type CatalogRepository = ReturnType<typeof createCatalogRepository>;
