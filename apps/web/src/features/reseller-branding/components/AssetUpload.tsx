/**
 * "Upload logo" / "Upload tab icon" (issue 25 item 8): the chosen file goes to the portal as it is; the server reads
 * its type from its bytes and refuses anything but PNG, JPEG or WebP within the size limits, with its message here.
 * Once stored it is the brand's at once (the reseller's own shell and tab follow: the caller refreshes the reads).
 */
import Upload from 'lucide-react/icons/upload';
import { useId, useRef, useState } from 'react';
import { BRAND_ASSET_MAX_BYTES, type BrandAssetKind } from '@portal/contract/reseller-branding';

const ACCEPT = 'image/png,image/jpeg,image/webp';

function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read'));
    reader.readAsDataURL(file);
  });
}

export function AssetUpload({
  kind,
  label,
  disabled,
  onUpload,
}: {
  kind: BrandAssetKind;
  label: string;
  disabled: boolean;
  /** Sends the file; rejects with the server's message. */
  onUpload: (body: { data: string; fileName: string; contentType: string }) => Promise<unknown>;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const onChange = async (file: File | undefined) => {
    if (!file) return;
    setError(null);
    setBusy(true);
    try {
      await onUpload({ data: await base64Of(file), fileName: file.name, contentType: file.type });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <div className="space-y-1">
      <input
        ref={input}
        id={id}
        type="file"
        accept={ACCEPT}
        className="sr-only"
        disabled={disabled || busy}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        onChange={(e) => void onChange(e.target.files?.[0])}
      />
      <label
        htmlFor={id}
        className={`inline-flex cursor-pointer items-center gap-2 rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 py-1.5 text-sm font-medium text-slate-700 dark:text-slate-300 hover:bg-slate-50 dark:hover:bg-slate-800 has-[:focus-visible]:outline-2 ${disabled || busy ? 'pointer-events-none opacity-60' : ''}`}
      >
        <Upload className="h-4 w-4" aria-hidden />
        {busy ? 'Uploading…' : label}
      </label>
      <p id={`${id}-hint`} className="text-xs text-slate-500 dark:text-slate-400">
        PNG, JPEG or WebP, up to {BRAND_ASSET_MAX_BYTES[kind] / 1024} KB
      </p>
      {error && (
        <p id={`${id}-error`} role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}
