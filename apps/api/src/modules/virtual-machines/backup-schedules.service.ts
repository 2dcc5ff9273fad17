/**
 * Backup schedules (issue 24 item 2; docs/decisions/0023-backup-schedules.md): a VM's schedule (read with vm.view, set
 * and removed with vm.operate, as a take), and the pass the module's worker runs each interval on the injected clock:
 * - a due slot is claimed by moving next_run_at on to the next slot (UPDATE ... WHERE next_run_at = the value read:
 *   of two API processes one takes it) and its take queued through the backups service as a manual take is (the
 *   lifecycle rule, the limit; at the limit the oldest scheduled backups make room), by System;
 * - a suspended company's due slots (and a VM being deleted) move on without a take, so a resume runs at the next slot;
 *   a slot missed while the portal was down runs once, never once per missed slot;
 * - a queued take is followed until it ends: ready, the oldest scheduled backups beyond `keep` are deleted (never a
 *   manual one); failed or refused, last_error says why and the activity log records it. The next slot tries again.
 */
import {
  BACKUP_SCHEDULE_TEXT as T,
  WEEKDAYS,
  type BackupSchedule,
  type BackupScheduleInput,
} from '@portal/contract/backup-schedules';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import type { TenantScope } from '../../lib/auth-context.ts';
import { AppError, BadRequestError, NotFoundError } from '../../lib/errors.ts';
import { iso } from '../../lib/http.ts';
import type { ModuleDeps } from '../module.ts';
import type { VmRepository, VmRow } from './vm.repository.ts';
import type { BackupRepository, BackupRow } from './backups.repository.ts';
import type { BackupService } from './backups.service.ts';
import type { BackupScheduleRepository, BackupScheduleRow } from './backup-schedules.repository.ts';
import { slotAfter, slotAtOrBefore } from './backup-schedule-slots.ts';
import { createVmGuards } from './vm-guards.ts';
import { createPeriodic } from '../../engine/periodic.ts';

type Deps = Pick<ModuleDeps, 'access' | 'engine' | 'audit' | 'clock' | 'log'> & {
  vms: Pick<VmRepository, 'byId'>;
  backupRepo: Pick<BackupRepository, 'limit'>;
  backups: Pick<BackupService, 'takeScheduled' | 'deleteScheduled'>;
  repo: BackupScheduleRepository;
};
type Ctx = { scope: TenantScope; requestId: string; resellerId: number };

/** Due schedules handled per pass (the rest wait for the next one; the oldest slots first). */
const DUE_PER_PASS = 500;

export function toBackupSchedule(row: BackupScheduleRow): BackupSchedule {
  return {
    frequency: row.frequency,
    weekday: row.frequency === 'weekly' && row.weekday !== null ? (WEEKDAYS[row.weekday] ?? null) : null,
    hour: row.hour,
    keep: row.keep,
    nextRunAt: iso(row.nextRunAt),
    lastRunAt: row.lastRunAt ? iso(row.lastRunAt) : null,
    lastError: row.lastError,
  };
}

