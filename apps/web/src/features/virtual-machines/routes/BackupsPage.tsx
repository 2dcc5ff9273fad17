/**
 * /backups — the company's backups (issue 24 items 2 and 4; decision 0021): every backup the caller may see, with
 * those kept after their VM was deleted ("deleted VM: name"), each with its size, when it was taken, its state and
 * its verification ("Verifying…" while one is queued or runs); Verify now (decision 0026, no confirmation: it only reads
 * the copy), restore as a new VM (the new VM's name asked; the backup's region and size) and delete behind a
 * confirmation. The server decides who may do what (the backup's team, as its VM) and its refusals are shown as
 * it answered them.
 */
import Archive from 'lucide-react/icons/archive';
import CopyPlus from 'lucide-react/icons/copy-plus';
import ShieldCheck from 'lucide-react/icons/shield-check';
import Trash2 from 'lucide-react/icons/trash-2';
import { useState } from 'react';
import { Link } from 'react-router';
import { toast } from 'react-toastify';
import { routes } from '@portal/contract/routes';
import { BACKUP_TEXT, type Backup as BackupWire } from '@portal/contract/backups';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { BACKUP_ACTIONS } from '@portal/contract/vm-actions';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { DataTable } from '../../../components/ui/DataTable.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { PageLayout } from '../../../components/ui/PageLayout.tsx';
import { wrapClass } from '../../../components/ui/wrap.ts';
import { formatDateTime, type Revived } from '../../../lib/dates.ts';
import { errorMessage } from '../../../lib/api.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { formatSize } from '../components/SnapshotsCard.tsx';
import { RESTORE_AS_NEW_READS, RestoreAsNewDialog } from '../components/RestoreAsNewDialog.tsx';
import { ConsistencyLabel } from '../components/BackupConsistency.tsx';

type Backup = Revived<BackupWire>;

/** A state's words (a state the portal does not know yet shows as the server names it). */
const STATE_LABEL: Record<string, string> = {
  queued: 'Queued',
  creating: 'Being taken',
  ready: 'Ready',
  restoring: 'Restoring',
  deleting: 'Being deleted',
  failed: 'Failed',
};
const SETTLED: readonly string[] = ['ready', 'failed'];

const stateClass = (state: string) =>
  state === 'ready'
    ? 'text-emerald-700 dark:text-emerald-300'
    : state === 'failed'
      ? 'text-red-700 dark:text-red-300'
      : 'text-amber-700 dark:text-amber-300';

function VmOf({ backup }: { backup: Backup }) {
  if (backup.vmId === null)
    return (
      <span className="block text-xs text-slate-500 dark:text-slate-400" data-label="vm">
        {BACKUP_SCREEN_TEXT.deletedVm(backup.vmName)}
      </span>
    );
  return (
    <Link
      to={`/virtualMachineDetails/${backup.vmId}`}
      className={`block text-xs text-brand-700 underline hover:text-brand-800 dark:text-brand-300 ${wrapClass(backup.vmName)}`}
      data-label="vm"
    >
      {backup.vmName}
    </Link>
  );
}

function State({ backup }: { backup: Backup }) {
  return (
    <span className="block">
      <span className={`font-medium ${stateClass(backup.state)}`} data-label="state" data-state={backup.state}>
        {STATE_LABEL[backup.state] ?? backup.state}
      </span>
      {backup.error && <span className="block break-words text-xs text-red-700 dark:text-red-300">{backup.error}</span>}
    </span>
  );
}

function Verification({ backup }: { backup: Backup }) {
  if (backup.verifying)
    return (
      <span className="block text-xs text-slate-600 dark:text-slate-300" data-label="verification">
        {BACKUP_SCREEN_TEXT.verifying}
      </span>
    );
  if (backup.verificationError)
    return (
      <span className="block break-words text-xs text-red-700 dark:text-red-300" data-label="verification">
        {BACKUP_SCREEN_TEXT.verificationFailed(backup.verificationError)}
      </span>
    );
  if (backup.verifiedAt)
    return (
      <span className="block text-xs text-emerald-700 dark:text-emerald-300" data-label="verification">
        {BACKUP_SCREEN_TEXT.verifiedAt(formatDateTime(backup.verifiedAt))}
      </span>
    );
  return (
    <span className="block text-xs text-slate-500 dark:text-slate-400" data-label="verification">
      {BACKUP_SCREEN_TEXT.notVerified}
    </span>
  );
}

