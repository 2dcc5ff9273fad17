/**
 * The VM page's Snapshots card (issue 24 item 1): the VM's snapshots (name, size, time, state), a name and Take,
 * and per snapshot Revert and Delete behind a confirmation. What each may do when comes from SNAPSHOT_ACTIONS
 * (vm-lifecycle.ts) and the caller's permissions, as the actions card's buttons do.
 */
import { zodResolver } from '@hookform/resolvers/zod';
import Camera from 'lucide-react/icons/camera';
import History from 'lucide-react/icons/history';
import Trash2 from 'lucide-react/icons/trash-2';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { toast } from 'react-toastify';
import { z } from 'zod';
import { TEXT } from '@portal/contract/messages';
import type { Permission } from '@portal/contract/permissions';
import { routes } from '@portal/contract/routes';
import { snapshotNameSchema, type Snapshot as SnapshotWire } from '@portal/contract/snapshots';
import {
  actionUnavailableReason,
  SNAPSHOT_ACTIONS,
  SNAPSHOT_TEXT,
  type SnapshotActionName,
  type VmStatus,
} from '@portal/contract/vm-actions';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { ErrorText } from '../../../components/ui/ErrorText.tsx';
import { TextField } from '../../../components/ui/TextField.tsx';
import { VM_READS } from '../../../lib/reads.ts';
import { useRouteMutation, useRouteQuery } from '../../../lib/route-query.ts';
import { formatDateTime } from '../../../lib/dates.ts';

/** A snapshot as the portal holds it (its time revived as a Date). */
type Snapshot = Omit<SnapshotWire, 'createdAt'> & { createdAt: Date };

const SNAPSHOT_READS = [...VM_READS, routes.snapshots.listSnapshots];
const takeSchema = z.object({ name: snapshotNameSchema });

/** "1.2 GB", "340 MB", "12 KB": a snapshot's size on its host. */
export function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v >= 10 || u === 0 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

const STATE_LABEL: Record<Snapshot['state'], string> = {
  creating: 'Being taken',
  ready: 'Ready',
  reverting: 'Reverting',
  deleting: 'Being deleted',
  failed: 'Failed',
};

function reasonFor(action: SnapshotActionName, status: VmStatus, permissions: readonly Permission[]) {
  return permissions.includes(SNAPSHOT_ACTIONS[action].permission)
    ? actionUnavailableReason(action, status)
    : TEXT.roleLacks;
}

