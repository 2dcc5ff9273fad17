/**
 * The accent colour (issue 25 item 8): a colour picker beside its #rrggbb text, and the contrast it has where the
 * portal uses it, computed (WCAG AA: 4.5:1 for text, 3:1 for icons and focus rings). Text on the accent is white or
 * near-black, whichever reads (brand-colors.ts textOn), and links use a computed shade, so what can still fall short
 * is the accent itself on the light page (icons, focus rings): a warning with the number; the reseller may still save.
 */
import { useId } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { ACCENT_PATTERN, accentChecks } from '@portal/contract/brand-colors';
import type { BrandingForm } from '@portal/contract/reseller-branding';
import { TextField } from '../../../components/ui/TextField.tsx';

const PORTAL_BLUE = '#2563eb';

export function AccentField() {
  const id = useId();
  const { control, setValue } = useFormContext<BrandingForm>();
  const value = (useWatch({ control, name: 'accentColor' }) ?? '').trim();
  const valid = ACCENT_PATTERN.test(value);
  const checks = valid ? accentChecks(value) : [];
  const failing = checks.filter((c) => !c.passes);
  return (
    <div className="space-y-2 sm:col-span-2">
      <div className="flex items-end gap-3">
        <TextField<BrandingForm> name="accentColor" label="Accent colour" placeholder={PORTAL_BLUE} className="w-40" />
        <input
          type="color"
          aria-label="Pick the accent colour"
          value={valid ? value.toLowerCase() : PORTAL_BLUE}
          onChange={(e) => setValue('accentColor', e.target.value, { shouldDirty: true, shouldValidate: true })}
          className="mb-0.5 h-9 w-12 cursor-pointer rounded border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 p-0.5"
        />
      </div>
      {valid && (
        <div id={`${id}-checks`} data-testid="accent-checks" className="space-y-1 text-sm">
          <ul className="space-y-0.5">
            {checks.map((c) => (
              <li key={c.label} className="flex flex-wrap items-center gap-x-2">
                <span
                  className={`font-mono tabular-nums ${c.passes ? 'text-green-700 dark:text-green-400' : 'text-amber-700 dark:text-amber-300'}`}
                >
                  {c.ratio.toFixed(2)}:1
                </span>
                <span className="text-slate-600 dark:text-slate-400">{c.label}</span>
              </li>
            ))}
          </ul>
          {failing.length > 0 && (
            <p
              role="status"
              data-testid="accent-warning"
              className="rounded-md bg-amber-50 dark:bg-amber-950/50 px-3 py-2 text-amber-800 dark:text-amber-200"
            >
              {`Low contrast: ${failing.map((c) => `${c.label.toLowerCase()} is ${c.ratio.toFixed(2)}:1, below the ${c.needed}:1 needed`).join('; ')}. Buttons and links stay readable (their text colour is chosen for the accent); for the rest, choose a darker or lighter colour.`}
            </p>
          )}
        </div>
      )}
    </div>
  );
}
