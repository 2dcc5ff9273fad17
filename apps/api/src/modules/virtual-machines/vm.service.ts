/** Virtual machines: the catalog, reads with usage, and actions recorded as durable operations. */
import { VM_SIZE_KEYS, VM_STATUSES, type VmSizeKey } from '@portal/contract/constants';
import {
  VM_BULK_LIMIT,
  VM_BULK_TEXT,
  type vmActionRoutes,
  type VmBulkAction,
  type VmBulkOutcome,
  type VmMetricsRange,
} from '@portal/contract/virtual-machines';
import { CATALOG_TEXT } from '@portal/contract/reseller-catalog';
import { DEFAULT_IMAGE_USER, imageDiskTooSmallText } from '@portal/contract/images';
import { OPERATIONS, VM_ACTIONS, type Operation } from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { API_MESSAGES, SIZE_TEXT, SSH_KEY_TEXT, TEXT } from '@portal/contract/messages';
import { userDataKind } from '@portal/contract/ssh-keys';
import { sshFingerprint } from '../../lib/ssh-keys.ts';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ProviderUnavailableError,
} from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { Duplex } from 'node:stream';
import type { ConsoleKind } from '../../providers/provider.ts';
import { roleLetsView, vmPermissionsOf } from '../access/vm-visibility.ts';
import type { VmListFilters, VmRepository, VmRow } from './vm.repository.ts';
import { AppError } from '../../lib/errors.ts';
import { publishVm } from '../../engine/vm-events.ts';
import {
  hostLoadsUnlocked,
  placementOutlook,
  placeVm,
  refuseGrowthWithoutRoom,
  runsOnlyOnHosts,
} from '../../engine/placement.ts';
import { asOpenSshPrivateKey, generateCredentials } from '../../engine/vm-secrets.ts';
import { quotaRefusal } from '../../db/quotas.ts';
import { sumDecimals, utcMonthStart } from '../../db/priced-usage.ts';
import type { Tx } from '../../db/client.ts';
import { createVmGuards } from './vm-guards.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'audit' | 'clock' | 'log' | 'engine'> & {
  repo: VmRepository;
};
/** The caller: tenant scope, request id, and the reseller whose catalog applies (docs/decisions/0012). */
type Ctx = { scope: TenantScope; requestId: string; resellerId: number };
/** The actions that are one payload-less operation on one VM (each has a route in vmActionRoutes). */
export type VmOperationAction = keyof typeof vmActionRoutes;

/** What the console keeps of its VM: enough to check access again while it is open. */
export interface ConsoleVm {
  id: number;
  name: string;
  companyId: number;
  teamId: number | null;
  createdByUserId: number | null;
}

export { BUSY_MESSAGE } from './vm-guards.ts';

