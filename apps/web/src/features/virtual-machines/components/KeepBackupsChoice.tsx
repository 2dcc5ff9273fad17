/**
 * The delete dialogs' question (issue 24 item 4; decision 0021 "Deleting a VM"): when the VM has backups, whether to
 * keep them (they stay billed and can be restored as a new VM). Default off: the VM's backups go with it, as
 * before. Shown under the spec's delete texts, which stay as they are.
 */
import { useId } from 'react';
import { routes } from '@portal/contract/routes';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { useRouteQuery } from '../../../lib/route-query.ts';

/** Backups a delete keeps when asked: those taken (a take that never finished goes either way). */
const KEPT_STATES: readonly string[] = ['ready', 'restoring'];

export const keepBackupsClass =
  'mt-0.5 h-4 w-4 shrink-0 rounded border-slate-400 accent-brand-600 dark:border-slate-500';

export function KeepBackupsChoice({
  vmId,
  checked,
  onChange,
}: {
  vmId: number;
  checked: boolean;
  onChange: (keep: boolean) => void;
}) {
  const id = useId();
  const list = useRouteQuery(routes.backups.listBackups, { params: { id: vmId } }, { staleTime: 0 });
  const count = (list.data?.backups ?? []).filter((b) => KEPT_STATES.includes(b.state)).length;
  if (count === 0) return null;
  return (
    <div
      className="mt-3 space-y-2 rounded-md border border-slate-200 px-3 py-2 dark:border-slate-700"
      data-testid="keep-backups"
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">{BACKUP_SCREEN_TEXT.hasBackups(count)}</p>
      <div className="flex items-start gap-2">
        <input
          id={id}
          type="checkbox"
          className={keepBackupsClass}
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
        />
        <label htmlFor={id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
          {BACKUP_SCREEN_TEXT.keepOnDelete}
        </label>
      </div>
    </div>
  );
}