export function SnapshotsCard({
  vmId,
  status,
  permissions,
}: {
  vmId: number;
  status: VmStatus;
  permissions: readonly Permission[];
}) {
  const list = useRouteQuery(
    routes.snapshots.listSnapshots,
    { params: { id: vmId } },
    {
      // While something is under way, look again soon; the VM's live status refreshes the details anyway.
      refetchInterval: (q) =>
        q.state.data?.snapshots.some((s) => s.state !== 'ready' && s.state !== 'failed') ? 2_000 : 15_000,
    },
  );
  const take = useRouteMutation(routes.snapshots.takeSnapshot, { invalidates: SNAPSHOT_READS });
  const revert = useRouteMutation(routes.snapshots.revertSnapshot, { invalidates: SNAPSHOT_READS });
  const remove = useRouteMutation(routes.snapshots.deleteSnapshot, { invalidates: SNAPSHOT_READS });
  const [confirm, setConfirm] = useState<{ action: 'snapshotRevert' | 'snapshotDelete'; snap: Snapshot } | null>(null);
  const form = useForm<{ name: string }>({ resolver: zodResolver(takeSchema), defaultValues: { name: '' } });

  const snapshots = list.data?.snapshots ?? [];
  const limit = list.data?.limit;
  const full = limit !== undefined && snapshots.filter((s) => s.state !== 'failed').length >= limit;
  const takeReason = reasonFor('snapshot', status, permissions) ?? (full ? SNAPSHOT_TEXT.limit(limit) : null);

  const onTake = form.handleSubmit(({ name }) =>
    take.mutateAsync({ params: { id: vmId }, body: { name } }).then(
      () => {
        toast.success(SNAPSHOT_ACTIONS.snapshot.accepted);
        form.reset({ name: '' });
      },
      () => undefined, // shown from take.error
    ),
  );

  function runConfirmed() {
    if (!confirm) return;
    const mutation = confirm.action === 'snapshotRevert' ? revert : remove;
    mutation.mutate(
      { params: { id: vmId, snapshotId: confirm.snap.id } },
      {
        onSuccess: () => {
          toast.success(SNAPSHOT_ACTIONS[confirm.action].accepted);
          setConfirm(null);
        },
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
      aria-label={SNAPSHOT_TEXT.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <h2 className="flex items-baseline justify-between border-b border-slate-200 dark:border-slate-700 px-4 py-3 font-semibold text-slate-900 dark:text-slate-100">
        {SNAPSHOT_TEXT.title}
        {limit !== undefined && (
          <span className="text-xs font-normal text-slate-500 dark:text-slate-400" data-testid="snapshot-count">
            {`${snapshots.length} of ${limit}`}
          </span>
        )}
      </h2>
      <div className="space-y-4 p-4">
        <form onSubmit={onTake} className="flex flex-col gap-2 sm:flex-row sm:items-start" noValidate>
          <div className="min-w-0 flex-1">
            <TextField<{ name: string }>
              name="name"
              label={SNAPSHOT_TEXT.nameLabel}
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
              <Camera className="h-4 w-4" /> {SNAPSHOT_ACTIONS.snapshot.label}
            </Button>
          </span>
        </form>
        <ErrorText error={take.error} />
        <ErrorText error={list.error} />
        {list.data && snapshots.length === 0 && (
          <p className="text-sm text-slate-500 dark:text-slate-400">{SNAPSHOT_TEXT.empty}</p>
        )}
        {snapshots.length > 0 && (
          <ul className="divide-y divide-slate-100 dark:divide-slate-800" aria-label={SNAPSHOT_TEXT.title}>
            {snapshots.map((s) => (
              <SnapshotRow
                key={s.id}
                snap={s}
                status={status}
                permissions={permissions}
                onAction={(action) => setConfirm({ action, snap: s })}
              />
            ))}
          </ul>
        )}
      </div>
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.action === 'snapshotDelete' ? SNAPSHOT_TEXT.deleteTitle : SNAPSHOT_TEXT.revertTitle}
        confirmLabel={confirm ? SNAPSHOT_ACTIONS[confirm.action].label : ''}
        variant="danger"
        pending={revert.isPending || remove.isPending}
        error={confirm?.action === 'snapshotDelete' ? remove.error : revert.error}
        onConfirm={runConfirmed}
        onCancel={closeConfirm}
      >
        <p className="text-sm text-slate-700 dark:text-slate-300">
          {confirm &&
            (confirm.action === 'snapshotDelete'
              ? SNAPSHOT_TEXT.deleteText(confirm.snap.name)
              : SNAPSHOT_TEXT.revertText(confirm.snap.name))}
        </p>
      </ConfirmDialog>
    </section>
  );
}

function SnapshotRow({
  snap,
  status,
  permissions,
  onAction,
}: {
  snap: Snapshot;
  status: VmStatus;
  permissions: readonly Permission[];
  onAction: (action: 'snapshotRevert' | 'snapshotDelete') => void;
}) {
  const revertReason =
    reasonFor('snapshotRevert', status, permissions) ??
    (snap.state === 'ready' ? null : SNAPSHOT_TEXT.notReady(snap.state));
  const deleteReason =
    reasonFor('snapshotDelete', status, permissions) ??
    (snap.state === 'ready' || snap.state === 'failed' ? null : SNAPSHOT_TEXT.notReady(snap.state));
  const taken = snap.createdAt;
  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 py-2 text-sm" data-snapshot={snap.name}>
      <div className="min-w-0 flex-1">
        <span className="block break-words font-medium text-slate-900 dark:text-slate-100">{snap.name}</span>
        <span className="block text-xs text-slate-500 dark:text-slate-400">
          <time dateTime={taken.toISOString()}>{formatDateTime(taken)}</time>
          {' · '}
          <span data-label="size">{formatSize(snap.sizeBytes)}</span>
          {snap.includesMemory && ' · with memory'}
          {' · '}
          <span data-label="state" data-state={snap.state}>
            {STATE_LABEL[snap.state]}
          </span>
        </span>
        {snap.error && <span className="block text-xs text-red-600 dark:text-red-400">{snap.error}</span>}
      </div>
      <div className="flex gap-2">
        <span title={revertReason ?? undefined}>
          <Button
            variant="secondary"
            disabled={revertReason !== null}
            aria-description={revertReason ?? undefined}
            aria-label={`${SNAPSHOT_ACTIONS.snapshotRevert.label} to ${snap.name}`}
            onClick={() => onAction('snapshotRevert')}
          >
            <History className="h-4 w-4" /> {SNAPSHOT_ACTIONS.snapshotRevert.label}
          </Button>
        </span>
        <span title={deleteReason ?? undefined}>
          <Button
            variant="danger"
            disabled={deleteReason !== null}
            aria-description={deleteReason ?? undefined}
            aria-label={`${SNAPSHOT_ACTIONS.snapshotDelete.label} ${snap.name}`}
            onClick={() => onAction('snapshotDelete')}
          >
            <Trash2 className="h-4 w-4" />
          </Button>
        </span>
      </div>
    </li>
  );
}