export function createVmService(deps: Deps) {
  const { db, access, audit, repo, engine } = deps;
  const { loadVisible, requireAvailable, enqueue } = createVmGuards({ access, engine, vms: repo });
  /** The host a VM was placed on (null for VMs of providers without hosts). */
  const hostOf = (id: number | null) => (id === null ? null : engine.hostsRepository.byId(id));

  /** Who read a VM's credentials (the activity log): a read that hands out a secret is worth knowing. */
  async function recordSecretRead(scope: TenantScope, vm: VmRow, action: string, requestId?: string) {
    await audit.record({
      companyId: scope.companyId,
      actorUserId: scope.userId,
      action,
      targetType: 'vm',
      targetId: vm.id,
      after: { name: vm.name },
      ...(requestId ? { requestId } : {}),
    });
  }

  /** This UTC month so far of the machines the caller sees (or one of them), priced as billing's usage prices it. */
  async function monthSpend(scope: TenantScope, resellerId: number, now: Date, vmId?: number) {
    const from = utcMonthStart(now);
    const [lines, storage, currency] = await Promise.all([
      repo.monthLines(scope, from, now, vmId),
      repo.monthStorageLines(scope, from, now, vmId),
      repo.currency(resellerId),
    ]);
    // Snapshots and backups kept count too (issue 24 item 4), by storage's rule: the figure is the invoice's.
    const storageAmount = sumDecimals(storage.map((l) => l.amount));
    return {
      month: from.toISOString().slice(0, 7),
      currency,
      hours: sumDecimals(lines.map((l) => l.hours)),
      amount: sumDecimals([...lines.map((l) => l.amount), storageAmount]),
      unpriced: lines.filter((l) => l.amount === null).length,
    };
  }

  /** 409 naming the limit when `adding` would pass the company's or the team's quota. */
  async function refuseOverQuota(...args: Parameters<typeof quotaRefusal>) {
    const refusal = await quotaRefusal(...args);
    if (refusal) throw new ConflictError(refusal);
  }

  /**
   * The login a machine of this image gets (its description's default user; root when undescribed), after the
   * image's minimum disk is checked against the size's (400 naming both; decision 0018).
   */
  async function imageLogin(resellerId: number, image: string, diskGb: number): Promise<string> {
    const description = (await repo.imageDescriptions(resellerId, [image])).get(image) ?? null;
    if (description && diskGb < description.minDiskGb)
      throw new BadRequestError(imageDiskTooSmallText(image, description.minDiskGb, diskGb));
    return description?.defaultUser ?? DEFAULT_IMAGE_USER;
  }

  /** An action that is one operation with no payload: permission, status and operation from the table. */
  async function simpleAction(
    ctx: Ctx,
    id: number,
    action: VmOperationAction,
    options: { keepBackups?: boolean } = {},
  ) {
    const def = VM_ACTIONS[action];
    const vm = await loadVisible(ctx.scope, id, def.permission);
    requireAvailable(vm, action);
    // A delete keeps the VM's backups when asked (issue 24 item 2); otherwise they go with it.
    const operation: Operation =
      def.operation === 'delete'
        ? { kind: 'delete', payload: options.keepBackups ? { keepBackups: true } : {} }
        : { kind: def.operation, payload: {} };
    await enqueue(ctx, vm, operation);
  }

  return {
    // ---- catalog ----
    countries: (resellerId: number) => repo.countries(resellerId),
    regions: (countryId: number, resellerId: number) => repo.regions(countryId, resellerId),
    cities: (regionId: number) => repo.cities(regionId),
    images: (regionId: number, resellerId: number) => repo.images(regionId, resellerId),
    /** listImages' images with what each is (decision 0018). */
    async imageDetails(regionId: number, resellerId: number) {
      const names = await repo.images(regionId, resellerId);
      const described = await repo.imageDescriptions(resellerId, names);
      return names.map((name) => ({ name, description: described.get(name) ?? null }));
    },
    async region(id: number) {
      const region = await repo.region(id);
      if (!region) throw new NotFoundError('Region not found');
      return region;
    },
    /** The sizes the caller's reseller offers (all while it has priced none). */
    configurations: async (resellerId: number) => (await repo.configurations(resellerId)).map(toConfiguration),
    /**
     * Every offered size of a region with the reseller's prices and whether a create of it would go through now
     * (issue 25 item 3): a provider of the caller's runs it there, the image (when given) fits its disk, and
     * placement finds a host with room (placeVm's rule, read without locks: the create decides again under them).
     * The reason of an unavailable size names no host. A size no provider runs there stays listed (the spec's chain
     * answers it with an empty provider list and its message).
     */
    regionConfigurations: async (regionId: number, resellerId: number, image?: string) => {
      const region = await repo.region(regionId);
      if (!region) throw new NotFoundError('Region not found');
      const [{ sizes, offerings }, described] = await Promise.all([
        repo.regionSizes(resellerId, regionId),
        image ? repo.imageDescriptions(resellerId, [image]) : undefined,
      ]);
      const minDiskGb = (image && described?.get(image)?.minDiskGb) || 0;
      const loads = await hostLoadsUnlocked(db, [...new Set(offerings.map((o) => o.providerId))], regionId);
      return sizes.map(({ monthlyPrice, hourlyPrice, currency, ...size }) => {
        const runs = offerings.filter((o) => o.configurationId === size.id);
        const outlooks = runs.map((p) => placementOutlook(loads.get(p.providerId) ?? [], size, runsOnlyOnHosts(p)));
        const unavailableReason =
          runs.length === 0
            ? TEXT.noProvider
            : size.disk < minDiskGb
              ? SIZE_TEXT.cardImageDisk(image!, minDiskGb)
              : outlooks.includes(null)
                ? null
                : outlooks.every((o) => o === 'tooLarge')
                  ? SIZE_TEXT.cardTooLarge(region.name)
                  : SIZE_TEXT.cardNoRoom(region.name);
        return {
          ...toConfiguration(size),
          monthlyPrice,
          hourlyPrice,
          currency: currency ?? 'USD',
          available: unavailableReason === null,
          unavailableReason,
        };
      });
    },
    providers: (regionId: number, resellerId: number, configurationId?: number) =>
      repo.providersFor(resellerId, regionId, configurationId),

    // ---- reads ----
    async list(
      scope: TenantScope,
      q: {
        page: number;
        rowsPerPage: number;
        sortColumn?: 'name' | 'configuration' | undefined;
        sortDescending?: 'true' | 'false' | undefined;
      } & VmListFilters,
    ) {
      if (q.teamId) await access.requireTeam(scope, q.teamId, 'vm.view');
      const { rows, total } = await repo.list(scope, { ...q, descending: q.sortDescending === 'true' });
      return {
        data: rows.map(({ roleId, createdByUserId, ...r }) => ({
          ...r,
          createdAt: iso(r.createdAt),
          bootStartedAt: r.bootStartedAt && iso(r.bootStartedAt),
          permissions: vmPermissionsOf(scope, { teamId: r.teamId, createdByUserId }, roleId),
        })),
        totalPages: totalPages(total, q.rowsPerPage),
      };
    },

    /** The regions and teams of the VMs the caller sees: the list's filters. */
    facets: (scope: TenantScope) => repo.facets(scope),

    /**
     * Start, stop or delete several VMs (issue 25 item 2): the chosen ids, or every VM the caller sees that matches
     * the list's filters (at most VM_BULK_LIMIT; more is a 400 asking to narrow them). Each VM goes through the same
     * checks as its own route (visibility, role, status, busy, suspension), one after the other; a refusal is that
     * VM's outcome with the reason, never the whole call's. An id the caller does not see (another company's, a
     * deleted one) is refused as not found and nothing is done to it.
     */
    async bulk(
      ctx: Ctx,
      body: {
        action: VmBulkAction;
        ids?: number[] | undefined;
        matching?: VmListFilters | undefined;
        keepBackups?: boolean | undefined;
      },
    ) {
      let ids: number[];
      if (body.ids) ids = [...new Set(body.ids)];
      else {
        const f = body.matching!;
        if (f.teamId) await access.requireTeam(ctx.scope, f.teamId, 'vm.view');
        ids = await repo.matchingIds(ctx.scope, f, VM_BULK_LIMIT + 1);
        if (ids.length > VM_BULK_LIMIT) throw new BadRequestError(VM_BULK_TEXT.tooMany);
      }
      const def = VM_ACTIONS[body.action];
      const teamNames = new Map<number, string | null>();
      const outcomes: VmBulkOutcome[] = [];
      for (const id of ids) {
        const vm = await repo.byId(id);
        try {
          await simpleAction(ctx, id, body.action, { keepBackups: body.keepBackups === true });
          outcomes.push({ id, name: vm!.name, outcome: 'done', reason: null });
        } catch (err) {
          if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
          if (err instanceof NotFoundError || !vm) {
            outcomes.push({ id, name: null, outcome: 'refused', reason: VM_BULK_TEXT.notFound });
            continue;
          }
          let reason = err.message;
          // The role's refusal names the team, so the summary says which VMs the caller may not act on and why.
          if (err instanceof ForbiddenError && vm.teamId !== null && err.message !== API_MESSAGES.companySuspended) {
            if (!teamNames.has(vm.teamId)) teamNames.set(vm.teamId, await repo.teamName(vm.teamId));
            reason = VM_BULK_TEXT.roleLacks(def.label.toLowerCase(), teamNames.get(vm.teamId) ?? '');
          }
          outcomes.push({ id, name: vm.name, outcome: 'refused', reason });
        }
      }
      const done = outcomes.filter((o) => o.outcome === 'done').length;
      return { action: body.action, done, refused: outcomes.length - done, outcomes };
    },

    async details(scope: TenantScope, id: number) {
      // Visibility is part of the statement; a team member's role must still let them view (access.requireVm's rule).
      const row = await repo.visibleDetails(scope, id);
      if (!row || !roleLetsView(scope, row.vm, row.roleId)) throw new NotFoundError('Virtual machine not found');
      const { vm, configuration } = row;
      const running = vm.status === 'Running' && vm.providerRef !== null;
      let usage = { cpuUsage: 0, ramUsage: 0 };
      // The engine's latest sample (its host is asked once per pass for all its machines): no call to the host here.
      if (running && row.sampleCpuPercent !== null)
        usage = {
          cpuUsage: Number(row.sampleCpuPercent),
          ramUsage:
            row.sampleMemoryBytes === null ? 0 : Math.round((Number(row.sampleMemoryBytes) / 1024 ** 3) * 100) / 100,
        };
      return {
        virtualMachine: {
          id: vm.id,
          name: vm.name,
          configuration: configuration.name,
          configurationId: configuration.id,
          country: row.country,
          region: row.region,
          regionId: vm.regionId,
          image: vm.image,
          createdAt: iso(vm.createdAt),
          updatedAt: iso(vm.updatedAt),
          cpu: configuration.cpu,
          ram: configuration.ram,
          disk: configuration.disk,
          teamId: vm.teamId,
          network: { publicIp: vm.publicIp, privateIp: vm.privateIp },
        },
        status: vm.status,
        bootStartedAt: vm.bootStartedAt && iso(vm.bootStartedAt),
        consoleAvailable: running,
        usage,
        errorReason: vm.errorReason,
        pendingOperation: row.pendingOperation,
        permissions: vmPermissionsOf(scope, vm, row.roleId),
        access: {
          sshUsername: vm.sshUsername,
          keys: [
            ...(vm.publicKey
              ? [{ name: SSH_KEY_TEXT.portalKey, fingerprint: sshFingerprint(vm.publicKey), portal: true }]
              : []),
            ...vm.sshKeys.map((k) => ({ name: k.name, fingerprint: k.fingerprint, portal: false })),
          ],
          userData: vm.userData === null ? null : describeUserData(engine.secrets.open(vm.userData)),
        },
      };
    },

    /** The VM's graphs' points and this month's traffic, for whoever may view it (engine/metrics). */
    async metrics(scope: TenantScope, id: number, range: VmMetricsRange) {
      const vm = await loadVisible(scope, id, 'vm.view');
      return engine.metrics.history(vm.id, range);
    },

    async dashboard(scope: TenantScope) {
      const now = deps.clock.now();
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const prevStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
      const yearStart = new Date(Date.UTC(now.getUTCFullYear(), 0, 1));
      const [current, previous, ytd] = await Promise.all([
        repo.countsBySize(scope, monthStart, now),
        repo.countsBySize(scope, prevStart, monthStart),
        repo.countsBySize(scope, yearStart, now),
      ]);
      const counts = (m: Map<string, number>) =>
        Object.fromEntries(VM_SIZE_KEYS.map((k) => [k, m.get(k) ?? 0])) as Record<VmSizeKey, number>;
      return { currentMonth: counts(current), previousMonth: counts(previous), ytd: counts(ytd) };
    },

    /** The dashboard's summary: the caller's machines by status and their spend this month so far (billing's rule). */
    async dashboardSummary(scope: TenantScope, resellerId: number) {
      const now = deps.clock.now();
      const [byStatus, spend] = await Promise.all([repo.countsByStatus(scope), monthSpend(scope, resellerId, now)]);
      const statuses = VM_STATUSES.filter((s) => byStatus.get(s)).map((s) => ({ status: s, count: byStatus.get(s)! }));
      return { total: statuses.reduce((n, s) => n + s.count, 0), statuses, spend };
    },

    /** One VM's month so far: its cost by billing's rule and its network traffic (engine/metrics). */
    async monthToDate(scope: TenantScope, resellerId: number, id: number) {
      const vm = await loadVisible(scope, id, 'vm.view');
      const [spend, traffic] = await Promise.all([
        monthSpend(scope, resellerId, deps.clock.now(), vm.id),
        engine.metrics.monthTraffic(vm.id),
      ]);
      return { ...spend, traffic: { rxBytes: traffic.rxBytes, txBytes: traffic.txBytes } };
    },

    async password(scope: TenantScope, id: number, requestId?: string) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      if (vm.sshPassword) await recordSecretRead(scope, vm, 'vm.password.view', requestId);
      return { sshPassword: vm.sshPassword ? engine.secrets.open(vm.sshPassword) : '' };
    },
    async privateKey(scope: TenantScope, id: number, requestId?: string) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      if (!vm.privateKey) throw new NotFoundError('This virtual machine has no key');
      await recordSecretRead(scope, vm, 'vm.accessKey.download', requestId);
      return { privateKey: asOpenSshPrivateKey(engine.secrets.open(vm.privateKey), vm.name.replace(/[^\w.@-]/g, '_')) };
    },
    async access(scope: TenantScope, id: number) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      return { username: vm.sshUsername, host: vm.publicIp, port: 22, publicKey: vm.publicKey ?? '' };
    },
    /** For the console: the VM must be visible, operable and running. */
    async consoleTarget(scope: TenantScope, id: number) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      if (vm.status !== 'Running' || !vm.providerRef) throw new ConflictError('Console is currently unavailable');
      return vm;
    },
    /** The live consoles a machine's driver offers (no host call: the channels are opened later, at connect). */
    async consoleKinds(vm: VmRow) {
      const all: ConsoleKind[] = ['vnc', 'serial'];
      try {
        const driver = engine.registry.driverFor((await repo.provider(vm.providerId))!, await hostOf(vm.hostId));
        const channels = await driver.consoleChannels?.(vm.providerRef!);
        return all.filter((kind) => channels?.[kind]);
      } catch {
        // Not known now (host unreachable): offer both, and the socket's own answer says what went wrong.
        return all;
      }
    },
    async consoleText(vmId: number) {
      const vm = await repo.byId(vmId);
      if (!vm?.providerRef) throw new NotFoundError('Virtual machine not found');
      const provider = await repo.provider(vm.providerId);
      try {
        return {
          name: vm.name,
          text: await engine.registry.driverFor(provider!, await hostOf(vm.hostId)).console(vm.providerRef),
        };
      } catch {
        // The provider cannot give a console now (machine unknown to it, host down): the portal shows its failure text.
        throw new ProviderUnavailableError('Console is currently unavailable');
      }
    },

    /**
     * A live console stream of a VM the caller may operate (checked again here, at connect, not only when the
     * link was issued). Null when the VM's driver does not offer this kind.
     */
    async openConsole(
      scope: TenantScope,
      id: number,
      kind: ConsoleKind,
    ): Promise<{ vm: ConsoleVm; stream: Duplex } | null> {
      const vm = await loadVisible(scope, id, 'vm.operate');
      if (vm.status !== 'Running' || !vm.providerRef) throw new ConflictError('Console is currently unavailable');
      const provider = await repo.provider(vm.providerId);
      const host = await hostOf(vm.hostId);
      let stream: Duplex;
      try {
        // The machine's own host: with several hosts the provider's default URI may be another machine entirely.
        // A host URI its owner's policy refuses throws here, before anything runs.
        const driver = engine.registry.driverFor(provider!, host);
        const open = (await driver.consoleChannels?.(vm.providerRef))?.[kind];
        if (!open) return null;
        stream = await open();
      } catch (err) {
        // The reason (e.g. ssh's complaint about a tunnel) stays with the error for the log, not for the browser.
        throw Object.assign(new ProviderUnavailableError('Console is currently unavailable'), { cause: err });
      }
      return {
        vm: {
          id: vm.id,
          name: vm.name,
          companyId: vm.companyId,
          teamId: vm.teamId,
          createdByUserId: vm.createdByUserId,
        },
        stream,
      };
    },

    // ---- actions ----
    async create(
      ctx: Ctx,
      input: {
        regionId: number;
        image: string;
        configurationId: number;
        providerId: number;
        name: string;
        numberOfInstances: number;
        teamId?: number | null | undefined;
        sshKeyIds?: number[] | undefined;
        userData?: string | undefined;
        /**
         * A restore as a new VM (issue 24 item 2; backups.service.ts): the new machine's disk is this backup's;
         * `guard` runs in the create's transaction (the backup's row is marked restoring there).
         */
        fromBackup?: { backupId: number; providerName: string; guard: (tx: Tx) => Promise<void> };
      },
    ) {
      // A suspended company makes no machines, as it starts none (operations/enqueue.ts).
      if (await engine.operations.companySuspended(ctx.scope.companyId))
        throw new ForbiddenError(API_MESSAGES.companySuspended);
      const teamId = input.teamId ?? null;
      if (teamId !== null) await access.requireTeam(ctx.scope, teamId, 'vm.create');
      // A VM outside any team is its creator's: only someone who may create VMs somewhere makes one.
      else await access.requireInAnyTeam(ctx.scope, 'vm.create', 'You may not create virtual machines');
      const region = await repo.region(input.regionId);
      if (!region) throw new NotFoundError('Region not found');
      // A backup's disk is restored whatever the reseller offers of its image today.
      if (!input.fromBackup && !(await repo.imageOffered(ctx.resellerId, input.regionId, input.image)))
        throw new BadRequestError(CATALOG_TEXT.imageNotOffered);
      if (!(await repo.configuration(input.configurationId))) throw new NotFoundError('Configuration not found');
      // The caller's own keys only (issue 23 item 5), copied onto each VM: removing one from the store later does not
      // change what the machine was built with. Another user's id reads as missing.
      const keyIds = [...new Set(input.sshKeyIds ?? [])];
      const found = keyIds.length ? await repo.ownSshKeys(ctx.scope.userId, keyIds) : [];
      if (found.length !== keyIds.length) throw new BadRequestError(SSH_KEY_TEXT.keyNotYours);
      const sshKeys = keyIds.map((id) => found.find((k) => k.id === id)!).map(({ id: _id, ...copy }) => copy);
      const userData = input.userData ? input.userData : null;
      if (!(await repo.sizeOffered(ctx.resellerId, input.configurationId)))
        throw new BadRequestError(CATALOG_TEXT.sizeNotOffered);
      const names =
        input.numberOfInstances === 1
          ? [input.name]
          : Array.from({ length: input.numberOfInstances }, (_, i) => `${input.name}-${i + 1}`);
      const size = (await repo.configuration(input.configurationId))!;
      const sshUsername = await imageLogin(ctx.resellerId, input.image, size.disk);
      const created = await db.transaction(async (tx) => {
        // Quotas first (the company row's lock; db/quotas.ts): of racing creates, only those that fit get through.
        // numberOfInstances counts whole: a create of 3 with 2 left is refused.
        const n = names.length;
        await input.fromBackup?.guard(tx);
        await refuseOverQuota(tx, ctx.scope.companyId, teamId, {
          vms: n,
          vcpus: n * size.cpu,
          ramGb: n * size.ram,
          diskGb: n * size.disk,
        });
        // Checked under the provider's lock: a region dropped meanwhile is seen here (decision 0014).
        const held = await repo.holdProvider(tx, input.providerId);
        // A libvirt provider runs machines only on its hosts (never the portal's own libvirt, issue 21): without one
        // here it is full, unless it is the operator's and its settings name the host's URI.
        const needsHost = !!held && runsOnlyOnHosts(held);
        if (!(await repo.offers(tx, ctx.resellerId, input.providerId, input.regionId, input.configurationId)))
          throw new BadRequestError('Chosen configuration has no possible provider');
        const rows: VmRow[] = [];
        const placed = new Map<number, { cpu: number; ram: number; disk: number }>();
        for (const name of names) {
          const host = await placeVm(tx, input.providerId, region, size, placed, needsHost);
          if (host) {
            const prev = placed.get(host.id) ?? { cpu: 0, ram: 0, disk: 0 };
            placed.set(host.id, { cpu: prev.cpu + size.cpu, ram: prev.ram + size.ram, disk: prev.disk + size.disk });
          }
          const creds = generateCredentials(name);
          const vm = await repo.insertVm(tx, {
            companyId: ctx.scope.companyId,
            teamId,
            createdByUserId: ctx.scope.userId,
            name,
            status: OPERATIONS.create.runningStatus,
            configurationId: input.configurationId,
            regionId: input.regionId,
            image: input.image,
            providerId: input.providerId,
            hostId: host?.id ?? null,
            sshPassword: engine.secrets.seal(creds.password),
            privateKey: engine.secrets.seal(creds.privateKeyOpenSsh),
            publicKey: creds.publicKeyOpenSsh,
            sshUsername,
            sshKeys,
            // Sealed like the password: a first-boot script often carries secrets.
            userData: userData === null ? null : engine.secrets.seal(userData),
          });
          const publicIp = await repo.allocatePublicAddress(tx, vm.id, input.regionId);
          if (publicIp) vm.publicIp = publicIp;
          await engine.operations.insert(tx, {
            vmId: vm.id,
            requestedByUserId: ctx.scope.userId,
            kind: 'create',
            payload: input.fromBackup
              ? { fromBackup: { backupId: input.fromBackup.backupId, providerName: input.fromBackup.providerName } }
              : {},
          });
          await audit.record(
            {
              companyId: ctx.scope.companyId,
              actorUserId: ctx.scope.userId,
              action: 'vm.create',
              targetType: 'vm',
              targetId: vm.id,
              after: {
                name,
                configurationId: input.configurationId,
                regionId: input.regionId,
                image: input.image,
                teamId,
                sshKeys: sshKeys.map((k) => k.fingerprint),
                userDataBytes: userData === null ? null : Buffer.byteLength(userData),
                ...(input.fromBackup ? { fromBackupId: input.fromBackup.backupId } : {}),
              },
              requestId: ctx.requestId,
            },
            tx,
          );
          rows.push(vm);
        }
        return rows;
      });
      for (const vm of created) publishVm(engine.events, vm);
      engine.kick();
      return { ids: created.map((v) => v.id) };
    },

    /** Start, stop, force stop, reset, delete: whatever vmActionRoutes declares. */
    act: simpleAction,
    async upgrade(ctx: Ctx, id: number, configurationId: number) {
      const vm = await loadVisible(ctx.scope, id, VM_ACTIONS.upgrade.permission);
      const [current, target] = await Promise.all([
        repo.configuration(vm.configurationId),
        repo.configuration(configurationId),
      ]);
      if (!target) throw new NotFoundError('Configuration not found');
      if (target.cpu <= current!.cpu)
        throw new BadRequestError('A VM can only be upgraded to a configuration with more CPU');
      if (!(await repo.sizeOffered(ctx.resellerId, configurationId)))
        throw new BadRequestError(CATALOG_TEXT.sizeNotOffered);
      if (!(await repo.offers(db, ctx.resellerId, vm.providerId, vm.regionId, configurationId)))
        throw new BadRequestError("The VM's provider does not offer this configuration in its region");
      requireAvailable(vm, 'upgrade');
      // What the larger size adds, checked in the transaction that queues the upgrade: the quotas, then the room on
      // the VM's own host (the guest gets exactly the new size, issue 23 item 3).
      const growth = {
        vms: 0,
        vcpus: target.cpu - current!.cpu,
        ramGb: Math.max(0, target.ram - current!.ram),
        diskGb: Math.max(0, target.disk - current!.disk),
      };
      await enqueue(ctx, vm, { kind: VM_ACTIONS.upgrade.operation, payload: { configurationId } }, async (tx) => {
        await refuseOverQuota(tx, vm.companyId, vm.teamId, growth);
        await refuseGrowthWithoutRoom(tx, vm, current!, target);
      });
    },
    /**
     * Reinstall from an image of the VM's region (issue 23 item 6). The VM keeps its id, name, size, addresses, team
     * and the portal's password and key (what its users saved keeps working); the chosen keys (the caller's own, as
     * at create) replace the VM's, the user-data replaces or clears its own. Those are written on the VM in the
     * transaction that queues the operation, so the runner and a retry after a crash read them from there.
     */
    async rebuild(
      ctx: Ctx,
      id: number,
      input: { image: string; sshKeyIds?: number[] | undefined; userData?: string | undefined },
    ) {
      const vm = await loadVisible(ctx.scope, id, VM_ACTIONS.rebuild.permission);
      if (!(await repo.imageOffered(ctx.resellerId, vm.regionId, input.image)))
        throw new BadRequestError(CATALOG_TEXT.imageNotOffered);
      const keyIds = [...new Set(input.sshKeyIds ?? [])];
      const found = keyIds.length ? await repo.ownSshKeys(ctx.scope.userId, keyIds) : [];
      if (found.length !== keyIds.length) throw new BadRequestError(SSH_KEY_TEXT.keyNotYours);
      const sshKeys = keyIds.map((kid) => found.find((k) => k.id === kid)!).map(({ id: _id, ...copy }) => copy);
      const userData = input.userData ? input.userData : null;
      const size = await repo.configuration(vm.configurationId);
      const sshUsername = await imageLogin(ctx.resellerId, input.image, size!.disk);
      requireAvailable(vm, 'rebuild');
      const payload = {
        image: input.image,
        sshKeys: sshKeys.map((k) => k.fingerprint),
        userDataBytes: userData === null ? null : Buffer.byteLength(userData),
      };
      await enqueue(ctx, vm, { kind: VM_ACTIONS.rebuild.operation, payload }, async (tx) => {
        await repo.setStatus(tx, vm.id, {
          sshKeys,
          sshUsername,
          userData: userData === null ? null : engine.secrets.seal(userData),
        });
      });
    },
    async rename(ctx: Ctx, id: number, name: string) {
      const vm = await loadVisible(ctx.scope, id, VM_ACTIONS.rename.permission);
      requireAvailable(vm, 'rename');
      if (vm.name === name) throw new BadRequestError('New name must be different from the current name');
      await db.transaction(async (tx) => {
        await repo.setStatus(tx, id, { name });
        await audit.record(
          {
            companyId: ctx.scope.companyId,
            actorUserId: ctx.scope.userId,
            action: 'vm.rename',
            targetType: 'vm',
            targetId: id,
            before: { name: vm.name },
            after: { name },
            requestId: ctx.requestId,
          },
          tx,
        );
      });
    },
  };
}
export type VmService = ReturnType<typeof createVmService>;

/** What the VM page says of a user-data: its kind and size, never its text (it may hold secrets). */
function describeUserData(userData: string) {
  return { bytes: Buffer.byteLength(userData), kind: userDataKind(userData) };
}

function toConfiguration(c: { id: number; key: string; name: string; cpu: number; ram: number; disk: number }) {
  return { id: c.id, key: c.key as VmSizeKey, name: c.name, cpu: c.cpu, ram: c.ram, disk: c.disk };
}
