/**
 * Backups (issue 24 item 2; docs/decisions/0021-backups.md): the rules over the engine. A take and a restore in place
 * are operations queued through the engine (audited as vm.backup, vm.backupRestore); a take keeps the VM's status
 * (a running VM stays Running), a restore shows Restoring. The row is written in the transaction that queues the take.
 * A restore as a new VM is a create (quotas, placement) whose disk is the backup's. A delete touches no machine: the
 * driver deletes the stored copy at once (audited as vm.backupDelete); a backup kept after its VM was deleted is
 * restored or deleted through the company's list.
 */
import { BACKUP_TEXT, defaultBackupName, type Backup, type BackupState } from '@portal/contract/backups';
import { BACKUP_SCHEDULE_TEXT } from '@portal/contract/backup-schedules';
import { BACKUP_ACTIONS, type VM_STEADY_STATUSES } from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { API_MESSAGES } from '@portal/contract/messages';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { Permission } from '../access/permissions.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';
import type { BackupRepository, BackupRow } from './backups.repository.ts';
import type { VmService } from './vm.service.ts';
import { BUSY_MESSAGE, createVmGuards } from './vm-guards.ts';
import { backupsDeleted } from '../../engine/operations/backups.ts';
import type { BackupDeleted } from '../../providers/provider.ts';

type Deps = Pick<ModuleDeps, 'db' | 'access' | 'engine' | 'audit' | 'clock' | 'config'> & {
  vms: Pick<VmRepository, 'byId' | 'configuration'>;
  vmService: Pick<VmService, 'create'>;
  repo: BackupRepository;
};
type Ctx = { scope: TenantScope; requestId: string; resellerId: number };
/** Who acts: a user's request, or the platform (userId null: a backup schedule, decision 0023) and why. */
type By = { userId: number | null; requestId?: string; cause?: string };
type SteadyStatus = (typeof VM_STEADY_STATUSES)[number];

/** The driver's name for a backup: the portal's, never the customer's text. */
export const providerBackupName = (id: number) => `portal-backup-${id}`;

