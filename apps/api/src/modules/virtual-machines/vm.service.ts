/** Virtual machines: the catalog, reads with usage, and actions recorded as durable operations. */
import { VM_SIZE_KEYS, type VmSizeKey } from '@portal/contract/constants';
import type { TenantScope } from '../../lib/auth-context.ts';
import { BadRequestError, ConflictError, NotFoundError, ProviderUnavailableError } from '../../lib/errors.ts';
import { iso, totalPages } from '../../lib/http.ts';
import type { ModuleDeps } from '../../lib/module.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { effectivePermissions, type Permission } from '../access/permissions.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';
import type { VmEvents } from './vm-events.ts';
import { generateCredentials, type SecretBox } from './vm-secrets.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'audit' | 'clock'> & {
  repo: VmRepository;
  registry: ProviderRegistry;
  events: VmEvents;
  secrets: SecretBox;
  /** Tells the runner there is work (it also polls). */
  kick: () => void;
};
type Ctx = { scope: TenantScope; requestId: string };

/** The status a VM shows while each kind of operation runs. */
const RUNNING_STATUS: Record<string, string> = { create: 'Provisioning', start: 'Starting', stop: 'Stopping', reset: 'Starting', resize: 'Resizing', delete: 'Stopping' };
export const BUSY_MESSAGE = 'Another operation is already in progress on this virtual machine. Wait for it to finish.';

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.code === '23505' || e?.cause?.code === '23505';
}

