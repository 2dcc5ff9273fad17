/** SQL for the catalog and VMs (operations have their own repository under operations/). VM reads take the caller's visibility scope. */
import type { OperationKind, VmStatus } from '@portal/contract/vm-lifecycle';
import { and, asc, count, desc, eq, ilike, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import { OPERATIONS } from '@portal/contract/vm-lifecycle';
import type { Db, Tx } from '../../db/client.ts';
import {
  cities,
  configurationPrices,
  configurations,
  countries,
  images,
  publicAddresses,
  providerOfferings,
  providers,
  regions,
  resellers,
  sshKeys,
  storagePeriods,
  teams,
  virtualMachines,
  vmSizePeriods,
} from '../../db/schema.ts';
import { pricedStorageLines, pricedUsageLines } from '../../db/priced-usage.ts';
import type { TenantScope } from '../../lib/auth-context.ts';
import { containsPattern, pageWindow } from '../../lib/paging.ts';
import { imageOffered, providerServes, regionServed, sizeOffered } from '../access/catalog-visibility.ts';
import { teamIdsParam, vmVisibleTo, type ScopeValues } from '../access/vm-visibility.ts';
import { effectiveDescriptions } from '../../db/image-descriptions.ts';

/** Live VMs the caller may see, by the one visibility rule (access/vm-visibility.ts). */
export function visibleVms(scope: ScopeValues): SQL {
  return and(vmVisibleTo(scope, virtualMachines), isNull(virtualMachines.deletedAt))!;
}

type ListSort = 'name' | 'configuration' | 'created';
/** The shape of a list query: each shape is prepared once per process (PostgreSQL then skips parse and plan). */
type ListShape = {
  admin: boolean;
  search: boolean;
  team: boolean;
  status: boolean;
  region: boolean;
  sort: ListSort;
  descending: boolean;
};
/** The list's filters (the contract's vmListFilterFields); also what a bulk action's "all matching" means. */
export interface VmListFilters {
  search: string;
  status?: VmStatus | undefined;
  regionId?: number | undefined;
  teamId?: number | undefined;
}

/**
 * A VM name's natural sort key (batch-2 before batch-10; issue 25 item 2): migration 0024's immutable
 * vm_name_sort_key (each run of digits zero-padded to 20 places, the rest lower-cased) compared byte-wise, so
 * PostgreSQL and PGlite (no ICU collations) order alike; written exactly as vms_live_name_key_idx's expression, so a
 * page of the list sorted by name comes off that index.
 */
export const naturalNameKey = sql`vm_name_sort_key(${virtualMachines.name}) collate "C"`;

export type VmRow = typeof virtualMachines.$inferSelect;

export function createVmRepository(db: Db) {
  const prepared = new Map<string, ReturnType<typeof prepareList>>();
  const matching = new Map<string, ReturnType<typeof prepareMatching>>();
  /** A bulk action's "all matching" ids, prepared per shape like the list. */
  function prepareMatching(shape: Omit<ListShape, 'sort' | 'descending'>, name: string) {
    const scope = {
      companyId: sql.placeholder('companyId'),
      userId: sql.placeholder('userId'),
      isCompanyAdmin: shape.admin,
      teamIds: sql.placeholder('teamIds'),
    };
    return db
      .select({ id: virtualMachines.id })
      .from(virtualMachines)
      .where(filtered(scope, shape))
      .orderBy(desc(virtualMachines.createdAt), desc(virtualMachines.id))
      .limit(sql.placeholder('limit'))
      .prepare(name);
  }
  /**
   * A VM with its size, place and pending operation, only if the caller may see it (the one visibility rule), with
   * the caller's role in its team: one statement for the details call, prepared per kind of caller like the list.
   */
  function prepareDetails(admin: boolean) {
    const scope = {
      companyId: sql.placeholder('companyId'),
      userId: sql.placeholder('userId'),
      isCompanyAdmin: admin,
      teamIds: sql.placeholder('teamIds'),
    };
    return db
      .select({
        vm: {
          id: virtualMachines.id,
          companyId: virtualMachines.companyId,
          teamId: virtualMachines.teamId,
          createdByUserId: virtualMachines.createdByUserId,
          name: virtualMachines.name,
          status: virtualMachines.status,
          bootStartedAt: virtualMachines.bootingSince,
          image: virtualMachines.image,
          regionId: virtualMachines.regionId,
          createdAt: virtualMachines.createdAt,
          updatedAt: virtualMachines.updatedAt,
          publicIp: virtualMachines.publicIp,
          privateIp: virtualMachines.privateIp,
          providerId: virtualMachines.providerId,
          hostId: virtualMachines.hostId,
          providerRef: virtualMachines.providerRef,
          errorReason: virtualMachines.errorReason,
          sshUsername: virtualMachines.sshUsername,
          publicKey: virtualMachines.publicKey,
          sshKeys: virtualMachines.sshKeys,
          userData: virtualMachines.userData,
        },
        configuration: {
          id: configurations.id,
          name: configurations.name,
          cpu: configurations.cpu,
          ram: configurations.ram,
          disk: configurations.disk,
        },
        region: regions.name,
        country: countries.name,
        pendingOperation: sql<OperationKind | null>`(select o.kind from operations o where o.vm_id = ${virtualMachines.id} and o.status in ('pending', 'running') limit 1)`,
        roleId: sql<
          number | null
        >`(select m.role_id from team_members m where m.user_id = ${scope.userId} and m.team_id = ${virtualMachines.teamId})`,
        // The engine's latest sample of the machine (engine/metrics: its host is asked once per pass), read in this
        // same statement: details ask no host and add no query.
        sampleCpuPercent: sql<
          number | null
        >`(select l.cpu_percent from vm_metric_latest l where l.vm_id = ${virtualMachines.id})`,
        sampleMemoryBytes: sql<
          string | null
        >`(select l.memory_used_bytes from vm_metric_latest l where l.vm_id = ${virtualMachines.id})`,
      })
      .from(virtualMachines)
      .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
      .innerJoin(regions, eq(regions.id, virtualMachines.regionId))
      .innerJoin(countries, eq(countries.id, regions.countryId))
      .where(and(eq(virtualMachines.id, sql.placeholder('id')), visibleVms(scope)))
      .limit(1)
      .prepare(admin ? 'vm_details_admin' : 'vm_details_member');
  }
  const details = { admin: prepareDetails(true), member: prepareDetails(false) };
  function listQueries(shape: ListShape) {
    const key = `${shape.admin ? 'a' : 'm'}${shape.search ? 's' : ''}${shape.team ? 't' : ''}${shape.status ? 'x' : ''}${shape.region ? 'r' : ''}_${shape.sort}_${shape.descending ? 'desc' : 'asc'}`;
    let queries = prepared.get(key);
    if (!queries) prepared.set(key, (queries = prepareList(shape, `vm_list_${key}`)));
    return queries;
  }

  /** The visibility rule and the filters the shape has, over placeholders. */
  function filtered(
    scope: ScopeValues,
    shape: Pick<ListShape, 'search' | 'team' | 'status' | 'region'>,
  ): SQL | undefined {
    return and(
      visibleVms(scope),
      shape.search ? ilike(virtualMachines.name, sql.placeholder('pattern')) : undefined,
      shape.team ? eq(virtualMachines.teamId, sql.placeholder('teamId')) : undefined,
      shape.status ? sql`${virtualMachines.status} = ${sql.placeholder('status')}` : undefined,
      shape.region ? eq(virtualMachines.regionId, sql.placeholder('regionId')) : undefined,
    );
  }

  function prepareList(shape: ListShape, name: string) {
    const scope = {
      companyId: sql.placeholder('companyId'),
      userId: sql.placeholder('userId'),
      isCompanyAdmin: shape.admin,
      teamIds: sql.placeholder('teamIds'),
    };
    const where = filtered(scope, shape);
    const dir = shape.descending ? desc : asc;
    const order =
      shape.sort === 'name'
        ? [dir(naturalNameKey), dir(virtualMachines.id)]
        : shape.sort === 'configuration'
          ? [dir(configurations.cpu), dir(naturalNameKey), dir(virtualMachines.id)]
          : [desc(virtualMachines.createdAt), desc(virtualMachines.id)];
    const page = db
      .select({
        id: virtualMachines.id,
        name: virtualMachines.name,
        status: virtualMachines.status,
        bootStartedAt: virtualMachines.bootingSince,
        configuration: configurations.name,
        configurationId: configurations.id,
        cpu: configurations.cpu,
        ram: configurations.ram,
        createdAt: virtualMachines.createdAt,
        regionId: virtualMachines.regionId,
        teamId: virtualMachines.teamId,
        region: regions.name,
        team: teams.name,
        image: virtualMachines.image,
        publicIp: virtualMachines.publicIp,
        privateIp: virtualMachines.privateIp,
        createdByUserId: virtualMachines.createdByUserId,
        roleId: sql<
          number | null
        >`(select m.role_id from team_members m where m.user_id = ${scope.userId} and m.team_id = ${virtualMachines.teamId})`,
        total: sql<number | null>`${shape.search ? sql`count(*) over ()` : sql`null`}`.mapWith(Number),
      })
      .from(virtualMachines)
      .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
      .innerJoin(regions, eq(regions.id, virtualMachines.regionId))
      .leftJoin(teams, eq(teams.id, virtualMachines.teamId))
      .where(where)
      .orderBy(...order)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(name);
    const countAll = db.select({ n: count() }).from(virtualMachines).where(where).prepare(`${name}_count`);
    return { page, count: countAll };
  }

  return {
    // ---- catalog (what the caller's reseller offers: access/catalog-visibility.ts) ----
    countries: (resellerId: number) =>
      db
        .select({ id: countries.id, name: countries.name })
        .from(countries)
        .where(
          sql`exists (select 1 from regions r where r.country_id = "countries"."id" and ${regionServed(resellerId, sql`r.id`)})`,
        )
        .orderBy(asc(countries.name)),
    regions: (countryId: number, resellerId: number) =>
      db
        .select({ id: regions.id, name: regions.name })
        .from(regions)
        .where(and(eq(regions.countryId, countryId), regionServed(resellerId, regions.id)))
        .orderBy(asc(regions.name)),
    cities: (regionId: number) =>
      db
        .select({ id: cities.id, name: cities.name })
        .from(cities)
        .where(eq(cities.regionId, regionId))
        .orderBy(asc(cities.name)),
    /** The region's images the reseller offers (not withdrawn). */
    images: async (regionId: number, resellerId: number) =>
      (
        await db
          .select({ name: images.name })
          .from(images)
          .where(and(eq(images.regionId, regionId), imageOffered(resellerId, images.regionId, images.name)))
          .orderBy(asc(images.name))
      ).map((r) => r.name),
    /** What the reseller's customers see of images: its own description, else the platform's (decision 0018). */
    imageDescriptions: (resellerId: number, names: string[]) => effectiveDescriptions(db, resellerId, names),
    async region(id: number) {
      const [row] = await db
        .select({ id: regions.id, name: regions.name, countryId: countries.id, country: countries.name })
        .from(regions)
        .innerJoin(countries, eq(countries.id, regions.countryId))
        .where(eq(regions.id, id))
        .limit(1);
      return row;
    },
    /** Every size, or (given a reseller) those it offers to its customers. */
    configurations: (resellerId?: number) =>
      db
        .select()
        .from(configurations)
        .where(resellerId === undefined ? undefined : sizeOffered(resellerId, configurations.id))
        .orderBy(asc(configurations.cpu), asc(configurations.id)),
    async sizeOffered(resellerId: number, configurationId: number): Promise<boolean> {
      const [row] = await db
        .select({ id: configurations.id })
        .from(configurations)
        .where(and(eq(configurations.id, configurationId), sizeOffered(resellerId, configurations.id)))
        .limit(1);
      return !!row;
    },
    async configuration(id: number) {
      const [row] = await db.select().from(configurations).where(eq(configurations.id, id)).limit(1);
      return row;
    },
    /** Providers that can run a configuration (or anything) in a region. */
    providersFor: (resellerId: number, regionId: number, configurationId?: number) =>
      db
        .selectDistinct({ id: providers.id, name: providers.name })
        .from(providers)
        .innerJoin(providerOfferings, eq(providerOfferings.providerId, providers.id))
        .where(
          and(
            eq(providerOfferings.regionId, regionId),
            eq(providers.enabled, true),
            providerServes(resellerId, providers.resellerId),
            configurationId ? eq(providerOfferings.configurationId, configurationId) : undefined,
          ),
        )
        .orderBy(asc(providers.name)),
    /**
     * The create form's sizes in a region (issue 25 item 3): the offered ones with the reseller's prices (null while
     * it has priced none) and currency, and the reseller's providers that run each there, with what placement needs
     * to know of them. Two statements, none per size.
     */
    async regionSizes(resellerId: number, regionId: number) {
      const sizes = await db
        .select({
          id: configurations.id,
          key: configurations.key,
          name: configurations.name,
          cpu: configurations.cpu,
          ram: configurations.ram,
          disk: configurations.disk,
          monthlyPrice: sql<string | null>`${configurationPrices.monthlyPrice}::text`,
          hourlyPrice: sql<string | null>`${configurationPrices.hourlyPrice}::text`,
          currency: sql<string>`(select r.currency from resellers r where r.id = ${resellerId})`,
        })
        .from(configurations)
        .leftJoin(
          configurationPrices,
          and(
            eq(configurationPrices.configurationId, configurations.id),
            eq(configurationPrices.resellerId, resellerId),
          ),
        )
        .where(sizeOffered(resellerId, configurations.id))
        .orderBy(asc(configurations.cpu), asc(configurations.id));
      const offerings = await db
        .select({
          configurationId: providerOfferings.configurationId,
          providerId: providers.id,
          driver: providers.driver,
          resellerId: providers.resellerId,
          settings: providers.settings,
        })
        .from(providerOfferings)
        .innerJoin(providers, eq(providers.id, providerOfferings.providerId))
        .where(
          and(
            eq(providerOfferings.regionId, regionId),
            eq(providers.enabled, true),
            providerServes(resellerId, providers.resellerId),
          ),
        )
        .orderBy(asc(providers.name), asc(providers.id));
      return { sizes, offerings };
    },
    /**
     * Whether the provider, serving the reseller's customers, runs the size in the region. A create asks inside its
     * transaction after `holdProvider`, so a concurrent change of the provider's regions is either seen or waits.
     */
    async offers(
      tx: Tx | Db,
      resellerId: number,
      providerId: number,
      regionId: number,
      configurationId: number,
    ): Promise<boolean> {
      const [row] = await tx
        .select({ p: providerOfferings.providerId })
        .from(providerOfferings)
        .innerJoin(providers, eq(providers.id, providerOfferings.providerId))
        .where(
          and(
            eq(providerOfferings.providerId, providerId),
            eq(providerOfferings.regionId, regionId),
            eq(providerOfferings.configurationId, configurationId),
            eq(providers.enabled, true),
            providerServes(resellerId, providers.resellerId),
          ),
        )
        .limit(1);
      return !!row;
    },
    /**
     * Holds the provider row (FOR SHARE) until the transaction ends. The reseller's regions save and provider edits
     * hold it FOR UPDATE (catalog.repository.ts `lockProvider`), so a create and a region drop run one after the
     * other: the drop sees the new VM and refuses, or the create, reading after the wait, sees the region gone.
     * Two creates share the lock and do not wait for each other.
     */
    async holdProvider(tx: Tx, providerId: number) {
      const [row] = await tx
        .select({ driver: providers.driver, resellerId: providers.resellerId, settings: providers.settings })
        .from(providers)
        .where(eq(providers.id, providerId))
        .for('share');
      return row ?? null;
    },
    async imageOffered(resellerId: number, regionId: number, image: string): Promise<boolean> {
      const [row] = await db
        .select({ id: images.id })
        .from(images)
        .where(
          and(
            eq(images.regionId, regionId),
            eq(images.name, image),
            imageOffered(resellerId, images.regionId, images.name),
          ),
        )
        .limit(1);
      return !!row;
    },
    /**
     * Gives the VM a free address of its region's public pool, if the pool has one (null otherwise). The
     * unique vm_id and address columns keep an address from being held twice; SKIP LOCKED lets concurrent
     * creates take different ones.
     */
    async allocatePublicAddress(tx: Tx, vmId: number, regionId: number): Promise<string | null> {
      const [row] = await tx
        .update(publicAddresses)
        .set({ vmId, allocatedAt: new Date() })
        .where(
          eq(
            publicAddresses.id,
            sql`(select id from public_addresses where region_id = ${regionId} and vm_id is null order by id limit 1 for update skip locked)`,
          ),
        )
        .returning({ address: publicAddresses.address });
      if (!row) return null;
      await tx.update(virtualMachines).set({ publicIp: row.address }).where(eq(virtualMachines.id, vmId));
      return row.address;
    },

    async provider(id: number) {
      const [row] = await db.select().from(providers).where(eq(providers.id, id)).limit(1);
      return row;
    },

    // ---- VMs ----
    async list(
      scope: TenantScope,
      q: {
        page: number;
        rowsPerPage: number;
        sortColumn?: 'name' | 'configuration' | undefined;
        descending: boolean;
      } & VmListFilters,
    ) {
      const shape: ListShape = {
        admin: scope.isCompanyAdmin,
        search: q.search !== '',
        team: !!q.teamId,
        status: !!q.status,
        region: !!q.regionId,
        sort: q.sortColumn ?? 'created',
        descending: q.descending,
      };
      const { limit, offset } = pageWindow(q.page, q.rowsPerPage);
      const values = {
        companyId: scope.companyId,
        userId: scope.userId,
        teamIds: teamIdsParam(scope.teamIds),
        pattern: containsPattern(q.search),
        teamId: q.teamId ?? 0,
        status: q.status ?? '',
        regionId: q.regionId ?? 0,
        limit,
        offset,
      };
      const { page, count: countAll } = listQueries(shape);
      // A search matches few rows (found through the trigram index), so they are counted in the same
      // round trip as the page. Unfiltered, the page comes off an ordered index and a separate count off
      // an index-only scan, which beats counting every row of the company in a window.
      const [found, counted] = await Promise.all([
        page.execute(values),
        shape.search ? null : countAll.execute(values),
      ]);
      // Past the last page no row carries the window count, so it is asked for.
      const total =
        counted?.[0]?.n ?? found[0]?.total ?? (offset > 0 ? ((await countAll.execute(values))[0]?.n ?? 0) : 0);
      return { rows: found.map(({ total: _total, ...row }) => row), total };
    },

    /**
     * The ids of the VMs the caller sees that match the filters, in the list's default order, at most `limit`:
     * what a bulk action's "all matching" acts on.
     */
    async matchingIds(scope: TenantScope, f: VmListFilters, limit: number): Promise<number[]> {
      const shape = {
        admin: scope.isCompanyAdmin,
        search: f.search !== '',
        team: !!f.teamId,
        status: !!f.status,
        region: !!f.regionId,
      };
      const key = `vm_match_${shape.admin ? 'a' : 'm'}${shape.search ? 's' : ''}${shape.team ? 't' : ''}${shape.status ? 'x' : ''}${shape.region ? 'r' : ''}`;
      let query = matching.get(key);
      if (!query) matching.set(key, (query = prepareMatching(shape, key)));
      const rows = await query.execute({
        limit,
        companyId: scope.companyId,
        userId: scope.userId,
        teamIds: teamIdsParam(scope.teamIds),
        pattern: containsPattern(f.search),
        teamId: f.teamId ?? 0,
        status: f.status ?? '',
        regionId: f.regionId ?? 0,
      });
      return rows.map((r) => r.id);
    },

    /** The regions and teams of the VMs the caller sees (what the list's filters offer), by name. */
    async facets(scope: TenantScope) {
      const visible = visibleVms(scope);
      const [regionRows, teamRows] = await Promise.all([
        db
          .selectDistinct({ id: regions.id, name: regions.name })
          .from(regions)
          .innerJoin(virtualMachines, eq(virtualMachines.regionId, regions.id))
          .where(visible)
          .orderBy(asc(regions.name), asc(regions.id)),
        db
          .selectDistinct({ id: teams.id, name: teams.name })
          .from(teams)
          .innerJoin(virtualMachines, eq(virtualMachines.teamId, teams.id))
          .where(visible)
          .orderBy(asc(teams.name), asc(teams.id)),
      ]);
      return { regions: regionRows, teams: teamRows };
    },

    async teamName(id: number): Promise<string | null> {
      const [row] = await db.select({ name: teams.name }).from(teams).where(eq(teams.id, id)).limit(1);
      return row?.name ?? null;
    },

    async byId(id: number): Promise<VmRow | undefined> {
      const [row] = await db
        .select()
        .from(virtualMachines)
        .where(and(eq(virtualMachines.id, id), isNull(virtualMachines.deletedAt)))
        .limit(1);
      return row;
    },

    /**
     * A live VM the caller may see, with its size, place, pending operation and the caller's role in its team: one
     * round trip. Undefined when there is no such VM or it is hidden from the caller (both are "not found").
     */
    async visibleDetails(scope: TenantScope, id: number) {
      const query = scope.isCompanyAdmin ? details.admin : details.member;
      const [row] = await query.execute({
        id,
        companyId: scope.companyId,
        userId: scope.userId,
        teamIds: teamIdsParam(scope.teamIds),
      });
      return row;
    },

    /**
     * The caller's own stored SSH keys among `ids` (a create copies them onto its VMs; issue 23 item 5). Owner-scoped:
     * another user's id is simply not found.
     */
    ownSshKeys: (userId: number, ids: number[]) =>
      db
        .select({ id: sshKeys.id, name: sshKeys.name, fingerprint: sshKeys.fingerprint, publicKey: sshKeys.publicKey })
        .from(sshKeys)
        .where(and(eq(sshKeys.userId, userId), inArray(sshKeys.id, ids)))
        .orderBy(asc(sshKeys.id)),

    async insertVm(tx: Tx, values: typeof virtualMachines.$inferInsert) {
      const [row] = await tx.insert(virtualMachines).values(values).returning();
      return row!;
    },

    async setStatus(tx: Tx | Db, vmId: number, patch: Partial<typeof virtualMachines.$inferInsert>) {
      const [row] = await tx
        .update(virtualMachines)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(virtualMachines.id, vmId))
        .returning();
      return row;
    },

    /**
     * VMs per size that existed at some time in [from, to): created before `to`, not deleted before `from`,
     * and really made at the provider (or still being made): a create that failed never existed.
     */
    async countsBySize(scope: TenantScope, from: Date, to: Date) {
      const rows = await db
        .select({ key: configurations.key, n: count() })
        .from(virtualMachines)
        .innerJoin(configurations, eq(configurations.id, virtualMachines.configurationId))
        .where(
          and(
            vmVisibleTo(scope, virtualMachines),
            sql`${virtualMachines.createdAt} < ${to.toISOString()}`,
            sql`(${virtualMachines.deletedAt} is null or ${virtualMachines.deletedAt} >= ${from.toISOString()})`,
            // Made, or being made: a create shows Provisioning, then Starting from the driver's onBooting, before
            // the machine's ref is stored. A create that failed (no ref, Error) made nothing to count.
            sql`(${virtualMachines.providerRef} is not null or ${virtualMachines.status} in (${OPERATIONS.create.runningStatus}, ${OPERATIONS.start.runningStatus}))`,
          ),
        )
        .groupBy(configurations.key);
      return new Map(rows.map((r) => [r.key, r.n]));
    },

    /** The machines the caller sees (the list's rule), counted by status. */
    async countsByStatus(scope: TenantScope) {
      const rows = await db
        .select({ status: virtualMachines.status, n: count() })
        .from(virtualMachines)
        .where(visibleVms(scope))
        .groupBy(virtualMachines.status);
      return new Map(rows.map((r) => [r.status, r.n]));
    },

    /**
     * Billing's priced lines in [from, until) of the machines the caller sees, deleted ones included (their time was
     * billed), or of one of them (db/priced-usage.ts: the very rule of the reseller's usage).
     */
    monthLines: (scope: TenantScope, from: Date, until: Date, vmId?: number) =>
      pricedUsageLines(
        db,
        from,
        until,
        and(vmVisibleTo(scope, virtualMachines), vmId === undefined ? undefined : eq(vmSizePeriods.vmId, vmId)),
      ),

    /** Storage's priced lines (snapshots, backups) in [from, until) of the same machines (db/priced-usage.ts). */
    monthStorageLines: (scope: TenantScope, from: Date, until: Date, vmId?: number) =>
      pricedStorageLines(
        db,
        from,
        until,
        and(vmVisibleTo(scope, virtualMachines), vmId === undefined ? undefined : eq(storagePeriods.vmId, vmId)),
      ),

    async currency(resellerId: number): Promise<string> {
      const [row] = await db
        .select({ currency: resellers.currency })
        .from(resellers)
        .where(eq(resellers.id, resellerId))
        .limit(1);
      return row?.currency ?? 'USD';
    },
  };
}
export type VmRepository = ReturnType<typeof createVmRepository>;
