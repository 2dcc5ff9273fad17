/**
 * The reseller area's catalog and hosts (docs/decisions/0014-reseller-catalog.md): a reseller prices and offers
 * platform sizes, sees the regions and images its providers serve, and runs the hosts of its own providers.
 * Support staff read; owners change; every change is audited. Hosts are registered and edited through the
 * same hosts service as the operator's CLI and imports, so a host is validated one way.
 */
import { API_MESSAGES } from '@portal/contract/messages';
import { staffMayWrite } from '@portal/contract/permissions';
import {
  CATALOG_TEXT,
  hostInUseText,
  regionInUseText,
  type HostCheck,
  type HostCheckResult,
  type HostHealth,
  type HostRegistration,
  type HostUpdate,
  type ImageDescribe,
  type ImageOffer,
  PROVIDER_IMAGES_MAX,
  type ProviderImage,
  type ProviderInput,
  type ProviderSettings,
  type ProviderSettingsUpdate,
  type ProviderUpdate,
  type ResellerHost,
  type ResellerProvider,
  type ResellerSize,
  type SizeOffer,
  type StoragePrices,
  type StoragePricesBody,
} from '@portal/contract/reseller-catalog';
import type { Db, Tx } from '../../db/client.ts';
import type { Audit } from '../../lib/audit.ts';
import type { StaffScope } from '../../lib/auth-context.ts';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  SQLSTATE,
  databaseErrorOf,
} from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import { noLimit, type Admit } from '../../lib/reseller-gate.ts';
import { sshFingerprint } from '../../lib/ssh-keys.ts';
import { HostUriError, parseHostUri, type HostUri } from '../../providers/libvirt/host-uri.ts';
import { libvirtSettingsSchema } from '../../providers/libvirt/libvirt.ts';
import { scanHostKey } from '../../engine/hosts/host-keyscan.ts';
import { HostInputError, type HostsService } from '../../engine/hosts/hosts.service.ts';
import type { ResellerKeys } from '../../engine/hosts/reseller-keys.ts';
import type { HostListRow, HostRow, HostsRepository } from '../../engine/hosts/hosts.repository.ts';
import type { CatalogRepository, PriceRow, ProviderRow } from './catalog.repository.ts';

/** The staff member acting, the staff company their audit entries belong to, and the request. */
export interface StaffCtx {
  scope: StaffScope;
  companyId: number;
  requestId: string;
}

export function healthOf(host: Pick<HostRow, 'lastSeenAt' | 'lastError'>): HostHealth {
  if (host.lastError) return 'unreachable';
  if (!host.lastSeenAt) return 'not seen';
  return 'healthy';
}

