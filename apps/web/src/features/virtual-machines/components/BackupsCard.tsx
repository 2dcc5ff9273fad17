/**
 * The VM page's Backups card (issue 24 item 2; decision 0021), beside Snapshots and built as it: the VM's backups
 * (name, size, time, state), an optional name and Take, and per backup Restore and Delete behind a confirmation,
 * and Verify now (decision 0026: no confirmation, it only reads the copy; "Verifying…" while it is queued or runs).
 * What each may do when comes from BACKUP_ACTIONS (vm-actions.ts) and the caller's permissions.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import Archive from 'lucide-react/icons/archive';
import CopyPlus from 'lucide-react/icons/copy-plus';
import History from 'lucide-react/icons/history';
import ShieldCheck from 'lucide-react/icons/shield-check';
import Trash2 from 'lucide-react/icons/trash-2';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { TEXT } from '@portal/contract/messages';
import type { Permission } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { BACKUP_TEXT, backupNameSchema, type Backup as BackupWire } from '@portal/contract/backups';
import {
  actionUnavailableReason,
  BACKUP_ACTIONS,
  type BackupActionName,
  type VmStatus,
} from '@portal/contract/vm-actions';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { VM_READS } from '../../../lib/reads.ts';
import { errorMessage } from '../../../lib/api.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { formatDateTime } from '../../../lib/dates.ts';
import { formatSize } from './SnapshotsCard.tsx';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { RestoreAsNewDialog } from './RestoreAsNewDialog.tsx';
import { ConsistencyLabel } from './BackupConsistency.tsx';

/** A backup as the portal holds it (its times revived as Dates). */
type Backup = Omit<BackupWire, 'createdAt' | 'completedAt' | 'verifiedAt'> & {
  createdAt: Date;
  verifiedAt: Date | null;
};

const BACKUP_READS = [...VM_READS, routes.backups.listBackups];
/** The name is optional: left empty, the server names it after its time. */
const takeSchema = z.object({ name: z.union([z.literal(''), backupNameSchema]) });

const STATE_LABEL: Record<Backup['state'], string> = {
  queued: 'Queued: waiting for its turn on the host',
  creating: 'Being taken',
  ready: 'Ready',
  restoring: 'Restoring',
  deleting: 'Being deleted',
  failed: 'Failed',
};

function reasonFor(action: BackupActionName, status: VmStatus, permissions: readonly Permission[]) {
  return permissions.includes(BACKUP_ACTIONS[action].permission)
    ? actionUnavailableReason(action, status)
    : TEXT.roleLacks;
}

