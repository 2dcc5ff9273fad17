/** "Delete {name}?" — the spec's confirmation: warning, error text, Delete (disabled while loading), Cancel. */
import type { ReactNode } from 'react';
import { TEXT } from '@portal/contract/messages';
import { ConfirmDialog } from './ConfirmDialog.tsx';

export interface DeleteConfirmationModalProps {
  /** What is about to be deleted; the dialog is open exactly while this is set. */
  target: { name: string } | null;
  /** What is deleted, e.g. "team", "user", "virtual machine". */
  item: string;
  pending?: boolean;
  /** The delete mutation's error, shown in the dialog. */
  error?: unknown;
  errorPrefix?: string;
  onConfirm: () => void;
  /** Cancel clears errors and closes. */
  onCancel: () => void;
  /** What the caller asks beside the spec's texts, under them (a VM's delete: keep its backups?). */
  children?: ReactNode;
}

export function DeleteConfirmationModal({
  target,
  item,
  pending = false,
  error,
  errorPrefix,
  onConfirm,
  onCancel,
  children,
}: DeleteConfirmationModalProps) {
  return (
    <ConfirmDialog
      open={target !== null}
      title={TEXT.deleteTitle(target?.name ?? '')}
      confirmLabel="Delete"
      variant="danger"
      showClose={false}
      pending={pending}
      error={error}
      {...(errorPrefix ? { errorPrefix } : {})}
      errorClassName="mt-3 rounded-md bg-red-50 dark:bg-red-950/50 px-3 py-2 text-sm text-red-700 dark:text-red-300"
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">{TEXT.deleteBody(item)}</p>
      <p className="mt-2 text-sm font-medium text-red-600 dark:text-red-400">{TEXT.cannotBeReversed}</p>
      {children}
    </ConfirmDialog>
  );
}