export function createVmService(deps: Deps) {
  const { db, access, audit, repo } = deps;

  async function loadVisible(scope: TenantScope, id: number, permission: Permission): Promise<VmRow> {
    const vm = await repo.byId(id);
    if (!vm) throw new NotFoundError('Virtual machine not found');
    await access.requireVm(scope, vm, permission);
    return vm;
  }

  /** What the caller may do on a VM they can see, by the same rules as access.requireVm (the creator owns a VM outside any team). */
  async function vmPermissions(scope: TenantScope, vm: VmRow): Promise<Permission[]> {
    const owner = vm.teamId === null && vm.createdByUserId === scope.userId;
    const roleId = vm.teamId === null ? null : await access.roleInTeam(scope.userId, vm.teamId);
    return effectivePermissions(roleId, scope.isCompanyAdmin || owner).filter((p) => p.startsWith('vm.'));
  }

  /** Records an operation and the VM's in-progress status in one transaction; one operation per VM. */
  async function enqueue(ctx: Ctx, vm: VmRow, kind: string, payload: Record<string, unknown> = {}) {
    if (await repo.activeOperation(vm.id)) throw new ConflictError(BUSY_MESSAGE);
    try {
      await db.transaction(async (tx) => {
        await repo.insertOperation(tx, { vmId: vm.id, kind, payload, requestedByUserId: ctx.scope.userId });
        await repo.setStatus(tx, vm.id, { status: RUNNING_STATUS[kind] ?? vm.status });
        await audit.record({ companyId: ctx.scope.companyId, actorUserId: ctx.scope.userId, action: `vm.${kind}`, targetType: 'vm', targetId: vm.id, before: { status: vm.status }, after: payload, requestId: ctx.requestId }, tx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(BUSY_MESSAGE);
      throw err;
    }
    deps.events.publish({ vmId: vm.id, companyId: vm.companyId, teamId: vm.teamId, createdByUserId: vm.createdByUserId, status: RUNNING_STATUS[kind] ?? vm.status, deleted: false });
    deps.kick();
  }

  function requireStatus(vm: VmRow, allowed: string[], action: string) {
    if (!allowed.includes(vm.status)) throw new ConflictError(`The VM cannot be ${action} while it is ${vm.status}`);
  }

  return {
    // ---- catalog ----
    countries: () => repo.countries(),
    regions: (countryId: number) => repo.regions(countryId),
    cities: (regionId: number) => repo.cities(regionId),
    images: (regionId: number) => repo.images(regionId),
    async region(id: number) {
      const region = await repo.region(id);
      if (!region) throw new NotFoundError('Region not found');
      return region;
    },
    configurations: async () => (await repo.configurations()).map(toConfiguration),
    /** Every size is listed for a region; one that no provider offers there is answered by an empty provider list. */
    regionConfigurations: async (regionId: number) => {
      if (!(await repo.region(regionId))) throw new NotFoundError('Region not found');
      return (await repo.configurations()).map(toConfiguration);
    },
    providers: (regionId: number, configurationId?: number) => repo.providersFor(regionId, configurationId),

    // ---- reads ----
    async list(scope: TenantScope, q: { page: number; rowsPerPage: number; search: string; teamId?: number | undefined; sortColumn?: 'name' | 'configuration' | undefined; sortDescending?: 'true' | 'false' | undefined }) {
      if (q.teamId) await access.requireTeam(scope, q.teamId, 'vm.view');
      const { rows, total } = await repo.list(scope, { ...q, descending: q.sortDescending === 'true' });
      return {
        data: rows.map((r) => ({ ...r, status: r.status as VmStatusName, createdAt: iso(r.createdAt) })),
        totalPages: totalPages(total, q.rowsPerPage),
      };
    },

    async details(scope: TenantScope, id: number) {
      const visible = await loadVisible(scope, id, 'vm.view');
      const row = (await repo.detailsOf(id))!;
      const { vm, configuration } = row;
      const running = vm.status === 'Running' && vm.providerRef !== null;
      let usage = { cpuUsage: 0, ramUsage: 0 };
      if (running) {
        try {
          const provider = await repo.provider(vm.providerId);
          const u = await deps.registry.driverFor(provider!).usage(vm.providerRef!);
          usage = { cpuUsage: u.cpuPercent, ramUsage: u.ramUsedGb };
        } catch {
          // Usage is best effort; the card shows a dash.
        }
      }
      const op = await repo.activeOperation(id);
      return {
        virtualMachine: {
          id: vm.id,
          name: vm.name,
          configuration: configuration.name,
          configurationId: configuration.id,
          country: row.country,
          region: row.region,
          image: vm.image,
          createdAt: iso(vm.createdAt),
          updatedAt: iso(vm.updatedAt),
          cpu: configuration.cpu,
          ram: configuration.ram,
          disk: configuration.disk,
          teamId: vm.teamId,
          network: { publicIp: vm.publicIp, privateIp: vm.privateIp },
        },
        status: vm.status as VmStatusName,
        consoleAvailable: running,
        usage,
        errorReason: vm.errorReason,
        pendingOperation: op?.kind ?? null,
        permissions: await vmPermissions(scope, visible),
      };
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
      const counts = (m: Map<string, number>) => Object.fromEntries(VM_SIZE_KEYS.map((k) => [k, m.get(k) ?? 0])) as Record<VmSizeKey, number>;
      return { currentMonth: counts(current), previousMonth: counts(previous), ytd: counts(ytd) };
    },

    async password(scope: TenantScope, id: number) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      return { sshPassword: vm.sshPassword ? deps.secrets.open(vm.sshPassword) : '' };
    },
    async privateKey(scope: TenantScope, id: number) {
      const vm = await loadVisible(scope, id, 'vm.operate');
      if (!vm.privateKey) throw new NotFoundError('This virtual machine has no key');
      return { privateKey: deps.secrets.open(vm.privateKey) };
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
    async consoleText(vmId: number) {
      const vm = await repo.byId(vmId);
      if (!vm?.providerRef) throw new NotFoundError('Virtual machine not found');
      const provider = await repo.provider(vm.providerId);
      try {
        return { name: vm.name, text: await deps.registry.driverFor(provider!).console(vm.providerRef) };
      } catch {
        // The provider cannot give a console now (machine unknown to it, host down): the portal shows its failure text.
        throw new ProviderUnavailableError('Console is currently unavailable');
      }
    },

    // ---- actions ----
    async create(ctx: Ctx, input: { regionId: number; image: string; configurationId: number; providerId: number; name: string; numberOfInstances: number; teamId?: number | null | undefined }) {
      const teamId = input.teamId ?? null;
      if (teamId !== null) await access.requireTeam(ctx.scope, teamId, 'vm.create');
      // A VM outside any team is its creator's: only someone who may create VMs somewhere makes one.
      else await access.requireInAnyTeam(ctx.scope, 'vm.create', 'You may not create virtual machines');
      if (!(await repo.region(input.regionId))) throw new NotFoundError('Region not found');
      if (!(await repo.imageOffered(input.regionId, input.image))) throw new BadRequestError('The image is not offered in this region');
      if (!(await repo.configuration(input.configurationId))) throw new NotFoundError('Configuration not found');
      if (!(await repo.offers(input.providerId, input.regionId, input.configurationId))) throw new BadRequestError('Chosen configuration has no possible provider');
      const names = input.numberOfInstances === 1 ? [input.name] : Array.from({ length: input.numberOfInstances }, (_, i) => `${input.name}-${i + 1}`);
      const created = await db.transaction(async (tx) => {
        const rows: VmRow[] = [];
        for (const name of names) {
          const creds = generateCredentials(name);
          const vm = await repo.insertVm(tx, {
            companyId: ctx.scope.companyId,
            teamId,
            createdByUserId: ctx.scope.userId,
            name,
            status: 'Provisioning',
            configurationId: input.configurationId,
            regionId: input.regionId,
            image: input.image,
            providerId: input.providerId,
            sshPassword: deps.secrets.seal(creds.password),
            privateKey: deps.secrets.seal(creds.privateKeyPem),
            publicKey: creds.publicKeyOpenSsh,
          });
          await repo.insertOperation(tx, { vmId: vm.id, kind: 'create', requestedByUserId: ctx.scope.userId });
          await audit.record({ companyId: ctx.scope.companyId, actorUserId: ctx.scope.userId, action: 'vm.create', targetType: 'vm', targetId: vm.id, after: { name, configurationId: input.configurationId, regionId: input.regionId, image: input.image, teamId }, requestId: ctx.requestId }, tx);
          rows.push(vm);
        }
        return rows;
      });
      for (const vm of created) deps.events.publish({ vmId: vm.id, companyId: vm.companyId, teamId: vm.teamId, createdByUserId: vm.createdByUserId, status: vm.status, deleted: false });
      deps.kick();
      return { ids: created.map((v) => v.id) };
    },

    async start(ctx: Ctx, id: number) {
      const vm = await loadVisible(ctx.scope, id, 'vm.operate');
      requireStatus(vm, ['Stopped', 'Shutoff'], 'started');
      await enqueue(ctx, vm, 'start');
    },
    async stop(ctx: Ctx, id: number) {
      const vm = await loadVisible(ctx.scope, id, 'vm.operate');
      requireStatus(vm, ['Running'], 'stopped');
      await enqueue(ctx, vm, 'stop');
    },
    async reset(ctx: Ctx, id: number) {
      const vm = await loadVisible(ctx.scope, id, 'vm.operate');
      requireStatus(vm, ['Running'], 'reset');
      await enqueue(ctx, vm, 'reset');
    },
    async upgrade(ctx: Ctx, id: number, configurationId: number) {
      const vm = await loadVisible(ctx.scope, id, 'vm.modify');
      const [current, target] = await Promise.all([repo.configuration(vm.configurationId), repo.configuration(configurationId)]);
      if (!target) throw new NotFoundError('Configuration not found');
      if (target.cpu <= current!.cpu) throw new BadRequestError('A VM can only be upgraded to a configuration with more CPU');
      if (!(await repo.offers(vm.providerId, vm.regionId, configurationId))) throw new BadRequestError('The VM\'s provider does not offer this configuration in its region');
      requireStatus(vm, ['Running', 'Stopped', 'Shutoff'], 'upgraded');
      await enqueue(ctx, vm, 'resize', { configurationId });
    },
    async rename(ctx: Ctx, id: number, name: string) {
      const vm = await loadVisible(ctx.scope, id, 'vm.modify');
      if (vm.name === name) throw new BadRequestError('New name must be different from the current name');
      await db.transaction(async (tx) => {
        await repo.setStatus(tx, id, { name });
        await audit.record({ companyId: ctx.scope.companyId, actorUserId: ctx.scope.userId, action: 'vm.rename', targetType: 'vm', targetId: id, before: { name: vm.name }, after: { name }, requestId: ctx.requestId }, tx);
      });
    },
    async remove(ctx: Ctx, id: number) {
      const vm = await loadVisible(ctx.scope, id, 'vm.delete');
      await enqueue(ctx, vm, 'delete');
    },
  };
}
export type VmService = ReturnType<typeof createVmService>;

type VmStatusName = 'Running' | 'Stopped' | 'Shutoff' | 'Error' | 'Provisioning' | 'Starting' | 'Stopping' | 'Resizing';

function toConfiguration(c: { id: number; key: string; name: string; cpu: number; ram: number; disk: number }) {
  return { id: c.id, key: c.key as VmSizeKey, name: c.name, cpu: c.cpu, ram: c.ram, disk: c.disk };
}
