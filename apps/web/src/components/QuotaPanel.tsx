/**
 * Usage against limits (issue 22), for a company (reseller area) or a team (company administrator): one row per
 * limited thing, and, when the caller may, an inline edit of the limits (empty = no limit). The server checks again.
 */
import { useState } from 'react';
import { QUOTA_KEYS, QUOTA_MAX, QUOTA_TEXT, type Quota, type QuotaLimits } from '@portal/contract/quotas';
import { Button } from './ui/Button.tsx';
import { ErrorText } from './ui/ErrorText.tsx';

type Draft = Record<keyof QuotaLimits, string>;
const toDraft = (l: QuotaLimits): Draft =>
  Object.fromEntries(QUOTA_KEYS.map((k) => [k, l[k] === null ? '' : String(l[k])])) as Draft;
const fromDraft = (d: Draft): QuotaLimits =>
  Object.fromEntries(QUOTA_KEYS.map((k) => [k, d[k].trim() === '' ? null : Number(d[k])])) as QuotaLimits;

export function QuotaPanel({
  quota,
  message,
  cap,
  canEdit,
  onSave,
  saving,
  error,
  errorPrefix,
}: {
  quota: Quota;
  message: string;
  /** The limits above these (a team's company's), shown beside each row. */
  cap?: QuotaLimits;
  canEdit: boolean;
  onSave: (limits: QuotaLimits) => Promise<unknown>;
  saving: boolean;
  error: unknown;
  errorPrefix: string;
}) {
  const [draft, setDraft] = useState<Draft | null>(null);
  const save = () => {
    if (draft)
      void onSave(fromDraft(draft)).then(
        () => setDraft(null),
        () => undefined,
      );
  };
  return (
    <section
      aria-label={QUOTA_TEXT.title}
      className="rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-700 dark:bg-slate-900"
    >
      <div className="flex items-center justify-between gap-3 border-b border-slate-200 px-4 py-3 dark:border-slate-700">
        <div>
          <h2 className="text-base font-semibold text-slate-900 dark:text-slate-100">{QUOTA_TEXT.title}</h2>
          <p className="text-sm text-slate-500 dark:text-slate-400">{message}</p>
        </div>
        {canEdit && !draft && (
          <Button variant="secondary" onClick={() => setDraft(toDraft(quota.limits))}>
            {QUOTA_TEXT.edit}
          </Button>
        )}
      </div>
      <table className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-700">
        <thead className="bg-slate-50 dark:bg-slate-800/50">
          <tr>
            {['Resource', 'In use', 'Limit', ...(cap ? ["Company's limit"] : [])].map((h) => (
              <th key={h} scope="col" className="px-4 py-2 text-left font-medium text-slate-600 dark:text-slate-300">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {QUOTA_KEYS.map((key) => {
            const limit = quota.limits[key];
            const over = limit !== null && quota.usage[key] >= limit;
            return (
              <tr key={key}>
                <th scope="row" className="px-4 py-2 text-left font-medium text-slate-700 dark:text-slate-200">
                  {QUOTA_TEXT.labels[key]}
                </th>
                <td
                  className={`px-4 py-2 ${over ? 'font-semibold text-amber-700 dark:text-amber-400' : 'text-slate-700 dark:text-slate-300'}`}
                >
                  {quota.usage[key]}
                </td>
                <td className="px-4 py-2 text-slate-700 dark:text-slate-300">
                  {draft ? (
                    <input
                      type="number"
                      min={0}
                      max={cap?.[key] ?? QUOTA_MAX}
                      step={1}
                      aria-label={`${QUOTA_TEXT.labels[key]} limit`}
                      placeholder={QUOTA_TEXT.noLimit}
                      value={draft[key]}
                      onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
                      className="w-32 rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-600 dark:bg-slate-800"
                    />
                  ) : (
                    (limit ?? QUOTA_TEXT.noLimit)
                  )}
                </td>
                {cap && (
                  <td className="px-4 py-2 text-slate-500 dark:text-slate-400">{cap[key] ?? QUOTA_TEXT.noLimit}</td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {draft && (
        <div className="flex gap-2 border-t border-slate-200 px-4 py-3 dark:border-slate-700">
          <Button onClick={save} disabled={saving}>
            {QUOTA_TEXT.save}
          </Button>
          <Button variant="secondary" onClick={() => setDraft(null)} disabled={saving}>
            Cancel
          </Button>
        </div>
      )}
      <ErrorText error={error} prefix={errorPrefix} className="px-4 pb-3 text-sm text-red-600 dark:text-red-400" />
    </section>
  );
}
