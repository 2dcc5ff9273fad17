/**
 * The VM list's bulk actions (issue 25 item 2): with VMs chosen (or all matching the filters), Start, Stop or
 * Delete them in one call (POST /virtualMachines/bulk), after a confirmation (a delete is typed: "delete"), then
 * a summary of what was done and what was refused and why, as the server answered each VM.
 */
import { useState } from 'react';
import { VM_BULK_ACTIONS, VM_BULK_TEXT, type VmBulkAction, type VmBulkResult } from '@portal/contract/virtual-machines';
import { VM_ACTIONS, type VmStatus } from '@portal/contract/vm-actions';
import { BACKUP_SCREEN_TEXT } from '@portal/contract/backup-screens-text';
import { Button } from '../../../components/ui/Button.tsx';
import { ConfirmDialog } from '../../../components/ui/ConfirmDialog.tsx';
import { Modal } from '../../../components/ui/Modal.tsx';
import { useVmBulk } from '../api/vms.ts';
import { keepBackupsClass } from './KeepBackupsChoice.tsx';

/** What is chosen: some VMs by id, or every VM matching the list's filters. */
export type VmSelection = { kind: 'ids'; ids: number[] } | { kind: 'matching' };

export interface VmListFilterValues {
  search: string;
  status?: VmStatus | undefined;
  regionId?: number | undefined;
  teamId?: number | undefined;
}

