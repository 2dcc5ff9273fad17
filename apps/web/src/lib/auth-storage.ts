/** The stored auth record (SPEC point 3), in local storage under `auth`. */
import type { AuthUser } from '@portal/contract/auth';
import type { Revived } from './date-format.ts';

export const AUTH_STORAGE_KEY = 'auth';
/** Marks a running browser session, so a restart can be told from a reload. */
const BROWSER_SESSION_KEY = 'browser-session';

export type PortalUser = Revived<AuthUser>;

export interface StoredAuth {
  lastAuthed: string | null;
  user: AuthUser | null;
  needsReset: boolean;
  resetKey: string | null;
  rememberMe: boolean;
}

export function readStoredAuth(): StoredAuth | null {
  try {
    const raw = localStorage.getItem(AUTH_STORAGE_KEY);
    return raw ? (JSON.parse(raw) as StoredAuth) : null;
  } catch {
    return null;
  }
}

export function writeStoredAuth(patch: Partial<StoredAuth>): void {
  const current = readStoredAuth() ?? {
    lastAuthed: null,
    user: null,
    needsReset: false,
    resetKey: null,
    rememberMe: false,
  };
  localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ ...current, ...patch }));
}

export function clearStoredAuth(): void {
  localStorage.removeItem(AUTH_STORAGE_KEY);
}

/** Stored auth is cleared unless remember-me is set: at a browser restart it is not trusted. */
export function forgetAuthAfterBrowserRestart(): void {
  const restarted = sessionStorage.getItem(BROWSER_SESSION_KEY) === null;
  sessionStorage.setItem(BROWSER_SESSION_KEY, '1');
  if (restarted && readStoredAuth()?.rememberMe !== true) clearStoredAuth();
}
