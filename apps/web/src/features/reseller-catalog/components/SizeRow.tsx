/** One size of the catalog table: its prices, snapshot and backup limits edited in place, and whether it is offered. */
import { useState } from 'react';
import { toast } from 'react-toastify';
import { BACKUPS, SNAPSHOTS } from '@portal/contract/constants';
import { backupLimitSchema, snapshotLimitSchema, type ResellerSize } from '@portal/contract/reseller-catalog';
import { Button } from '../../../components/ui/Button.tsx';
import { errorText } from '../../../components/ui/ErrorText.tsx';
import { useSaveSize } from '../api/catalog.ts';

/** A typed limit: empty is the default (null); anything but digits is refused with the server's own message. */
const typedLimit = (typed: string) => {
  const t = typed.trim();
  return t === '' ? null : /^\d+$/.test(t) ? Number(t) : NaN;
};

const input =
  'w-28 rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1 text-sm text-right focus:border-brand-500 focus:outline-none focus:ring-2 focus:ring-brand-500/30';

export function SizeRow({ size, currency, mayEdit }: { size: ResellerSize; currency: string; mayEdit: boolean }) {
  const save = useSaveSize();
  const [editing, setEditing] = useState(false);
  const [monthly, setMonthly] = useState(size.monthlyPrice ?? '');
  const [hourly, setHourly] = useState(size.hourlyPrice ?? '');
  const [snapshots, setSnapshots] = useState(size.snapshotLimit === null ? '' : String(size.snapshotLimit));
  const [backups, setBackups] = useState(size.backupLimit === null ? '' : String(size.backupLimit));
  const [limitError, setLimitError] = useState<string | null>(null);

  const submit = (offered: boolean) => {
    const limit = snapshotLimitSchema.safeParse(typedLimit(snapshots));
    const backupLimit = backupLimitSchema.safeParse(typedLimit(backups));
    if (editing && !limit.success) {
      setLimitError(limit.error.issues[0]?.message ?? null);
      return;
    }
    if (editing && !backupLimit.success) {
      setLimitError(backupLimit.error.issues[0]?.message ?? null);
      return;
    }
    setLimitError(null);
    save.mutate(
      {
        params: { id: size.id },
        body: {
          monthlyPrice: monthly,
          hourlyPrice: hourly,
          offered,
          ...(editing && limit.success && { snapshotLimit: limit.data }),
          ...(editing && backupLimit.success && { backupLimit: backupLimit.data }),
        },
      },
      {
        onSuccess: () => {
          setEditing(false);
          toast.success(`${size.name}: ${offered ? 'offered' : 'withdrawn'}`);
        },
      },
    );
  };
  const priced = size.monthlyPrice !== null;
  const error = limitError ?? errorText(save.error);

  return (
    <tr data-size={size.key}>
      <td className="px-4 py-2.5 font-medium text-slate-900 dark:text-slate-100">{size.name}</td>
      <td className="hidden px-4 py-2.5 text-slate-600 dark:text-slate-300 md:table-cell">
        {`${size.cpu} cores / ${size.ram} GB RAM / ${size.disk} GB disk`}
      </td>
      {editing ? (
        <>
          <td className="px-4 py-2.5 text-right">
            <input
              aria-label={`${size.name} monthly price`}
              className={input}
              value={monthly}
              inputMode="decimal"
              onChange={(e) => setMonthly(e.target.value)}
            />
          </td>
          <td className="px-4 py-2.5 text-right">
            <input
              aria-label={`${size.name} hourly price`}
              className={input}
              value={hourly}
              inputMode="decimal"
              onChange={(e) => setHourly(e.target.value)}
            />
          </td>
          <td className="px-4 py-2.5 text-right">
            <input
              aria-label={`${size.name} snapshot limit`}
              className={input.replace('w-28', 'w-20')}
              value={snapshots}
              inputMode="numeric"
              placeholder={`${SNAPSHOTS.defaultPerVm}`}
              onChange={(e) => setSnapshots(e.target.value)}
            />
          </td>
          <td className="px-4 py-2.5 text-right">
            <input
              aria-label={`${size.name} backup limit`}
              className={input.replace('w-28', 'w-20')}
              value={backups}
              inputMode="numeric"
              placeholder={`${BACKUPS.defaultPerVm}`}
              onChange={(e) => setBackups(e.target.value)}
            />
          </td>
        </>
      ) : (
        <>
          <td className="px-4 py-2.5 text-right tabular-nums">{priced ? `${size.monthlyPrice} ${currency}` : '—'}</td>
          <td className="px-4 py-2.5 text-right tabular-nums">{priced ? `${size.hourlyPrice} ${currency}` : '—'}</td>
          <td className="px-4 py-2.5 text-right tabular-nums" data-snapshot-limit={size.snapshotLimit ?? ''}>
            {size.snapshotLimit === null ? `${SNAPSHOTS.defaultPerVm} (default)` : size.snapshotLimit}
          </td>
          <td className="px-4 py-2.5 text-right tabular-nums" data-backup-limit={size.backupLimit ?? ''}>
            {size.backupLimit === null ? `${BACKUPS.defaultPerVm} (default)` : size.backupLimit}
          </td>
        </>
      )}
      <td className="px-4 py-2.5 text-center">
        <span
          data-offered={size.offered}
          className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-medium ring-1 ring-inset ${
            size.offered
              ? 'bg-emerald-100 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-900/50 dark:text-emerald-200'
              : 'bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300'
          }`}
        >
          {size.offered ? 'Offered' : 'Not offered'}
        </span>
      </td>
      <td className="px-4 py-2.5 text-right">
        {mayEdit && (
          <div className="flex flex-col items-end gap-1">
            <div className="flex justify-end gap-2">
              {editing ? (
                <>
                  <Button
                    variant="secondary"
                    onClick={() => {
                      setEditing(false);
                      setLimitError(null);
                    }}
                  >
                    Cancel
                  </Button>
                  <Button disabled={save.isPending} onClick={() => submit(true)}>
                    Save and offer
                  </Button>
                </>
              ) : (
                <>
                  <Button variant="secondary" onClick={() => setEditing(true)}>
                    Edit prices
                  </Button>
                  {priced && (
                    <Button
                      variant={size.offered ? 'ghost' : 'primary'}
                      disabled={save.isPending}
                      onClick={() => submit(!size.offered)}
                    >
                      {size.offered ? 'Withdraw' : 'Offer'}
                    </Button>
                  )}
                </>
              )}
            </div>
            {error && (
              <p role="alert" className="max-w-sm text-right text-xs text-red-600 dark:text-red-400">
                {error}
              </p>
            )}
          </div>
        )}
      </td>
    </tr>
  );
}