export function BackupsPage() {
  const list = useRouteQuery(
    routes.backups.listCompanyBackups,
    {},
    {
      // While one is under way, look again soon.
      refetchInterval: (q) =>
        q.state.data?.backups.some((b) => !SETTLED.includes(b.state) || b.verifying) ? 2_000 : 15_000,
    },
  );
  const remove = useRouteMutation(routes.backups.deleteKeptBackup, { invalidates: RESTORE_AS_NEW_READS });
  const verify = useRouteMutation(routes.backups.verifyKeptBackup, { invalidates: RESTORE_AS_NEW_READS });
  const [deleting, setDeleting] = useState<Backup | null>(null);
  const [restoring, setRestoring] = useState<Backup | null>(null);

  function confirmDelete() {
    if (!deleting) return;
    remove.mutate(
      { params: { backupId: deleting.id } },
      {
        onSuccess: () => {
          toast.success(BACKUP_ACTIONS.backupDelete.accepted);
          setDeleting(null);
        },
      },
    );
  }
  function verifyNow(backup: Backup) {
    verify.mutate(
      { params: { backupId: backup.id } },
      {
        onSuccess: () => toast.success(BACKUP_ACTIONS.backupVerify.accepted),
        onError: (err) => toast.error(errorMessage(err)),
      },
    );
  }
  function closeDelete() {
    remove.reset();
    setDeleting(null);
  }

  return (
    <PageLayout title={BACKUP_SCREEN_TEXT.title} secondaryTitle={BACKUP_SCREEN_TEXT.subtitle}>
      <div className="space-y-3">
        <p className="text-sm text-slate-600 dark:text-slate-300">{BACKUP_SCREEN_TEXT.intro}</p>
        <DataTable
          title={BACKUP_SCREEN_TEXT.title}
          icon={<Archive className="h-5 w-5" />}
          columns={[
            {
              key: 'name',
              header: 'Backup',
              render: (b) => (
                <span className="block min-w-0" data-backup={b.name}>
                  <span className={`block font-medium text-slate-900 dark:text-slate-100 ${wrapClass(b.name)}`}>
                    {b.name}
                  </span>
                  <VmOf backup={b} />
                  {/* On a phone the other columns are hidden: what they say is here. */}
                  <span className="mt-1 block space-y-0.5 text-xs text-slate-600 dark:text-slate-300 md:hidden">
                    <span className="block">
                      {`${formatSize(b.sizeBytes)}${b.incremental ? ' · incremental' : ''} · `}
                      <time dateTime={b.createdAt.toISOString()}>{formatDateTime(b.createdAt)}</time>
                    </span>
                    <ConsistencyLabel consistency={b.consistency} className="block" />
                    <State backup={b} />
                    <Verification backup={b} />
                  </span>
                </span>
              ),
            },
            {
              key: 'size',
              header: 'Size',
              hideOnSmall: true,
              align: 'right',
              render: (b) => (
                <span className="whitespace-nowrap tabular-nums" data-label="size">
                  {formatSize(b.sizeBytes)}
                  {b.incremental && (
                    <span className="block text-xs text-slate-500 dark:text-slate-400">incremental</span>
                  )}
                  <ConsistencyLabel
                    consistency={b.consistency}
                    className="block text-xs text-slate-500 dark:text-slate-400"
                  />
                </span>
              ),
            },
            {
              key: 'taken',
              header: 'Taken at',
              hideOnSmall: true,
              render: (b) => (
                <time dateTime={b.createdAt.toISOString()} className="whitespace-nowrap">
                  {formatDateTime(b.createdAt)}
                </time>
              ),
            },
            { key: 'state', header: 'State', hideOnSmall: true, render: (b) => <State backup={b} /> },
            {
              key: 'verification',
              header: 'Verification',
              hideOnSmall: true,
              render: (b) => <Verification backup={b} />,
            },
            {
              key: 'actions',
              header: <span className="sr-only">Actions</span>,
              align: 'right',
              render: (b) => (
                <Actions
                  backup={b}
                  onRestore={setRestoring}
                  onDelete={setDeleting}
                  onVerify={verifyNow}
                  verifyPending={verify.isPending && verify.variables?.params.backupId === b.id}
                />
              ),
            },
          ]}
          rows={list.error ? [] : list.data?.backups}
          rowKey={(b) => b.id}
          loading={list.isPending}
          error={errorText(list.error)}
          noDataMessage={BACKUP_SCREEN_TEXT.empty}
          onRefresh={() => list.refetch()}
          page={1}
          totalPages={1}
          onPageChange={() => {}}
        />
      </div>
      {restoring && <RestoreAsNewDialog backup={restoring} onClose={() => setRestoring(null)} />}
      <ConfirmDialog
        open={deleting !== null}
        title={BACKUP_TEXT.deleteTitle}
        confirmLabel={BACKUP_ACTIONS.backupDelete.label}
        variant="danger"
        showClose={false}
        pending={remove.isPending}
        error={remove.error}
        errorClassName="mt-3 rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
        onConfirm={confirmDelete}
        onCancel={closeDelete}
      >
        <p className="break-words text-sm text-slate-700 dark:text-slate-300">
          {deleting && BACKUP_TEXT.deleteText(deleting.name)}
        </p>
      </ConfirmDialog>
    </PageLayout>
  );
}

