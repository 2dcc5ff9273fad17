/**
 * Dark mode: follows the system preference until the user picks light or dark (the toggle, or the account page's
 * Theme: system, light or dark); the choice persists in local storage and, for a signed-in user, on the server
 * (docs/account.md), which applies it again at the next sign-in. The `dark` class on <html> drives Tailwind's
 * `dark:` variant.
 */
import { useCallback, useSyncExternalStore } from 'react';

export const THEME_STORAGE_KEY = 'theme';
export type Theme = 'light' | 'dark';

const media = () => window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set<() => void>();

function stored(): Theme | null {
  const v = localStorage.getItem(THEME_STORAGE_KEY);
  return v === 'light' || v === 'dark' ? v : null;
}

/** What the user chose: light, dark, or none ('system': the device decides). */
export type ThemePreference = Theme | 'system';

export function currentThemePreference(): ThemePreference {
  return stored() ?? 'system';
}

/** Applies a choice at once (the account page, and the server's at sign-in). */
export function setThemePreference(preference: ThemePreference): void {
  if (preference === currentThemePreference()) return;
  if (preference === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
  else localStorage.setItem(THEME_STORAGE_KEY, preference);
  apply();
}

export function currentTheme(): Theme {
  return stored() ?? (media().matches ? 'dark' : 'light');
}

function apply(): void {
  const theme = currentTheme();
  document.documentElement.classList.toggle('dark', theme === 'dark');
  document.documentElement.style.colorScheme = theme;
  for (const l of listeners) l();
}

/** Runs once at start-up (before the first render) and follows system changes while no choice is stored. */
export function installTheme(): void {
  apply();
  media().addEventListener('change', apply);
  // Another tab toggled (or logout cleared local storage).
  window.addEventListener('storage', (e) => {
    if (e.key === THEME_STORAGE_KEY || e.key === null) apply();
  });
}

const subscribe = (cb: () => void) => {
  listeners.add(cb);
  return () => listeners.delete(cb);
};

/**
 * `toggle` switches between light and dark and answers the preference it leaves (the shell saves it as the
 * user's): back to the device's own theme is 'system' again, so the choice does not outlive its reason.
 */
export function useTheme(): { theme: Theme; preference: ThemePreference; toggle: () => ThemePreference } {
  const theme = useSyncExternalStore(subscribe, currentTheme);
  const preference = useSyncExternalStore(subscribe, currentThemePreference);
  const toggle = useCallback(() => {
    const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark';
    const system: Theme = media().matches ? 'dark' : 'light';
    const chosen: ThemePreference = next === system ? 'system' : next;
    if (chosen === 'system') localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, chosen);
    apply();
    return chosen;
  }, []);
  return { theme, preference, toggle };
}