export function BackupsCard({
  vmId,
  status,
  permissions,
}: {
  vmId: number;
  status: VmStatus;
  permissions: readonly Permission[];
}) {
  const list = useRouteQuery(
    routes.backups.listBackups,
    { params: { id: vmId } },
    {
      // While something is under way (a verification too), look again soon; the VM's live status refreshes the details anyway.
      refetchInterval: (q) =>
        q.state.data?.backups.some((s) => (s.state !== 'ready' && s.state !== 'failed') || s.verifying)
          ? 2_000
          : 15_000,
    },
  );
  const take = useRouteMutation(routes.backups.takeBackup, { invalidates: BACKUP_READS });
  const revert = useRouteMutation(routes.backups.restoreBackup, { invalidates: BACKUP_READS });
  const remove = useRouteMutation(routes.backups.deleteBackup, { invalidates: BACKUP_READS });
  const verify = useRouteMutation(routes.backups.verifyBackup, { invalidates: BACKUP_READS });
  const [confirm, setConfirm] = useState<{ action: 'backupRestore' | 'backupDelete'; backup: Backup } | null>(null);
  // Restore as a new VM (issue 24 item 2): the new VM's name asked in its own dialog.
  const [asNew, setAsNew] = useState<Backup | null>(null);
  const form = useForm<{ name: string }>({ resolver: zodResolver(takeSchema), defaultValues: { name: '' } });

  const backups = list.data?.backups ?? [];
  const limit = list.data?.limit;
  const full = limit !== undefined && backups.filter((s) => s.state !== 'failed').length >= limit;
  const takeReason = reasonFor('backup', status, permissions) ?? (full ? BACKUP_TEXT.limit(limit) : null);

  const onTake = form.handleSubmit(({ name }) =>
    take.mutateAsync({ params: { id: vmId }, body: name ? { name } : {} }).then(
      () => {
        toast.success(BACKUP_ACTIONS.backup.accepted);
        form.reset({ name: '' });
      },
      () => undefined, // shown from take.error
    ),
  );

  function runConfirmed() {
    if (!confirm) return;
    const mutation = confirm.action === 'backupRestore' ? revert : remove;
    mutation.mutate(
      { params: { id: vmId, backupId: confirm.backup.id } },
      {
        onSuccess: () => {
          toast.success(BACKUP_ACTIONS[confirm.action].accepted);
          setConfirm(null);
        },
      },
    );
  }
  function verifyNow(backup: Backup) {
    verify.mutate(
      { params: { id: vmId, backupId: backup.id } },
      {
        onSuccess: () => toast.success(BACKUP_ACTIONS.backupVerify.accepted),
        onError: (err) => toast.error(errorMessage(err)),
      },
    );
  }
  function closeConfirm() {
    revert.reset();
    remove.reset();
    setConfirm(null);
  }

  return (
    <section
      aria-label={BACKUP_TEXT.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="flex items-baseline justify-between border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        {BACKUP_TEXT.title}
        {limit !== undefined && (
          <span className="text-xs font-normal text-slate-500 dark:text-slate-400" data-testid="backup-count">
            {`${backups.length} of ${limit}`}
          </span>
        )}
      </h2>
      <div className="space-y-4 p-4">
        <form onSubmit={onTake} className="flex flex-col gap-2 sm:flex-row sm:items-start" noValidate>
          <div className="min-w-0 flex-1">
            <TextField<{ name: string }>
              name="name"
              label={BACKUP_TEXT.nameLabel}
              register={form.register}
              errors={form.formState.errors}
              maxLength={64}
            />
          </div>
          <span title={takeReason ?? undefined} className="sm:mt-6">
            <Button
              type="submit"
              variant="secondary"
              className="w-full whitespace-nowrap"
              disabled={takeReason !== null || take.isPending}
              aria-description={takeReason ?? undefined}
            >
              <Archive className="h-4 w-4" /> {BACKUP_ACTIONS.backup.label}
            </Button>
          </span>
        </form>
        <ErrorText error={take.error} />
        <ErrorText error={list.error} />
        {list.data && backups.length === 0 && (
          <p className="text-sm text-slate-500 dark:text-slate-400">{BACKUP_TEXT.empty}</p>
        )}
        {backups.length > 0 && (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800" aria-label={BACKUP_TEXT.title}>
            {backups.map((s) => (
              <BackupRow
                key={s.id}
                backup={s}
                status={status}
                permissions={permissions}
                onAction={(action) => setConfirm({ action, backup: s })}
                onRestoreAsNew={() => setAsNew(s)}
                onVerify={() => verifyNow(s)}
                verifyPending={verify.isPending && verify.variables?.params.backupId === s.id}
              />
            ))}
          </ul>
        )}
      </div>
      {asNew && <RestoreAsNewDialog backup={asNew} onClose={() => setAsNew(null)} />}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.action === 'backupDelete' ? BACKUP_TEXT.deleteTitle : BACKUP_TEXT.restoreTitle}
        confirmLabel={confirm ? BACKUP_ACTIONS[confirm.action].label : ''}
        variant="danger"
        pending={revert.isPending || remove.isPending}
        error={confirm?.action === 'backupDelete' ? remove.error : revert.error}
        onConfirm={runConfirmed}
        onCancel={closeConfirm}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {confirm &&
            (confirm.action === 'backupDelete'
              ? BACKUP_TEXT.deleteText(confirm.backup.name)
              : BACKUP_TEXT.restoreText(confirm.backup.name))}
        </p>
      </ConfirmDialog>
    </section>
  );
}

