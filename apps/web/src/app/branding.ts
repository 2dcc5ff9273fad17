/** Tab title and icon from the user's record, with the spec's defaults (SPEC point 1). */
import { useEffect } from 'react';
import { DEFAULT_BRAND } from '@portal/contract/constants';
import { accentVariables } from '@portal/contract/brand-colors';

/** A plain white circle. */
export const DEFAULT_TAB_ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PGNpcmNsZSBjeD0iMTYiIGN5PSIxNiIgcj0iMTQiIGZpbGw9IiNmZmYiIHN0cm9rZT0iI2QxZDVkYiIgc3Ryb2tlLXdpZHRoPSIxIi8+PC9zdmc+';

/** The portal's name for this brand: the reseller's, else the spec's acronym. */
export function brandTitle(brand: { resellerName?: string | null } | null | undefined): string {
  return brand?.resellerName || DEFAULT_BRAND.acronymTitle;
}

/** `null`: the brand is not known yet, so the tab keeps what the server put into index.html (no flash of defaults). */
export function useBranding(
  brand:
    { resellerName?: string | null; tabLogoUrl?: string | null; accentColor?: string | undefined } | null | undefined,
): void {
  const pending = brand === null;
  const title = brandTitle(brand);
  const icon = brand?.tabLogoUrl || DEFAULT_TAB_ICON;
  useEffect(() => {
    if (pending) return;
    document.title = title;
    let link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    if (!link) {
      link = document.createElement('link');
      link.rel = 'icon';
      document.head.appendChild(link);
    }
    link.href = icon;
  }, [pending, title, icon]);
  useAccent(pending ? undefined : brand?.accentColor);
}

/** Issue 25 item 8: the reseller's accent replaces the portal's blue (index.css's --color-brand-*) on <html>. */
function useAccent(accent: string | undefined): void {
  useEffect(() => {
    if (!accent) return;
    const style = document.documentElement.style;
    const vars = accentVariables(accent);
    for (const [name, value] of Object.entries(vars)) style.setProperty(name, value);
    return () => {
      for (const name of Object.keys(vars)) style.removeProperty(name);
    };
  }, [accent]);
}
