/**
 * A miniature of what the entered brand looks like: the browser tab (icon and title), the sign-in card and the
 * portal's sidebar. It follows the form as you type; nothing is saved until Save.
 */
import { DEFAULT_BRAND } from '@portal/contract/constants';
import { TEXT } from '@portal/contract/messages';
import { ACCENT_PATTERN, textOn } from '@portal/contract/brand-colors';
import { BRAND_ASSET_PATH, BRANDING_TEXT } from '@portal/contract/reseller-branding';

/** SPEC point 1's default tab icon: a plain white circle. */
const DEFAULT_TAB_ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PGNpcmNsZSBjeD0iMTYiIGN5PSIxNiIgcj0iMTQiIGZpbGw9IiNmZmYiIHN0cm9rZT0iI2QxZDVkYiIgc3Ryb2tlLXdpZHRoPSIxIi8+PC9zdmc+';

/** Only what the form would accept is drawn (never a javascript: or other odd URL typed half-way). */
const shownUrl = (url: string | null | undefined) =>
  url && (/^(https?:\/\/\S+|data:image\/[a-z0-9.+-]+[;,]\S*)$/i.test(url.trim()) || BRAND_ASSET_PATH.test(url.trim()))
    ? url.trim()
    : null;

export function BrandPreview({
  name,
  logoUrl,
  tabLogoUrl,
  accentColor,
}: {
  name: string;
  logoUrl: string | null | undefined;
  tabLogoUrl: string | null | undefined;
  accentColor?: string | null | undefined;
}) {
  // The accent as typed, once it is a colour, with the text the portal writes on it; the portal's blue until then.
  const typed = accentColor?.trim();
  const accent = typed && ACCENT_PATTERN.test(typed) ? { backgroundColor: typed, color: textOn(typed) } : {};
  const title = name.trim() || DEFAULT_BRAND.acronymTitle;
  const logo = shownUrl(logoUrl);
  const icon = shownUrl(tabLogoUrl) ?? DEFAULT_TAB_ICON;
  return (
    <section aria-label={BRANDING_TEXT.previewHeading} className="space-y-3">
      <h2 className="text-sm font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">
        {BRANDING_TEXT.previewHeading}
      </h2>
      <div className="overflow-hidden rounded-lg border border-slate-300 dark:border-slate-600 shadow-sm">
        {/* The browser tab */}
        <div className="flex items-end gap-2 bg-slate-200 dark:bg-slate-800 px-2 pt-2">
          <div
            className="flex max-w-[14rem] items-center gap-2 rounded-t-md bg-white dark:bg-slate-900 px-3 py-1.5 text-xs text-slate-700 dark:text-slate-200"
            data-testid="preview-tab"
          >
            <img src={icon} alt="" className="h-4 w-4 shrink-0 rounded-full border border-slate-300" />
            <span className="truncate" data-testid="preview-tab-title">
              {title}
            </span>
          </div>
        </div>
        <div className="flex h-64 bg-slate-50 dark:bg-slate-950">
          {/* The sidebar */}
          <div className="flex w-28 shrink-0 flex-col gap-2 bg-slate-900 p-2" data-testid="preview-sidebar">
            {logo ? (
              <img
                src={logo}
                alt={TEXT.companyLogoAlt}
                className="h-7 max-w-full rounded bg-white object-contain p-0.5"
              />
            ) : (
              <span className="h-7" />
            )}
            {['Dashboard', 'Virtual Machines', 'Teams', 'Users', 'Support'].map((label, i) => (
              <span
                key={label}
                className={`truncate rounded px-1.5 py-1 text-[10px] ${i === 0 ? 'bg-brand-600 text-on-brand-600' : 'text-slate-300'}`}
                style={i === 0 ? accent : undefined}
              >
                {label}
              </span>
            ))}
          </div>
          {/* The sign-in card */}
          <div className="flex flex-1 items-center justify-center bg-gradient-to-br from-slate-100 to-brand-50 dark:from-slate-950 dark:to-slate-900 p-3">
            <div
              className="w-full max-w-[12rem] rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-3 shadow"
              data-testid="preview-login"
            >
              {logo && (
                <img src={logo} alt={TEXT.companyLogoAlt} className="mb-2 h-5 rounded dark:bg-white dark:p-0.5" />
              )}
              <p className="text-sm font-semibold text-slate-900 dark:text-slate-100">Welcome</p>
              <div className="mt-2 space-y-1.5">
                <div className="h-3 rounded border border-slate-300 dark:border-slate-600" />
                <div className="h-3 rounded border border-slate-300 dark:border-slate-600" />
                <div className="h-4 rounded bg-brand-600" style={accent} data-testid="preview-button" />
              </div>
            </div>
          </div>
        </div>
      </div>
    </section>
  );
}
