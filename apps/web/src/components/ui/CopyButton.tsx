/** Copies a value, toasts "{label} copied to clipboard" and stays disabled for a second. */
import Copy from 'lucide-react/icons/copy';
import { useState } from 'react';
import { toast } from 'react-toastify';
import { COPY_FEEDBACK_MS } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';

export function CopyButton({
  label,
  value,
}: {
  label: string;
  value: string | (() => Promise<string | null> | string | null);
}) {
  const [busy, setBusy] = useState(false);
  async function copy() {
    setBusy(true);
    setTimeout(() => setBusy(false), COPY_FEEDBACK_MS);
    try {
      const text = typeof value === 'string' ? value : await value();
      if (!text) return;
      await navigator.clipboard.writeText(text);
      toast.success(TEXT.copied(label));
    } catch (err) {
      console.error(err);
    }
  }
  return (
    <button
      type="button"
      aria-label={`Copy ${label}`}
      disabled={busy}
      onClick={() => void copy()}
      className="rounded p-1 text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800 hover:text-slate-700 dark:hover:text-slate-100 disabled:opacity-40"
    >
      <Copy className="h-4 w-4" />
    </button>
  );
}