export function createBackupScheduleService(deps: Deps) {
  const { repo, audit, clock, backups, log } = deps;
  const { loadVisible } = createVmGuards(deps);

  function auditEntry(vm: { id: number | null; companyId: number; name: string }, action: string, after: unknown) {
    return {
      companyId: vm.companyId,
      targetType: 'vm',
      targetId: vm.id,
      action,
      before: { name: vm.name },
      after,
    };
  }

  /** A refused or failed scheduled take: last_error (shown on the VM page) and the activity log. */
  async function recordFailure(
    vm: { id: number; companyId: number; name: string },
    backupName: string,
    reason: string,
  ) {
    await audit.record({
      ...auditEntry(vm, 'vm.backupScheduleFailed', { backupName, error: reason }),
      actorUserId: null,
    });
  }

  /** The oldest scheduled backups beyond `keep`, and failed scheduled takes older than the newest good one. */
  async function retain(vmId: number, keep: number) {
    const rows = await repo.scheduledBackups(vmId);
    const ready = rows.filter((r) => r.state === 'ready');
    const newest = ready[0];
    const doomed: BackupRow[] = [
      ...ready.slice(keep),
      ...rows.filter((r) => r.state === 'failed' && newest && r.createdAt <= newest.createdAt && r.id !== newest.id),
    ];
    for (const backup of doomed) {
      try {
        await backups.deleteScheduled(backup);
      } catch (err) {
        // Left for the next take's retention (a driver that failed keeps the backup as it was, with the reason).
        log.warn({ err, backupId: backup.id }, 'backup schedule: retention could not delete a backup');
      }
    }
  }

  /** A queued take has ended: ready, retention; failed, why. One process settles it. */
  async function settle(schedule: BackupScheduleRow, backup: BackupRow) {
    const error = backup.state === 'failed' ? (backup.error ?? 'The backup failed') : null;
    if (!(await repo.settle(schedule.vmId, backup.id, error))) return;
    if (error !== null) {
      const vm = { id: schedule.vmId, companyId: backup.companyId, name: backup.vmName };
      await recordFailure(vm, backup.name, error);
      return;
    }
    await retain(schedule.vmId, schedule.keep);
  }

  /** One due schedule: skipped (suspended company, VM being deleted) or claimed and its take queued. */
  async function runSlot(
    due: Awaited<ReturnType<BackupScheduleRepository['due']>>[number],
    now: Date,
  ): Promise<'skipped' | 'queued' | 'failed' | 'lost'> {
    const { schedule, vm } = due;
    const next = slotAfter(schedule, now);
    if (due.suspended || due.deleting)
      return (await repo.skip(vm.id, schedule.nextRunAt, next, now)) ? 'skipped' : 'lost';
    if (!(await repo.claim(vm.id, schedule.nextRunAt, next, now))) return 'lost';
    const name = T.backupName(slotAtOrBefore(schedule, now));
    try {
      const { id } = await backups.takeScheduled(vm as VmRow, due.resellerId, name);
      await repo.queued(vm.id, id);
      return 'queued';
    } catch (err) {
      // The refusals a customer can act on say why (the limit, busy, the VM's status); anything else is logged.
      const reason = err instanceof AppError ? err.message : 'The scheduled backup could not be started';
      if (!(err instanceof AppError)) log.error({ err, vmId: vm.id }, 'backup schedule: take failed');
      await repo.failed(vm.id, reason);
      await recordFailure(vm, name, reason);
      return 'failed';
    }
  }

  return {
    async get(scope: TenantScope, vmId: number, resellerId: number) {
      const vm = await loadVisible(scope, vmId, 'vm.view');
      const [row, limit] = await Promise.all([repo.byVm(vm.id), deps.backupRepo.limit(resellerId, vm.configurationId)]);
      return { schedule: row ? toBackupSchedule(row) : null, limit };
    },

    /** Sets (or replaces) the VM's schedule; keep is 1 to the VM's backup limit. The next slot is after now. */
    async set(ctx: Ctx, vmId: number, input: BackupScheduleInput) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backup.permission);
      const limit = await deps.backupRepo.limit(ctx.resellerId, vm.configurationId);
      if (input.keep > limit)
        throw new BadRequestError(T.keepOverLimit(limit), [{ path: 'keep', message: T.keepOverLimit(limit) }]);
      const weekday = input.frequency === 'weekly' && input.weekday ? WEEKDAYS.indexOf(input.weekday) : null;
      const rule = { frequency: input.frequency, weekday, hour: input.hour };
      const now = clock.now();
      const before = await repo.byVm(vm.id);
      const row = await repo.upsert(vm.id, { ...rule, keep: input.keep, nextRunAt: slotAfter(rule, now) }, now);
      const schedule = toBackupSchedule(row);
      await audit.record({
        ...auditEntry(vm, 'vm.backupScheduleSet', {
          frequency: schedule.frequency,
          weekday: schedule.weekday,
          hour: schedule.hour,
          keep: schedule.keep,
          previous: before
            ? { frequency: before.frequency, weekday: before.weekday, hour: before.hour, keep: before.keep }
            : null,
        }),
        actorUserId: ctx.scope.userId,
        requestId: ctx.requestId,
      });
      return schedule;
    },

    /** Removes the VM's schedule (404 when it has none); the backups it took stay. */
    async remove(ctx: Ctx, vmId: number) {
      const vm = await loadVisible(ctx.scope, vmId, BACKUP_ACTIONS.backup.permission);
      if (!(await repo.remove(vm.id))) throw new NotFoundError(T.notFound);
      await audit.record({
        ...auditEntry(vm, 'vm.backupScheduleRemove', null),
        actorUserId: ctx.scope.userId,
        requestId: ctx.requestId,
      });
    },

    /** One pass of the worker: schedules of deleted VMs dropped, ended takes settled, due slots run. */
    async pass() {
      const now = clock.now();
      await repo.removeOfDeletedVms();
      for (const { schedule, backup } of await repo.ended()) await settle(schedule, backup);
      const counts = { queued: 0, skipped: 0, failed: 0, lost: 0 };
      for (const due of await repo.due(now, DUE_PER_PASS)) counts[await runSlot(due, now)]++;
      return counts;
    },
  };
}
export type BackupScheduleService = ReturnType<typeof createBackupScheduleService>;

/**
 * The module's worker: a pass at start and each `intervalMs` on the injected clock (engine/periodic.ts: never two at
 * once in a process; two processes are kept apart by the claim). A slot runs within one interval of its hour.
 */
export function createBackupScheduleWorker(
  service: Pick<BackupScheduleService, 'pass'>,
  opts: { intervalMs: number; log: ModuleDeps['log'] },
) {
  return createPeriodic(() => service.pass(), { intervalMs: opts.intervalMs, log: opts.log, what: 'backup schedules' });
}