export function createBackupService(deps: Deps) {
  const { db, access, engine, vms, repo, audit, clock } = deps;
  const { loadVisible, requireAvailable, enqueue, enqueueAs } = createVmGuards(deps);
  // BACKUP_VERIFY=off leaves takes due for verification without a verifier: nothing is shown as being verified then.
  const verifierOn = deps.config.BACKUP_VERIFY !== 'off';
  const toBackup = (row: BackupRow) => toWire(row, verifierOn);

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
  async function deleteBackup(by: By, backup: BackupRow) {
    const before = backup.state;
    if (!(await repo.setState(db, backup.id, ['ready', 'failed'], 'deleting')))
      throw new ConflictError(BACKUP_TEXT.notReady(backup.state));
    const provider = await repo.provider(backup.providerId);
    const host = backup.hostId === null ? null : await engine.hostsRepository.byId(backup.hostId);
    let deleted: BackupDeleted | void;
    try {
      if (!provider) throw new Error('The backup’s provider no longer exists');
      const driver = engine.registry.driverFor(provider, host);
      deleted = await driver.backupDelete?.(backup.providerName);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      await repo.setError(backup.id, reason, before);
      throw new ConflictError(reason);
    }
    await db.transaction(async (tx) => {
      await repo.remove(tx, backup.id);
      // Billing's storage ends now; a backup merged into grows from now (decision 0027).
      await backupsDeleted(tx, [backup.id], clock.now(), [{ providerId: backup.providerId, deleted }]);
      await audit.record(
        {
          companyId: backup.companyId,
          actorUserId: by.userId,
          action: 'vm.backupDelete',
          targetType: 'vm',
          targetId: backup.vmId,
          before: { name: backup.vmName },
          after: {
            backupId: backup.id,
            name: backup.name,
            providerName: backup.providerName,
            ...(by.cause ? { cause: by.cause } : {}),
          },
          ...(by.requestId ? { requestId: by.requestId } : {}),
        },
        tx,
      );
    });
  }

  /**
   * Verify now (issue 24 item 3; decision 0026): the backup's verification queued again, as at the end of its take,
   * for the verifier's next pass (it never touches the VM). Refused while the backup is not ready (409) or a
   * verification of it is queued or running (409: one at a time), when verification is off (409), or for a suspended
   * company (403, as its takes). Audited as vm.backupVerify.
   */
  async function queueVerify(by: By, backup: BackupRow) {
    if (!verifierOn) throw new ConflictError(BACKUP_TEXT.verifyOff);
    if (backup.state !== 'ready') throw new ConflictError(BACKUP_TEXT.notReady(backup.state));
    if (backup.verifyAfter !== null) throw new ConflictError(BACKUP_TEXT.alreadyVerifying);
    if (await repo.companySuspended(backup.companyId)) throw new ForbiddenError(API_MESSAGES.companySuspended);
    await db.transaction(async (tx) => {
      // Checked again on the row: a take's end, another click or the schedule may have queued it meanwhile.
      if (!(await repo.queueVerification(tx, backup.id, clock.now()))) {
        const now = await repo.byCompany(backup.companyId, backup.id);
        throw new ConflictError(
          now && now.state !== 'ready' ? BACKUP_TEXT.notReady(now.state) : BACKUP_TEXT.alreadyVerifying,
        );
      }
      await audit.record(
        {
          companyId: backup.companyId,
          actorUserId: by.userId,
          action: 'vm.backupVerify',
          targetType: 'vm',
          targetId: backup.vmId,
          before: { name: backup.vmName },
          after: { backupId: backup.id, name: backup.name, providerName: backup.providerName },
          ...(by.requestId ? { requestId: by.requestId } : {}),
        },
        tx,
      );
    });
  }

  /**
   * Queues a take of the VM (the limit checked again in the queuing transaction: one operation per VM, so no take
   * races it). `scheduled`: the schedule's, which its retention may delete. Throws what refuses it (403, 409).
   */
  async function queueTake(vm: VmRow, resellerId: number, backupName: string, by: By, scheduled: boolean) {
    // One take at a time per VM, beside its other actions (decision 0025): a second says so (the race: BUSY_MESSAGE).
    if (await engine.operations.active(vm.id, 'backup')) throw new ConflictError(BACKUP_TEXT.takeBusy);
    const [limit, size] = await Promise.all([
      repo.limit(resellerId, vm.configurationId),
      vms.configuration(vm.configurationId),
    ]);
    const id = await repo.nextId();
    const providerName = providerBackupName(id);
    const payload = { backupId: id, name: backupName, providerName, status: vm.status as SteadyStatus };
    await enqueueAs(by, vm, { kind: BACKUP_ACTIONS.backup.operation, payload }, async (tx) => {
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
        scheduled,
      });
    });
    return { id };
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
      const by = { userId: ctx.scope.userId, requestId: ctx.requestId };
      return queueTake(vm, ctx.resellerId, name ?? defaultBackupName(clock.now()), by, false);
    },

    /**
     * A take by the VM's backup schedule (decision 0023), as a take is queued (the lifecycle rule, the limit, the
     * audit: by System, cause 'backup schedule'). At the limit, the oldest scheduled backups make room first; a
     * backup the customer took is never deleted for it. Answers the new backup's id; throws why it was refused.
     */
    async takeScheduled(vm: VmRow, resellerId: number, name: string) {
      requireAvailable(vm, 'backup');
      const by = { userId: null, cause: BACKUP_SCHEDULE_TEXT.cause };
      const limit = await repo.limit(resellerId, vm.configurationId);
      const counted = await db.transaction((tx) => repo.counted(tx, vm.id));
      if (counted >= limit) {
        const oldest = (await repo.list(vm.id)).filter((b) => b.scheduled && b.state === 'ready').reverse();
        for (const b of oldest.slice(0, counted - limit + 1)) await deleteBackup(by, b);
      }
      return queueTake(vm, resellerId, name, by, true);
    },

    /** Deletes a backup its VM's schedule took, as the platform (the schedule's retention, decision 0023). */
    async deleteScheduled(backup: BackupRow) {
      if (!backup.scheduled) throw new ConflictError('Only scheduled backups are deleted by a schedule');
      await deleteBackup({ userId: null, cause: BACKUP_SCHEDULE_TEXT.cause }, backup);
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
      await deleteBackup({ userId: ctx.scope.userId, requestId: ctx.requestId }, backup);
    },

    /** Verify now: a ready backup of this VM verified again (vm.operate, as a take). */
    async verify(ctx: Ctx, vmId: number, backupId: number) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backupVerify.permission);
      const backup = await repo.byVm(vm.id, backupId);
      if (!backup) throw new NotFoundError(BACKUP_TEXT.notFound);
      await queueVerify({ userId: ctx.scope.userId, requestId: ctx.requestId }, backup);
    },

    /** Verify now by the backup's id (the company's Backups screen; a kept one: its VM is gone). */
    async verifyById(ctx: Ctx, backupId: number) {
      const { backup } = await companyBackup(ctx.scope, backupId, BACKUP_ACTIONS.backupVerify.permission);
      await queueVerify({ userId: ctx.scope.userId, requestId: ctx.requestId }, backup);
    },

    /** Deletes a backup of the company's by its id (a kept one: its VM is gone). */
    async deleteById(ctx: Ctx, backupId: number) {
      const { backup } = await companyBackup(ctx.scope, backupId, BACKUP_ACTIONS.backupDelete.permission);
      await deleteBackup({ userId: ctx.scope.userId, requestId: ctx.requestId }, backup);
    },
  };
}
export type BackupService = ReturnType<typeof createBackupService>;

function toWire(row: BackupRow, verifierOn: boolean): Backup {
  return {
    id: row.id,
    vmId: row.vmId,
    vmName: row.vmName,
    name: row.name,
    state: row.state,
    sizeBytes: row.sizeBytes,
    incremental: row.incremental,
    consistency: row.consistency,
    image: row.image,
    configurationId: row.configurationId,
    cpu: row.cpu,
    ram: row.ram,
    disk: row.disk,
    createdAt: iso(row.createdAt),
    completedAt: row.completedAt ? iso(row.completedAt) : null,
    verifiedAt: row.verifiedAt ? iso(row.verifiedAt) : null,
    verificationError: row.verificationError,
    verificationNote: row.verificationNote,
    verifying: verifierOn && row.verifyAfter !== null,
    error: row.error,
  };
}
