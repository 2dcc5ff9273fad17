/**
 * Auth state (SPEC point 4): `user` is undefined at first and `authed` turns true once a user is set.
 * The stored record mirrors it in local storage; any auth error clears it.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { AuthUser } from '@portal/contract/auth';
import { clearStoredAuth, readStoredAuth, writeStoredAuth } from './auth-storage.ts';
import { setDateFormat } from './date-format.ts';
import { setThemePreference } from './theme.ts';

export interface AuthState {
  user: AuthUser | undefined;
  authed: boolean;
  /** Stores the user (after login or a check); `authed` says whether the emailed code was accepted. */
  setUser: (user: AuthUser, authed: boolean) => void;
  /** Clears the user and the stored record. */
  clear: () => void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUserState] = useState<AuthUser | undefined>(() => readStoredAuth()?.user ?? undefined);
  const [authed, setAuthed] = useState(false);

  const setUser = useCallback((next: AuthUser, isAuthed: boolean) => {
    setUserState(next);
    setAuthed(isAuthed);
    // The account page's preferences (docs/account.md) come with the signed-in user and apply as they sign in
    // (signing out clears local storage, not the server's copy). Not again on each reload's check: a choice made
    // on this device since (the shell's toggle) stays until the next sign-in.
    const signingIn = !readStoredAuth()?.lastAuthed;
    if (isAuthed && signingIn && next.preferences) {
      setThemePreference(next.preferences.theme);
      setDateFormat(next.preferences.dateFormat);
    }
    writeStoredAuth({
      user: next,
      ...(isAuthed ? { lastAuthed: new Date().toISOString() } : {}),
      needsReset: next.forcePasswordReset,
      ...(next.resetKey ? { resetKey: next.resetKey } : {}),
    });
  }, []);

  const clear = useCallback(() => {
    setUserState(undefined);
    setAuthed(false);
    clearStoredAuth();
  }, []);

  const value = useMemo(() => ({ user, authed, setUser, clear }), [user, authed, setUser, clear]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth outside AuthProvider');
  return ctx;
}
