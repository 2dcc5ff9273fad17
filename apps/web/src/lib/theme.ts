/**
 * Dark mode: follows the system preference until the user picks light or dark with the toggle; the choice
 * persists in local storage. The `dark` class on <html> drives Tailwind's `dark:` variant.
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

export function useTheme(): { theme: Theme; toggle: () => void } {
  const theme = useSyncExternalStore((cb) => {
    listeners.add(cb);
    return () => listeners.delete(cb);
  }, currentTheme);
  const toggle = useCallback(() => {
    localStorage.setItem(THEME_STORAGE_KEY, currentTheme() === 'dark' ? 'light' : 'dark');
    apply();
  }, []);
  return { theme, toggle };
}
