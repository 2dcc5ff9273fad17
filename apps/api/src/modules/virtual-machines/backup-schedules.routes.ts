/** A VM's backup schedule (decision 0023): parse, call the service, answer with the contract's texts. */
import type { FastifyInstance } from 'fastify';
import { BACKUP_SCHEDULE_TEXT, backupScheduleRoutes } from '@portal/contract/backup-schedules';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { BackupScheduleService } from './backup-schedules.service.ts';

export function registerBackupScheduleRoutes(app: FastifyInstance, schedules: BackupScheduleService): void {
  registerRoute(app, backupScheduleRoutes.getBackupSchedule, async ({ auth, params }) => ({
    data: await schedules.get(scopeOf(auth), params.id, auth.resellerId),
  }));
  registerRoute(app, backupScheduleRoutes.setBackupSchedule, async ({ auth, params, body, request }) => ({
    message: BACKUP_SCHEDULE_TEXT.saved,
    data: await schedules.set(
      { scope: scopeOf(auth), requestId: request.id, resellerId: auth.resellerId },
      params.id,
      body,
    ),
  }));
  registerRoute(app, backupScheduleRoutes.removeBackupSchedule, async ({ auth, params, request }) => {
    await schedules.remove({ scope: scopeOf(auth), requestId: request.id, resellerId: auth.resellerId }, params.id);
    return { message: BACKUP_SCHEDULE_TEXT.removed, data: null };
  });
}