function BackupRow({
  backup,
  status,
  permissions,
  onAction,
  onRestoreAsNew,
  onVerify,
  verifyPending,
}: {
  backup: Backup;
  status: VmStatus;
  permissions: readonly Permission[];
  onAction: (action: 'backupRestore' | 'backupDelete') => void;
  onRestoreAsNew: () => void;
  onVerify: () => void;
  verifyPending: boolean;
}) {
  const revertReason =
    reasonFor('backupRestore', status, permissions) ??
    (backup.state === 'ready' ? null : BACKUP_TEXT.notReady(backup.state));
  // A new VM in the backup's team: the team's create permission, whatever the VM's own status.
  const asNewReason = !permissions.includes('vm.create')
    ? TEXT.roleLacks
    : backup.state === 'ready'
      ? null
      : BACKUP_TEXT.notReady(backup.state);
  const deleteReason =
    reasonFor('backupDelete', status, permissions) ??
    (backup.state === 'ready' || backup.state === 'failed' ? null : BACKUP_TEXT.notReady(backup.state));
  const verifyReason =
    reasonFor('backupVerify', status, permissions) ??
    (backup.state !== 'ready'
      ? BACKUP_TEXT.notReady(backup.state)
      : backup.verifying
        ? BACKUP_TEXT.alreadyVerifying
        : null);
  const taken = backup.createdAt;
  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 py-2 text-sm" data-backup={backup.name}>
      <div className="min-w-0 flex-1 basis-52">
        <span className="block break-words font-medium text-slate-900 dark:text-slate-100">{backup.name}</span>
        <span className="block text-xs text-slate-500 dark:text-slate-400">
          <time dateTime={taken.toISOString()}>{formatDateTime(taken)}</time>
          {' · '}
          <span data-label="size">{formatSize(backup.sizeBytes)}</span>
          {backup.incremental && ' · incremental'}
          {backup.consistency && ' · '}
          <ConsistencyLabel consistency={backup.consistency} />
          {' · '}
          <span data-label="state" data-state={backup.state}>
            {STATE_LABEL[backup.state]}
          </span>
        </span>
        {backup.error && <span className="block text-xs text-red-600 dark:text-red-400">{backup.error}</span>}
        {/* Its verification (decision 0024): never shown as good once one failed; what it could not check, said;
            one queued or running (after the take, Verify now, the operator's schedule: decision 0026) said first. */}
        {backup.verifying ? (
          <span className="block text-xs text-slate-600 dark:text-slate-300" data-label="verification">
            {BACKUP_SCREEN_TEXT.verifying}
          </span>
        ) : backup.verificationError ? (
          <span className="block text-xs text-red-600 dark:text-red-400" data-label="verification">
            {BACKUP_SCREEN_TEXT.verificationFailed(backup.verificationError)}
          </span>
        ) : (
          backup.verifiedAt && (
            <span className="block text-xs text-slate-500 dark:text-slate-400" data-label="verification">
              {BACKUP_SCREEN_TEXT.verifiedAt(formatDateTime(backup.verifiedAt))}
              {backup.verificationNote && ` (${backup.verificationNote})`}
            </span>
          )
        )}
      </div>
      <div className="flex gap-2">
        <span title={revertReason ?? undefined}>
          <Button
            variant="secondary"
            disabled={revertReason !== null}
            aria-description={revertReason ?? undefined}
            aria-label={`${BACKUP_ACTIONS.backupRestore.label} from ${backup.name}`}
            onClick={() => onAction('backupRestore')}
          >
            <History className="h-4 w-4" /> {BACKUP_ACTIONS.backupRestore.label}
          </Button>
        </span>
        <span title={asNewReason ?? undefined}>
          <Button
            variant="secondary"
            disabled={asNewReason !== null}
            aria-description={asNewReason ?? undefined}
            aria-label={`${BACKUP_SCREEN_TEXT.restoreAsNew} from ${backup.name}`}
            onClick={onRestoreAsNew}
          >
            <CopyPlus className="h-4 w-4" aria-hidden />
            <span className="sr-only sm:not-sr-only">{BACKUP_SCREEN_TEXT.restoreAsNew}</span>
          </Button>
        </span>
        <span title={verifyReason ?? undefined}>
          <Button
            variant="secondary"
            disabled={verifyReason !== null || verifyPending}
            aria-description={verifyReason ?? undefined}
            aria-label={`${BACKUP_ACTIONS.backupVerify.label}: ${backup.name}`}
            onClick={onVerify}
          >
            <ShieldCheck className="h-4 w-4" aria-hidden />
            <span className="sr-only sm:not-sr-only">{BACKUP_ACTIONS.backupVerify.label}</span>
          </Button>
        </span>
        <span title={deleteReason ?? undefined}>
          <Button
            variant="danger"
            disabled={deleteReason !== null}
            aria-description={deleteReason ?? undefined}
            aria-label={`${BACKUP_ACTIONS.backupDelete.label} ${backup.name}`}
            onClick={() => onAction('backupDelete')}
          >
            <Trash2 className="h-4 w-4" />
          </Button>
        </span>
      </div>
    </li>
  );
}
