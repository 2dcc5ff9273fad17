/** The backup calls (issue 24 item 2): parse, call the service, answer with the lifecycle table's texts. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BACKUP_TEXT, backupRoutes } from '@portal/contract/backups';
import { BACKUP_ACTIONS } from '@portal/contract/vm-lifecycle';
import type { AuthContext } from '../../lib/auth-context.ts';
import { registerRoute } from '../../lib/http.ts';
import { scopeOf } from '../module.ts';
import type { BackupService } from './backups.service.ts';

const ctxOf = (auth: AuthContext, request: FastifyRequest) => ({
  scope: scopeOf(auth),
  requestId: request.id,
  resellerId: auth.resellerId,
});

export function registerBackupRoutes(app: FastifyInstance, backups: BackupService): void {
  registerRoute(app, backupRoutes.listBackups, async ({ auth, params }) => ({
    data: await backups.list(scopeOf(auth), params.id, auth.resellerId),
  }));
  registerRoute(app, backupRoutes.listCompanyBackups, async ({ auth }) => ({
    data: await backups.listForCompany(scopeOf(auth)),
  }));
  registerRoute(app, backupRoutes.takeBackup, async ({ auth, params, body, request }) => ({
    message: BACKUP_ACTIONS.backup.accepted,
    data: await backups.take(ctxOf(auth, request), params.id, body?.name),
  }));
  registerRoute(app, backupRoutes.restoreBackup, async ({ auth, params, request }) => {
    await backups.restore(ctxOf(auth, request), params.id, params.backupId);
    return { message: BACKUP_ACTIONS.backupRestore.accepted, data: null };
  });
  registerRoute(app, backupRoutes.restoreBackupAsNew, async ({ auth, params, body, request }) => ({
    message: BACKUP_TEXT.restoringAsNew,
    data: await backups.restoreAsNew(ctxOf(auth, request), params.backupId, body.name),
  }));
  registerRoute(app, backupRoutes.deleteBackup, async ({ auth, params, request }) => {
    await backups.delete(ctxOf(auth, request), params.id, params.backupId);
    return { message: BACKUP_ACTIONS.backupDelete.accepted, data: null };
  });
  registerRoute(app, backupRoutes.deleteKeptBackup, async ({ auth, params, request }) => {
    await backups.deleteById(ctxOf(auth, request), params.backupId);
    return { message: BACKUP_ACTIONS.backupDelete.accepted, data: null };
  });
  registerRoute(app, backupRoutes.verifyBackup, async ({ auth, params, request }) => {
    await backups.verify(ctxOf(auth, request), params.id, params.backupId);
    return { message: BACKUP_ACTIONS.backupVerify.accepted, data: null };
  });
  registerRoute(app, backupRoutes.verifyKeptBackup, async ({ auth, params, request }) => {
    await backups.verifyById(ctxOf(auth, request), params.backupId);
    return { message: BACKUP_ACTIONS.backupVerify.accepted, data: null };
  });
}
