/**
 * Backups (issue 24 item 2; docs/decisions/0021-backups.md): the rules over the engine. A take and a restore in place
 * are operations queued through the engine (audited as vm.backup, vm.backupRestore); a take keeps the VM's status
 * (a running VM stays Running), a restore shows Restoring. The row is written in the transaction that queues the take.
 * A restore as a new VM is a create (quotas, placement) whose disk is the backup's. A delete touches no machine: the
 * driver deletes the stored copy at once (audited as vm.backupDelete); a backup kept after its VM was deleted is
 * restored or deleted through the company's list.
 */
import { BACKUP_TEXT, defaultBackupName, type Backup, type BackupState } from '@portal/contract/backups';
import { BACKUP_ACTIONS, type VM_STEADY_STATUSES } from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { ConflictError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { Permission } from '../access/permissions.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';
import type { BackupRepository, BackupRow } from './backups.repository.ts';
import type { VmService } from './vm.service.ts';
import { BUSY_MESSAGE, createVmGuards } from './vm-guards.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'engine' | 'audit' | 'clock'> & {
  vms: Pick<VmRepository, 'byId' | 'configuration'>;
  vmService: Pick<VmService, 'create'>;
  repo: BackupRepository;
};
type Ctx = { scope: TenantScope; requestId: string; resellerId: number };
type SteadyStatus = (typeof VM_STEADY_STATUSES)[number];

/** The driver's name for a backup: the portal's, never the customer's text. */
export const providerBackupName = (id: number) => `portal-backup-${id}`;