export function VmBulkBar({
  selection,
  filters,
  onClear,
  onSelectAllMatching,
  canSelectAllMatching,
  chosenNames,
}: {
  /** What is chosen; the bar shows while something is (the summary outlives the selection it cleared). */
  selection: VmSelection;
  filters: VmListFilterValues;
  onClear: () => void;
  onSelectAllMatching: () => void;
  /** Every row of the page is chosen and there is more than one page: offer "all matching". */
  canSelectAllMatching: boolean;
  /** The chosen VMs' names, when all are known (chosen on this page): the confirmation names them. */
  chosenNames: string[] | null;
}) {
  const bulk = useVmBulk();
  const [asking, setAsking] = useState<VmBulkAction | null>(null);
  const [typed, setTyped] = useState('');
  // Issue 24 item 4: a bulk delete keeps every deleted VM's backups when ticked (default off).
  const [keepBackups, setKeepBackups] = useState(false);
  const [result, setResult] = useState<VmBulkResult | null>(null);
  const count = selection.kind === 'ids' ? selection.ids.length : null;

  function run(action: VmBulkAction) {
    const body =
      selection.kind === 'ids'
        ? { action, ids: selection.ids }
        : {
            action,
            matching: {
              search: filters.search,
              ...(filters.status ? { status: filters.status } : {}),
              ...(filters.regionId ? { regionId: filters.regionId } : {}),
              ...(filters.teamId ? { teamId: filters.teamId } : {}),
            },
          };
    bulk.mutate(
      { body: { ...body, ...(action === 'delete' && keepBackups && { keepBackups: true }) } },
      {
        onSuccess: ({ data }) => {
          setAsking(null);
          setTyped('');
          setKeepBackups(false);
          setResult(data);
          onClear();
        },
      },
    );
  }
  function cancel() {
    bulk.reset();
    setAsking(null);
    setTyped('');
    setKeepBackups(false);
  }

  const def = asking ? VM_ACTIONS[asking] : null;
  const verb = def?.label.toLowerCase() ?? '';
  const anySelected = selection.kind === 'matching' || selection.ids.length > 0;
  return (
    <>
      {anySelected && (
        <div
          role="toolbar"
          aria-label="Bulk actions"
          className="flex flex-wrap items-center gap-2 border-b border-slate-200 bg-brand-50/60 px-4 py-2 text-sm dark:border-slate-700 dark:bg-slate-800/60"
        >
          <span className="font-medium text-slate-800 dark:text-slate-100" data-testid="bulk-selected">
            {count === null ? VM_BULK_TEXT.allMatching : VM_BULK_TEXT.selected(count)}
          </span>
          {canSelectAllMatching && selection.kind === 'ids' && (
            <Button variant="ghost" className="px-2 py-1 underline" onClick={onSelectAllMatching}>
              {VM_BULK_TEXT.selectAllMatching}
            </Button>
          )}
          <span className="flex flex-wrap gap-2 sm:ml-auto">
            {VM_BULK_ACTIONS.map((action) => (
              <Button
                key={action}
                variant={action === 'delete' ? 'danger' : 'secondary'}
                className="px-3 py-1.5"
                onClick={() => setAsking(action)}
              >
                {VM_ACTIONS[action].label}
              </Button>
            ))}
            <Button variant="ghost" className="px-3 py-1.5" onClick={onClear}>
              {VM_BULK_TEXT.clear}
            </Button>
          </span>
        </div>
      )}
      {asking && def && (
        <ConfirmDialog
          open
          title={VM_BULK_TEXT.confirmTitle(def.label, count)}
          confirmLabel={def.label}
          variant={asking === 'delete' ? 'danger' : 'primary'}
          showClose={asking !== 'delete'}
          pending={bulk.isPending || (asking === 'delete' && typed.trim().toLowerCase() !== VM_BULK_TEXT.confirmWord)}
          error={bulk.error}
          onConfirm={() => run(asking)}
          onCancel={cancel}
        >
          <p className="text-sm text-slate-700 dark:text-slate-300">
            {VM_BULK_TEXT.confirmText(verb, def.participle, count)}
          </p>
          {chosenNames && chosenNames.length > 0 && (
            <p
              className="mt-2 break-words text-sm font-medium text-slate-800 dark:text-slate-200"
              data-testid="bulk-names"
            >
              {[...chosenNames].sort(byName.compare).join(', ')}
            </p>
          )}
          {asking === 'delete' && (
            <div className="mt-3 space-y-1">
              <p className="text-sm font-medium text-red-600 dark:text-red-400">{VM_BULK_TEXT.deleteWarning}</p>
              <label
                htmlFor="bulk-delete-confirm"
                className="block text-sm font-medium text-slate-700 dark:text-slate-300"
              >
                {VM_BULK_TEXT.typeToConfirm}
              </label>
              <input
                id="bulk-delete-confirm"
                value={typed}
                autoComplete="off"
                spellCheck={false}
                autoFocus
                onChange={(e) => setTyped(e.target.value)}
                className="block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-600 dark:bg-slate-900"
              />
              <div className="flex items-start gap-2 pt-2">
                <input
                  id="bulk-delete-keep-backups"
                  type="checkbox"
                  className={keepBackupsClass}
                  checked={keepBackups}
                  onChange={(e) => setKeepBackups(e.target.checked)}
                />
                <label
                  htmlFor="bulk-delete-keep-backups"
                  className="text-sm font-medium text-slate-800 dark:text-slate-200"
                >
                  {BACKUP_SCREEN_TEXT.keepOnBulkDelete}
                </label>
              </div>
            </div>
          )}
        </ConfirmDialog>
      )}
      {result && <BulkSummary result={result} onClose={() => setResult(null)} />}
    </>
  );
}

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** "10 stopped; 2 refused", then each refused VM with its reason, and the VMs acted on. */
function BulkSummary({ result, onClose }: { result: VmBulkResult; onClose: () => void }) {
  const participle = VM_ACTIONS[result.action].participle;
  // In the list's name order (batch-2 before batch-10); ids not found last.
  const outcomes = [...result.outcomes].sort((a, b) =>
    a.name === null || b.name === null
      ? (a.name === null ? 1 : 0) - (b.name === null ? 1 : 0)
      : byName.compare(a.name, b.name),
  );
  const refused = outcomes.filter((o) => o.outcome === 'refused');
  const done = outcomes.filter((o) => o.outcome === 'done');
  return (
    <Modal open title={VM_BULK_TEXT.summaryTitle} onClose={onClose} footer={<Button onClick={onClose}>Close</Button>}>
      <p
        className="text-base font-semibold text-slate-900 dark:text-slate-100"
        data-testid="bulk-summary"
        role="status"
      >
        {VM_BULK_TEXT.summary(result.done, participle, result.refused)}
      </p>
      {refused.length > 0 && (
        <section className="mt-3" aria-label={VM_BULK_TEXT.refusedHeading}>
          <h3 className="text-sm font-medium text-slate-700 dark:text-slate-300">{VM_BULK_TEXT.refusedHeading}</h3>
          <ul
            // Scrolls when long, so it takes focus to be scrolled by keyboard.
            tabIndex={0}
            aria-label={VM_BULK_TEXT.refusedHeading}
            className="mt-1 max-h-48 space-y-1 overflow-y-auto text-sm"
            data-testid="bulk-refused"
          >
            {refused.map((o) => (
              <li key={o.id} className="break-words text-red-700 dark:text-red-300">
                <span className="font-medium">{o.name ?? `#${o.id}`}</span>: {o.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
      {done.length > 0 && (
        <section className="mt-3" aria-label={VM_BULK_TEXT.doneHeading}>
          <h3 className="text-sm font-medium text-slate-700 dark:text-slate-300">{VM_BULK_TEXT.doneHeading}</h3>
          <p className="mt-1 break-words text-sm text-slate-600 dark:text-slate-400">
            {done.map((o) => o.name).join(', ')}
          </p>
        </section>
      )}
    </Modal>
  );
}
