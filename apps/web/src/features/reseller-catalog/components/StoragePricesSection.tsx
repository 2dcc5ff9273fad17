/**
 * The catalog's storage prices (issue 24 item 4): what the reseller's customers pay per GB-month for the snapshots
 * and backups they keep, prorated by the second (docs/billing-webhook.md "Storage"). Empty: no price (the usage
 * still shows, with no amount). Owners edit; support staff read.
 */
import { useState, type FormEvent } from 'react';
import { toast } from 'react-toastify';
import { CATALOG_TEXT, gbMonthPriceSchema, type StoragePrices } from '@portal/contract/reseller-catalog';
import { Button } from '../../../components/ui/Button.tsx';
import { ErrorText, errorText } from '../../../components/ui/ErrorText.tsx';
import { Spinner } from '../../../components/ui/Spinner.tsx';
import { inputClass } from '../../../components/ui/TextField.tsx';
import { useSaveStoragePrices, useStoragePrices } from '../api/catalog.ts';

const card = 'rounded-lg border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900';
const KINDS = [
  { kind: 'snapshot', label: 'Snapshots' },
  { kind: 'backup', label: 'Backups' },
] as const;
type Kind = (typeof KINDS)[number]['kind'];

function StorageForm({ prices, mayEdit }: { prices: StoragePrices; mayEdit: boolean }) {
  const save = useSaveStoragePrices();
  const [typed, setTyped] = useState<Record<Kind, string>>({
    snapshot: prices.snapshot ?? '',
    backup: prices.backup ?? '',
  });
  const [errors, setErrors] = useState<Partial<Record<Kind, string>>>({});

  const submit = (e: FormEvent) => {
    e.preventDefault();
    // Empty is no price; anything else must read as the server reads it (its own message).
    const found: Partial<Record<Kind, string>> = {};
    for (const { kind } of KINDS)
      if (typed[kind].trim() !== '' && !gbMonthPriceSchema.safeParse(typed[kind]).success)
        found[kind] = CATALOG_TEXT.gbMonthPrice;
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const value = (kind: Kind) => (typed[kind].trim() === '' ? null : typed[kind].trim());
    save.mutate(
      { body: { snapshot: value('snapshot'), backup: value('backup') } },
      { onSuccess: () => toast.success(CATALOG_TEXT.storagePricesSaved) },
    );
  };

  return (
    <form onSubmit={submit} noValidate className="flex flex-wrap items-start gap-4 px-4 py-3">
      {KINDS.map(({ kind, label }) => {
        const id = `storage-price-${kind}`;
        return (
          <div key={kind} className="w-full space-y-1 sm:w-56">
            <label htmlFor={id} className="block text-sm font-medium text-slate-700 dark:text-slate-300">
              {label} ({prices.currency} per GB-month)
            </label>
            {mayEdit ? (
              <input
                id={id}
                className={inputClass}
                value={typed[kind]}
                inputMode="decimal"
                placeholder="No price"
                aria-invalid={errors[kind] ? true : undefined}
                aria-describedby={errors[kind] ? `${id}-error` : undefined}
                onChange={(e) => setTyped({ ...typed, [kind]: e.target.value })}
              />
            ) : (
              <p id={id} className="py-2 text-sm tabular-nums text-slate-900 dark:text-slate-100">
                {prices[kind] ?? 'No price'}
              </p>
            )}
            {errors[kind] && (
              <p id={`${id}-error`} role="alert" className="text-xs text-red-600 dark:text-red-400">
                {errors[kind]}
              </p>
            )}
          </div>
        );
      })}
      {mayEdit && (
        <div className="flex w-full flex-col gap-1 sm:w-auto sm:pt-6">
          <Button type="submit" disabled={save.isPending}>
            Save storage prices
          </Button>
          {save.error && (
            <p role="alert" className="max-w-sm text-xs text-red-600 dark:text-red-400">
              {errorText(save.error)}
            </p>
          )}
        </div>
      )}
    </form>
  );
}

export function StoragePricesSection({ mayEdit }: { mayEdit: boolean }) {
  const prices = useStoragePrices();
  return (
    <section className={`${card} mb-6`} aria-labelledby="storage-title">
      <div className="border-b border-slate-200 px-4 py-3 dark:border-slate-700">
        <h2 id="storage-title" className="font-semibold text-slate-900 dark:text-slate-100">
          Storage
        </h2>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          What your customers pay for the snapshots and backups they keep, per GB (1024³ bytes) per month, counted by
          the second. Leave a price empty to not charge for it.
        </p>
      </div>
      {prices.isPending ? (
        <div className="p-6">
          <Spinner />
        </div>
      ) : prices.error ? (
        <ErrorText error={prices.error} className="p-4 text-sm text-red-600" />
      ) : (
        <StorageForm key={`${prices.data.snapshot}:${prices.data.backup}`} prices={prices.data} mayEdit={mayEdit} />
      )}
    </section>
  );
}