export function createBackupService(deps: Deps) {
  const { db, access, engine, vms, repo, audit, clock } = deps;
  const { loadVisible, requireAvailable, enqueue } = createVmGuards(deps);

  /** A backup of this VM for an action: 404 when it is not this VM's, 409 when its state does not allow it. */
  async function backupOf(vm: VmRow, backupId: number, allowed: readonly BackupState[]) {
    const backup = await repo.byVm(vm.id, backupId);
    if (!backup) throw new NotFoundError(BACKUP_TEXT.notFound);
    if (!allowed.includes(backup.state)) throw new ConflictError(BACKUP_TEXT.notReady(backup.state));
    return backup;
  }

  /**
   * A backup of the caller's company by its id alone (a kept one has no VM), checked as its VM would be: the VM's
   * rule while it lives, the team it had at the take once it is gone (teamless: company administrators only).
   */
  async function companyBackup(scope: TenantScope, backupId: number, permission: Permission) {
    const backup = await repo.byCompany(scope.companyId, backupId);
    if (!backup) throw new NotFoundError(BACKUP_TEXT.notFound);
    const vm = backup.vmId === null ? null : await vms.byId(backup.vmId);
    const owner = vm ?? { companyId: backup.companyId, teamId: backup.teamId, createdByUserId: null };
    await access.requireVm(scope, owner, permission, BACKUP_TEXT.notFound);
    return { backup, vm };
  }

  /** Deletes the stored copy, then the row; a failure leaves the backup as it was, with the reason (409). */
  async function deleteBackup(ctx: Ctx, backup: BackupRow) {
    const before = backup.state;
    if (!(await repo.setState(db, backup.id, ['ready', 'failed'], 'deleting')))
      throw new ConflictError(BACKUP_TEXT.notReady(backup.state));
    const provider = await repo.provider(backup.providerId);
    const host = backup.hostId === null ? null : await engine.hostsRepository.byId(backup.hostId);
    try {
      if (!provider) throw new Error('The backup’s provider no longer exists');
      const driver = engine.registry.driverFor(provider, host);
      await driver.backupDelete?.(backup.providerName);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await repo.setError(backup.id, reason, before);
      throw new ConflictError(reason);
    }
    await db.transaction(async (tx) => {
      await repo.remove(tx, backup.id);
      await audit.record(
        {
          companyId: backup.companyId,
          actorUserId: ctx.scope.userId,
          action: 'vm.backupDelete',
          targetType: 'vm',
          targetId: backup.vmId,
          before: { name: backup.vmName },
          after: { backupId: backup.id, name: backup.name, providerName: backup.providerName },
          requestId: ctx.requestId,
        },
        tx,
      );
    });
  }

  return {
    async list(scope: TenantScope, vmId: number, resellerId: number) {
      const vm = await loadVisible(scope, vmId, 'vm.view');
      const [rows, limit] = await Promise.all([repo.list(vm.id), repo.limit(resellerId, vm.configurationId)]);
      return { backups: rows.map(toBackup), limit };
    },

    /** The company's backups the caller may see, with those kept after their VM was deleted. */
    async listForCompany(scope: TenantScope) {
      return { backups: (await repo.listForCompany(scope)).map(toBackup) };
    },

    /** Takes a backup (running: the machine keeps running). Answers the new backup's id. */
    async take(ctx: Ctx, vmId: number, name: string | undefined) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backup.permission);
      requireAvailable(vm, 'backup');
      const [limit, size] = await Promise.all([
        repo.limit(ctx.resellerId, vm.configurationId),
        vms.configuration(vm.configurationId),
      ]);
      const id = await repo.nextId();
      const providerName = providerBackupName(id);
      const backupName = name ?? defaultBackupName(clock.now());
      const payload = { backupId: id, name: backupName, providerName, status: vm.status as SteadyStatus };
      // The limit is checked again in the transaction: one operation per VM, so no take races it.
      await enqueue(ctx, vm, { kind: BACKUP_ACTIONS.backup.operation, payload }, async (tx) => {
        if ((await repo.counted(tx, vm.id)) >= limit) throw new ConflictError(BACKUP_TEXT.limit(limit));
        await repo.insert(tx, {
          id,
          vmId: vm.id,
          companyId: vm.companyId,
          teamId: vm.teamId,
          regionId: vm.regionId,
          providerId: vm.providerId,
          hostId: vm.hostId,
          name: backupName,
          providerName,
          vmName: vm.name,
          image: vm.image,
          configurationId: vm.configurationId,
          cpu: size!.cpu,
          ram: size!.ram,
          disk: size!.disk,
        });
      });
      return { id };
    },

    /** Returns the VM to one of its ready backups (powered off for it, started again if it ran). */
    async restore(ctx: Ctx, vmId: number, backupId: number) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backupRestore.permission);
      const backup = await backupOf(vm, backupId, ['ready']);
      // The disk of another size would not fit the VM as it is billed now: a restore as a new VM instead.
      if (backup.configurationId !== vm.configurationId) throw new ConflictError(BACKUP_TEXT.otherSize);
      requireAvailable(vm, 'backupRestore');
      const payload = {
        backupId: backup.id,
        name: backup.name,
        providerName: backup.providerName,
        status: vm.status as SteadyStatus,
      };
      await enqueue(ctx, vm, { kind: BACKUP_ACTIONS.backupRestore.operation, payload }, async (tx) => {
        if (!(await repo.setState(tx, backup.id, ['ready'], 'restoring'))) throw new ConflictError(BUSY_MESSAGE);
      });
    },

    /**
     * A new VM from a ready backup of the company's (its VM alive or deleted): same region, provider and size, the
     * backup's team, as a create makes it (the team's vm.create, quotas, placement). Answers the new VM's id.
     */
    async restoreAsNew(ctx: Ctx, backupId: number, name: string) {
      const { backup } = await companyBackup(ctx.scope, backupId, 'vm.view');
      if (backup.state !== 'ready') throw new ConflictError(BACKUP_TEXT.notReady(backup.state));
      const created = await deps.vmService.create(ctx, {
        regionId: backup.regionId,
        image: backup.image,
        configurationId: backup.configurationId,
        providerId: backup.providerId,
        name,
        numberOfInstances: 1,
        teamId: backup.teamId,
        fromBackup: {
          backupId: backup.id,
          providerName: backup.providerName,
          // In the create's transaction: a delete of the backup racing it loses (or wins, and the create is refused).
          guard: async (tx) => {
            if (!(await repo.setState(tx, backup.id, ['ready'], 'restoring')))
              throw new ConflictError(BACKUP_TEXT.notReady('changing'));
          },
        },
      });
      return { id: created.ids[0]! };
    },

    /** Deletes a ready or failed backup of this VM. */
    async delete(ctx: Ctx, vmId: number, backupId: number) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backupDelete.permission);
      const backup = await backupOf(vm, backupId, ['ready', 'failed']);
      await deleteBackup(ctx, backup);
    },

    /** Deletes a backup of the company's by its id (a kept one: its VM is gone). */
    async deleteById(ctx: Ctx, backupId: number) {
      const { backup } = await companyBackup(ctx.scope, backupId, BACKUP_ACTIONS.backupDelete.permission);
      await deleteBackup(ctx, backup);
    },
  };
}
export type BackupService = ReturnType<typeof createBackupService>;

function toBackup(row: BackupRow): Backup {
  return {
    id: row.id,
    vmId: row.vmId,
    vmName: row.vmName,
    name: row.name,
    state: row.state,
    sizeBytes: row.sizeBytes,
    incremental: row.incremental,
    image: row.image,
    configurationId: row.configurationId,
    cpu: row.cpu,
    ram: row.ram,
    disk: row.disk,
    createdAt: iso(row.createdAt),
    completedAt: row.completedAt ? iso(row.completedAt) : null,
    verifiedAt: row.verifiedAt ? iso(row.verifiedAt) : null,
    verificationError: row.verificationError,
    error: row.error,
  };
}