export function createCatalogService(deps: {
  db: Db;
  repo: CatalogRepository;
  hosts: HostsService;
  /** The engine's host queries (the reseller's hosts with usage, counts). */
  hostsRepo: HostsRepository;
  audit: Audit;
  /** The resellers' portal SSH keys, the egress rule and whether qemu+tcp is allowed (issue 21). */
  keys: ResellerKeys;
  access: { egress: { resolveAllowed(host: string): Promise<string[]> }; allowTcp: boolean };
  scanHostKey?: typeof scanHostKey;
  /** Told when a host was set to draining (its VMs start moving off: docs/draining.md). */
  onDraining?: () => void;
}) {
  const { db, repo, audit, hostsRepo } = deps;
  const scan = deps.scanHostKey ?? scanHostKey;

  /**
   * A reseller's host URI, parsed by the reseller policy and its host checked by the egress rule (400s that say what
   * to fix); over qemu+ssh, the key the host answers with at the checked address. `admit` gates what reaches out
   * (DNS, ssh): a URI refused as written is not counted.
   */
  async function inspect(
    uri: string,
    admit: Admit,
    confirmed?: string | null,
  ): Promise<{ parsed: HostUri; hostKey: string | null }> {
    let parsed: HostUri;
    try {
      parsed = parseHostUri(uri, { owner: 'reseller', allowTcp: deps.access.allowTcp });
    } catch (err) {
      if (err instanceof HostUriError) throw new BadRequestError(err.message);
      throw err;
    }
    // Registering over qemu+ssh takes the fingerprint the check showed: asked for before anything connects.
    if (confirmed === null && parsed.transport === 'ssh') throw new BadRequestError(CATALOG_TEXT.hostKeyFingerprint);
    await admit();
    const [address] = await deps.access.egress.resolveAllowed(parsed.host!);
    if (parsed.transport !== 'ssh') return { parsed, hostKey: null };
    const hostKey = await scan(address!, parsed.port ?? 22);
    if (!hostKey) throw new BadRequestError(CATALOG_TEXT.hostNoSshAnswer);
    return { parsed, hostKey };
  }

  function requireWrite(ctx: StaffCtx) {
    if (!staffMayWrite(ctx.scope.role)) throw new ForbiddenError(API_MESSAGES.staffReadOnly);
  }
  function record(
    ctx: StaffCtx,
    action: string,
    targetType: string,
    targetId: number,
    before: unknown,
    after: unknown,
    tx?: Parameters<Audit['record']>[1],
  ) {
    return audit.record(
      {
        companyId: ctx.companyId,
        actorUserId: ctx.scope.userId,
        action,
        targetType,
        targetId,
        before,
        after,
        requestId: ctx.requestId,
      },
      tx,
    );
  }
  async function providerList(resellerId: number): Promise<ResellerProvider[]> {
    const [rows, facts, hostCounts] = await Promise.all([
      repo.ownProviders(resellerId),
      repo.providerFacts(resellerId),
      hostsRepo.countByProvider(resellerId),
    ]);
    const count = (list: { providerId: number; n: number }[], id: number) =>
      list.find((c) => c.providerId === id)?.n ?? 0;
    return rows.map((p) => ({
      id: p.id,
      name: p.name,
      driver: p.driver,
      enabled: p.enabled,
      regionIds: facts.served
        .filter((o) => o.providerId === p.id)
        .map((o) => o.regionId)
        .sort((a, b) => a - b),
      hosts: count(hostCounts, p.id),
      vms: count(facts.vmCounts, p.id),
    }));
  }
  async function providerView(resellerId: number, id: number): Promise<ResellerProvider> {
    const found = (await providerList(resellerId)).find((p) => p.id === id);
    if (!found) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
    return found;
  }
  const providerFields = (p: ProviderRow) => ({ name: p.name, driver: p.driver, enabled: p.enabled });
  /** Names are the customer's choice in the create form: one reseller's providers have distinct names. */
  async function requireFreeName(resellerId: number, name: string, self?: number) {
    const other = await repo.providerNamed(resellerId, name);
    if (other && other.id !== self) throw new ConflictError(CATALOG_TEXT.providerNameTaken);
  }
  /** Two saves of one name at once both pass the check above; the unique index refuses the second (issue 21). */
  const nameTakenOnRace = (err: unknown): never => {
    if (databaseErrorOf(err)?.code === SQLSTATE.uniqueViolation)
      throw new ConflictError(CATALOG_TEXT.providerNameTaken);
    throw err;
  };
  function toSize(
    size: { id: number; key: string; name: string; cpu: number; ram: number; disk: number },
    price: PriceRow | null,
    pricesSet: boolean,
  ): ResellerSize {
    return {
      id: size.id,
      key: size.key,
      name: size.name,
      cpu: size.cpu,
      ram: size.ram,
      disk: size.disk,
      offered: pricesSet ? (price?.offered ?? false) : true,
      monthlyPrice: price?.monthlyPrice ?? null,
      hourlyPrice: price?.hourlyPrice ?? null,
      snapshotLimit: price?.snapshotLimit ?? null,
      backupLimit: price?.backupLimit ?? null,
    };
  }
  async function hostView(resellerId: number, id: number): Promise<ResellerHost> {
    const row = await hostsRepo.ofReseller(resellerId, id);
    if (!row) throw new NotFoundError(CATALOG_TEXT.hostNotFound);
    return toHost(row);
  }
  function toHost(row: HostListRow): ResellerHost {
    const h = row.host;
    return {
      id: h.id,
      name: h.name,
      uri: h.uri,
      provider: row.provider,
      providerId: h.providerId,
      region: row.region,
      regionId: h.regionId,
      cpus: h.cpus,
      ramGb: h.ramGb,
      diskGb: h.diskGb,
      cpuOvercommit: h.cpuOvercommit,
      ramOvercommit: h.ramOvercommit,
      diskOvercommit: h.diskOvercommit,
      used: { vms: row.vms, cpu: row.cpu, ram: row.ram, disk: row.disk },
      enabled: h.enabled,
      draining: h.draining,
      backupConcurrency: h.backupConcurrency,
      health: healthOf(h),
      lastSeenAt: h.lastSeenAt ? iso(h.lastSeenAt) : null,
      lastError: h.lastError,
      hostKeyFingerprint: h.hostKey ? sshFingerprint(h.hostKey) : null,
    };
  }
  type StoredSettings = Record<string, unknown>;
  /** The reseller's part of a libvirt provider's settings, the driver's defaults filled in. */
  function settingsFields(stored: unknown) {
    const parsed = libvirtSettingsSchema.safeParse(stored ?? {});
    const s = parsed.success ? parsed.data : libvirtSettingsSchema.parse({});
    return {
      poolName: s.pool.name,
      networkName: s.network.name,
      publicNetworkName: s.publicNetwork?.name ?? null,
      publicNat: s.publicNat,
      images: Object.entries(s.images)
        .map(([image, volume]) => ({ image, volume }))
        .sort((a, b) => a.image.localeCompare(b.image)),
    };
  }
  /** As the portal shows them: each image with the regions of the provider that list it now. */
  async function settingsView(resellerId: number, id: number, stored: unknown): Promise<ProviderSettings> {
    const fields = settingsFields(stored);
    const { regionIds } = await providerView(resellerId, id);
    const [served, listed] = await Promise.all([repo.regionsByIds(regionIds), repo.imagesOf(regionIds)]);
    const regionName = new Map(served.map((r) => [r.id, r.name]));
    return {
      ...fields,
      images: fields.images.map((i) => ({
        ...i,
        regions: listed
          .filter((l) => l.name === i.image)
          .map((l) => regionName.get(l.regionId) ?? `Region ${l.regionId}`)
          .sort(),
      })),
    };
  }
  /**
   * One change to a reseller's libvirt provider's settings, under the provider row's lock: `edit` changes a copy of
   * the stored settings (only the reseller's fields: everything else stays as the operator left it), the result is
   * checked with the driver's own schema, written and audited. The registry makes the provider's drivers again
   * from the new settings at their next use (providers/registry.ts): no restart.
   */
  async function editSettings(
    ctx: StaffCtx,
    id: number,
    edit: (settings: StoredSettings, current: ReturnType<typeof settingsFields>, tx: Tx) => Promise<void> | void,
  ): Promise<ProviderSettings> {
    requireWrite(ctx);
    const resellerId = ctx.scope.resellerId;
    const saved = await db.transaction(async (tx) => {
      const row = await repo.lockProvider(tx, resellerId, id);
      if (!row) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
      if (row.driver !== 'libvirt') throw new BadRequestError(CATALOG_TEXT.settingsLibvirtOnly);
      const before = (row.settings ?? {}) as StoredSettings;
      const after = structuredClone(before);
      await edit(after, settingsFields(before), tx);
      if (!libvirtSettingsSchema.safeParse(after).success) throw new BadRequestError(API_MESSAGES.invalidRequest);
      if (JSON.stringify(after) === JSON.stringify(before)) return before;
      await repo.setProviderSettings(tx, id, after);
      await record(ctx, 'provider.settings.update', 'provider', id, settingsFields(before), settingsFields(after), tx);
      return after;
    });
    return settingsView(resellerId, id, saved);
  }

  /** The hosts service's own refusals (unreadable host, bad values) are the caller's bad input. */
  async function asBadRequest<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof HostInputError) throw new BadRequestError(err.message);
      if (err instanceof Error && err.name === 'ZodError') throw new BadRequestError(API_MESSAGES.invalidRequest);
      throw err;
    }
  }

  return {
    /** The reseller's prices per GB-month of snapshots and backups (issue 24 item 4; null: no price). */
    async storagePrices(scope: StaffScope): Promise<StoragePrices> {
      const [prices, currency] = await Promise.all([
        repo.storagePrices(db, scope.resellerId),
        repo.currency(scope.resellerId),
      ]);
      return { currency, ...prices };
    },

    /** Sets both storage prices at once (null removes one), audited as catalog.storage.save with before and after. */
    async saveStoragePrices(ctx: StaffCtx, body: StoragePricesBody): Promise<StoragePrices> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      const saved = await db.transaction(async (tx) => {
        const before = await repo.storagePrices(tx, resellerId, true);
        await repo.saveStoragePrices(tx, resellerId, body);
        const after = await repo.storagePrices(tx, resellerId);
        await record(ctx, 'catalog.storage.save', 'reseller', resellerId, before, after, tx);
        return after;
      });
      return { currency: await repo.currency(resellerId), ...saved };
    },

    async sizes(scope: StaffScope) {
      const [rows, currency] = await Promise.all([repo.sizes(scope.resellerId), repo.currency(scope.resellerId)]);
      const pricesSet = rows.some((r) => r.price !== null);
      return { currency, pricesSet, sizes: rows.map((r) => toSize(r.size, r.price, pricesSet)) };
    },

    /**
     * Prices a size and offers or withdraws it; the price row stays when withdrawn, for the VMs already billed at it.
     * Its snapshot limit (decision 0019) and backup limit (0021) are set with it, or kept when the body leaves them out.
     */
    async saveSize(ctx: StaffCtx, configurationId: number, offer: SizeOffer): Promise<ResellerSize> {
      requireWrite(ctx);
      const size = await repo.size(configurationId);
      if (!size) throw new NotFoundError(CATALOG_TEXT.sizeNotFound);
      const resellerId = ctx.scope.resellerId;
      const saved = await db.transaction(async (tx) => {
        const before = await repo.price(tx, resellerId, configurationId);
        const saved = await repo.savePrice(tx, { resellerId, configurationId, ...offer });
        await audit.record(
          {
            companyId: ctx.companyId,
            actorUserId: ctx.scope.userId,
            action: 'catalog.size.save',
            targetType: 'configuration',
            targetId: configurationId,
            before: before && {
              monthlyPrice: before.monthlyPrice,
              hourlyPrice: before.hourlyPrice,
              offered: before.offered,
              snapshotLimit: before.snapshotLimit,
              backupLimit: before.backupLimit,
            },
            after: {
              monthlyPrice: saved.monthlyPrice,
              hourlyPrice: saved.hourlyPrice,
              offered: saved.offered,
              snapshotLimit: saved.snapshotLimit,
              backupLimit: saved.backupLimit,
            },
            requestId: ctx.requestId,
          },
          tx,
        );
        return saved;
      });
      return toSize(size, saved, true);
    },

    async regions(scope: StaffScope) {
      const [rows, ownProviders, counts, withdrawn] = await Promise.all([
        repo.servedRegions(scope.resellerId),
        repo.hasOwnProviders(scope.resellerId),
        hostsRepo.countByRegion(scope.resellerId),
        repo.withdrawnImages(scope.resellerId),
      ]);
      const byId = new Map<
        number,
        {
          id: number;
          name: string;
          country: string;
          providers: string[];
          images: string[];
          withdrawnImages: string[];
          hosts: number;
        }
      >();
      for (const r of rows) {
        const region = byId.get(r.id) ?? {
          id: r.id,
          name: r.name,
          country: r.country,
          providers: [],
          images: [],
          withdrawnImages: [],
          hosts: 0,
        };
        region.providers.push(r.provider);
        byId.set(r.id, region);
      }
      for (const image of await repo.imagesOf([...byId.keys()])) byId.get(image.regionId)?.images.push(image.name);
      // Only withdrawals of images the pools still hold are shown (one may come back: the row stays).
      for (const w of withdrawn) {
        const region = byId.get(w.regionId);
        if (region?.images.includes(w.image)) region.withdrawnImages.push(w.image);
      }
      for (const c of counts) {
        const region = byId.get(c.regionId);
        if (region) region.hosts = c.n;
      }
      const names = [...new Set([...byId.values()].flatMap((r) => r.images))].sort();
      const descriptions = await repo.imageDescriptions(scope.resellerId, names);
      return { ownProviders, regions: [...byId.values()], descriptions };
    },

    /**
     * The reseller's own description of an image of its regions (decision 0018), or none (its customers then see the
     * platform's). Only images its regions list: another reseller's or an unknown name is not found.
     */
    async describeImage(ctx: StaffCtx, input: ImageDescribe) {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      const listed = await this.regions(ctx.scope);
      if (!listed.regions.some((r) => r.images.includes(input.image)))
        throw new NotFoundError(CATALOG_TEXT.imageNotFound);
      await db.transaction(async (tx) => {
        const { before } = await repo.saveImageDescription(tx, resellerId, input.image, input.description);
        // By name, as the description is kept (no images row: it holds in every region).
        await audit.record(
          {
            companyId: ctx.companyId,
            actorUserId: ctx.scope.userId,
            action: 'catalog.image.describe',
            targetType: 'image',
            targetId: input.image,
            before,
            after: input.description,
            requestId: ctx.requestId,
          },
          tx,
        );
      });
      return this.regions(ctx.scope);
    },

    /** Offers or withdraws an image of a region's pools; the answer is the regions list it changes. */
    async saveImage(ctx: StaffCtx, offer: ImageOffer) {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      if (!(await repo.region(offer.regionId))) throw new NotFoundError(CATALOG_TEXT.regionNotFound);
      const image = await repo.image(offer.regionId, offer.image);
      if (!image) throw new NotFoundError(CATALOG_TEXT.imageNotFound);
      await db.transaction(async (tx) => {
        const { wasWithdrawn } = await repo.setImageWithdrawn(
          tx,
          resellerId,
          offer.regionId,
          offer.image,
          !offer.offered,
        );
        const target = { regionId: offer.regionId, image: offer.image };
        await record(
          ctx,
          'catalog.image.save',
          'image',
          image.id,
          { ...target, offered: !wasWithdrawn },
          { ...target, offered: offer.offered },
          tx,
        );
      });
      return this.regions(ctx.scope);
    },

    // ---- the reseller's own providers ("clouds") ----
    async providers(scope: StaffScope) {
      const [providers, regions] = await Promise.all([providerList(scope.resellerId), repo.regionsWithCountry()]);
      return { providers, regions };
    },

    async createProvider(ctx: StaffCtx, input: ProviderInput): Promise<ResellerProvider> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      await requireFreeName(resellerId, input.name);
      const created = await db
        .transaction(async (tx) => {
          const row = await repo.insertProvider(tx, { resellerId, ...input });
          await record(ctx, 'provider.create', 'provider', row.id, null, providerFields(row), tx);
          return row;
        })
        .catch(nameTakenOnRace);
      return providerView(resellerId, created.id);
    },

    async updateProvider(ctx: StaffCtx, id: number, patch: ProviderUpdate): Promise<ResellerProvider> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      if (!(await repo.provider(resellerId, id))) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
      if (Object.keys(patch).length === 0) throw new BadRequestError(CATALOG_TEXT.noChange);
      if (patch.name !== undefined) await requireFreeName(resellerId, patch.name, id);
      await db
        .transaction(async (tx) => {
          const before = await repo.lockProvider(tx, resellerId, id);
          if (!before) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
          // Hosts and VMs were made by the old driver: another one would not know them.
          if (patch.driver !== undefined && patch.driver !== before.driver && (await repo.providerInUse(tx, id)))
            throw new ConflictError(CATALOG_TEXT.driverLocked);
          const after = await repo.updateProvider(tx, id, patch);
          await record(ctx, 'provider.update', 'provider', id, providerFields(before), providerFields(after), tx);
        })
        .catch(nameTakenOnRace);
      return providerView(resellerId, id);
    },

    /**
     * The regions a provider serves: each with every size (provider_offerings), so its customers can create there.
     * A region that still has live VMs of the provider is not dropped (409): they would lose their place in the
     * catalog while running.
     */
    async setProviderRegions(ctx: StaffCtx, id: number, regionIds: number[]): Promise<ResellerProvider> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      if (!(await repo.provider(resellerId, id))) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
      const known = await repo.regionsByIds(regionIds);
      if (known.length !== regionIds.length) throw new NotFoundError(CATALOG_TEXT.regionNotFound);
      await db.transaction(async (tx) => {
        const provider = await repo.lockProvider(tx, resellerId, id);
        if (!provider) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
        const before = await repo.servedRegionIds(tx, id);
        for (const regionId of before.filter((r) => !regionIds.includes(r))) {
          const vms = await repo.liveVms(tx, id, regionId);
          if (vms > 0) {
            const region = (await repo.regionsByIds([regionId], tx))[0]?.name ?? `Region ${regionId}`;
            throw new ConflictError(regionInUseText(region, provider.name, vms));
          }
        }
        await repo.setOfferings(tx, id, regionIds);
        const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
        await record(
          ctx,
          'provider.regions',
          'provider',
          id,
          { regionIds: sorted(before) },
          { regionIds: sorted(regionIds) },
          tx,
        );
      });
      return providerView(resellerId, id);
    },

    /** A libvirt provider's settings the reseller manages (owners and support read them). */
    async providerSettings(scope: StaffScope, id: number): Promise<ProviderSettings> {
      const row = await repo.provider(scope.resellerId, id);
      if (!row) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
      if (row.driver !== 'libvirt') throw new BadRequestError(CATALOG_TEXT.settingsLibvirtOnly);
      return settingsView(scope.resellerId, id, row.settings);
    },

    /**
     * The pool and network names and the public addresses' way. The names are where the provider's machines' disks
     * and addresses live: they do not change while it has live VMs (409); a host made no machine yet takes new names.
     */
    async saveProviderSettings(ctx: StaffCtx, id: number, patch: ProviderSettingsUpdate): Promise<ProviderSettings> {
      if (Object.keys(patch).length === 0) {
        requireWrite(ctx);
        throw new BadRequestError(CATALOG_TEXT.noChange);
      }
      return editSettings(ctx, id, async (settings, current, tx) => {
        const moves =
          (patch.poolName !== undefined && patch.poolName !== current.poolName) ||
          (patch.networkName !== undefined && patch.networkName !== current.networkName) ||
          (patch.publicNetworkName !== undefined && patch.publicNetworkName !== current.publicNetworkName);
        if (moves && (await repo.providerLiveVms(tx, id)) > 0) throw new ConflictError(CATALOG_TEXT.settingsInUse);
        const nested = (key: string) => {
          const value = settings[key];
          return value && typeof value === 'object' && !Array.isArray(value) ? (value as StoredSettings) : {};
        };
        if (patch.poolName !== undefined) settings.pool = { ...nested('pool'), name: patch.poolName };
        if (patch.networkName !== undefined) settings.network = { ...nested('network'), name: patch.networkName };
        if (patch.publicNetworkName === null) delete settings.publicNetwork;
        else if (patch.publicNetworkName !== undefined) settings.publicNetwork = { name: patch.publicNetworkName };
        if (patch.publicNat !== undefined) settings.publicNat = patch.publicNat;
      });
    },

    /** Adds, repoints or removes (volume null) one image of a provider's map. */
    async saveProviderImage(ctx: StaffCtx, id: number, input: ProviderImage): Promise<ProviderSettings> {
      return editSettings(ctx, id, (settings) => {
        const stored = settings.images;
        const map: Record<string, unknown> =
          stored && typeof stored === 'object' && !Array.isArray(stored) ? { ...(stored as StoredSettings) } : {};
        const known = Object.hasOwn(map, input.image);
        if (input.volume === null) {
          if (!known) throw new NotFoundError(CATALOG_TEXT.providerImageNotFound);
          delete map[input.image];
        } else {
          if (!known && Object.keys(map).length >= PROVIDER_IMAGES_MAX)
            throw new BadRequestError(CATALOG_TEXT.providerImagesLimit);
          map[input.image] = input.volume;
        }
        settings.images = map;
      });
    },

    async hosts(scope: StaffScope) {
      const [rows, providers, regions, publicKey] = await Promise.all([
        hostsRepo.list({ resellerId: scope.resellerId }),
        repo.libvirtProviders(scope.resellerId),
        repo.allRegions(),
        deps.keys.publicKey(scope.resellerId),
      ]);
      return { hosts: rows.map(toHost), providers, regions, publicKey };
    },

    /** Validates a URI and, over qemu+ssh, reads the host's key for the reseller to compare before registering. */
    async checkHost(ctx: StaffCtx, input: HostCheck, admit: Admit = noLimit): Promise<HostCheckResult> {
      requireWrite(ctx);
      const { hostKey } = await inspect(input.uri, admit);
      const publicKey = await deps.keys.publicKey(ctx.scope.resellerId);
      return { publicKey, hostKey, fingerprint: hostKey && sshFingerprint(hostKey) };
    },

    /** Removes a host of the reseller's providers that runs no live VM (409 while it does). */
    async deleteHost(ctx: StaffCtx, id: number): Promise<{ id: number }> {
      requireWrite(ctx);
      const row = await hostsRepo.ofReseller(ctx.scope.resellerId, id);
      if (!row) throw new NotFoundError(CATALOG_TEXT.hostNotFound);
      const { removed, liveVms } = await deps.hosts.removeById(id);
      if (liveVms > 0) throw new ConflictError(hostInUseText(liveVms));
      if (!removed) throw new NotFoundError(CATALOG_TEXT.hostNotFound);
      await record(ctx, 'host.remove', 'host', id, { name: row.host.name, uri: row.host.uri }, null);
      return { id };
    },

    async registerHost(ctx: StaffCtx, input: HostRegistration, admit: Admit = noLimit): Promise<ResellerHost> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      // Another reseller's provider is not found, like anything else of theirs.
      if (!(await repo.provider(resellerId, input.providerId))) throw new NotFoundError(CATALOG_TEXT.providerNotFound);
      if (!(await repo.region(input.regionId))) throw new NotFoundError(CATALOG_TEXT.regionNotFound);
      // The hosts service updates a host of the same name; only the reseller's own may be updated that way.
      const existing = await hostsRepo.ownerByName(input.name);
      if (existing && existing.resellerId !== resellerId) throw new ConflictError(CATALOG_TEXT.hostNameTaken);
      // The URI is checked and, over qemu+ssh, the host's key read again: pinned only if it is the one the reseller saw.
      const { parsed, hostKey } = await inspect(input.uri, admit, input.hostKeyFingerprint ?? null);
      if (parsed.transport === 'ssh' && sshFingerprint(hostKey!) !== input.hostKeyFingerprint)
        throw new BadRequestError(CATALOG_TEXT.hostKeyChanged);
      const { providerId, regionId, hostKeyFingerprint: _confirmed, ...rest } = input;
      const result = await asBadRequest(() =>
        deps.hosts.add({ ...rest, provider: providerId, region: regionId }, { hostKey }),
      );
      await record(ctx, existing ? 'host.update' : 'host.register', 'host', result.host.id, null, {
        name: result.host.name,
        uri: result.host.uri,
        providerId,
        regionId,
        cpus: result.host.cpus,
        ramGb: result.host.ramGb,
        diskGb: result.host.diskGb,
      });
      return hostView(resellerId, result.host.id);
    },

    async updateHost(ctx: StaffCtx, id: number, patch: HostUpdate): Promise<ResellerHost> {
      requireWrite(ctx);
      const resellerId = ctx.scope.resellerId;
      if (!(await hostsRepo.ofReseller(resellerId, id))) throw new NotFoundError(CATALOG_TEXT.hostNotFound);
      if (Object.keys(patch).length === 0) throw new BadRequestError(CATALOG_TEXT.noChange);
      const result = await asBadRequest(() => deps.hosts.update(id, patch));
      if (!result) throw new NotFoundError(CATALOG_TEXT.hostNotFound);
      const keys = Object.keys(patch) as (keyof HostUpdate)[];
      const pick = (h: HostRow) => Object.fromEntries(keys.map((k) => [k, h[k]]));
      await record(ctx, 'host.update', 'host', id, pick(result.before), pick(result.after));
      if (patch.draining === true && !result.before.draining) deps.onDraining?.();
      return hostView(resellerId, id);
    },
  };
}
export type CatalogService = ReturnType<typeof createCatalogService>;