function Actions({
  backup,
  onRestore,
  onDelete,
  onVerify,
  verifyPending,
}: {
  backup: Backup;
  onRestore: (b: Backup) => void;
  onDelete: (b: Backup) => void;
  onVerify: (b: Backup) => void;
  verifyPending: boolean;
}) {
  const restoreReason =
    backup.state === 'ready' ? null : BACKUP_TEXT.notReady(STATE_LABEL[backup.state] ?? backup.state);
  const verifyReason =
    backup.state !== 'ready'
      ? BACKUP_TEXT.notReady(STATE_LABEL[backup.state] ?? backup.state)
      : backup.verifying
        ? BACKUP_TEXT.alreadyVerifying
        : null;
  const deleteReason = SETTLED.includes(backup.state)
    ? null
    : BACKUP_TEXT.notReady(STATE_LABEL[backup.state] ?? backup.state);
  return (
    <span className="inline-flex gap-2">
      <span title={restoreReason ?? undefined}>
        <Button
          variant="secondary"
          className="px-2.5 lg:px-3"
          disabled={restoreReason !== null}
          aria-description={restoreReason ?? undefined}
          aria-label={`${BACKUP_SCREEN_TEXT.restoreAsNew} from ${backup.name}`}
          onClick={() => onRestore(backup)}
        >
          <CopyPlus className="h-4 w-4 shrink-0" aria-hidden />
          <span className="hidden whitespace-nowrap lg:inline">{BACKUP_SCREEN_TEXT.restoreAsNew}</span>
        </Button>
      </span>
      <span title={verifyReason ?? undefined}>
        <Button
          variant="secondary"
          className="px-2.5 lg:px-3"
          disabled={verifyReason !== null || verifyPending}
          aria-description={verifyReason ?? undefined}
          aria-label={`${BACKUP_ACTIONS.backupVerify.label}: ${backup.name}`}
          onClick={() => onVerify(backup)}
        >
          <ShieldCheck className="h-4 w-4 shrink-0" aria-hidden />
          <span className="hidden whitespace-nowrap lg:inline">{BACKUP_ACTIONS.backupVerify.label}</span>
        </Button>
      </span>
      <span title={deleteReason ?? undefined}>
        <Button
          variant="danger"
          className="px-2.5"
          disabled={deleteReason !== null}
          aria-description={deleteReason ?? undefined}
          aria-label={`${BACKUP_ACTIONS.backupDelete.label} ${backup.name}`}
          onClick={() => onDelete(backup)}
        >
          <Trash2 className="h-4 w-4" aria-hidden />
        </Button>
      </span>
    </span>
  );
}
