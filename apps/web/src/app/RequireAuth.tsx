/** Protected routes: the auth check runs on load; no session → /login, code still due → /mfa. */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { ERRORS, TEXT, withDetail } from '@portal/contract/messages';
import { Button } from '../components/ui/Button.tsx';
import { Spinner } from '../components/ui/Spinner.tsx';
import { ApiError } from '../lib/api.ts';
import { useAuthCheck } from '../lib/auth-check.ts';
import { useAuth } from '../lib/auth-context.tsx';

/** Where a held user sets up a strong factor: the customer portal's Security page, or the reseller area's. */
const SECURITY_PATH = '/security';
const RESELLER_SECURITY_PATH = '/reseller/security';

export function RequireAuth() {
  const check = useAuthCheck();
  const { setUser, clear } = useAuth();
  const location = useLocation();

  useEffect(() => {
    // While the code is still due the check carries no profile: only a signed-in user is stored.
    if (check.data?.authed)
      setUser({ ...check.data.user, createdAt: check.data.user.createdAt.toISOString(), resetKey: null }, true);
    if (check.error) clear();
  }, [check.data, check.error, setUser, clear]);

  if (check.isPending) {
    return (
      <div className="flex h-full items-center justify-center">
        <Spinner label="Checking your session" />
      </div>
    );
  }
  if (check.error) {
    if (check.error instanceof ApiError && check.error.status !== 401) {
      // The server cannot be reached, or failed: say so, with a retry (never a dead end, issue 25).
      return (
        <div role="alert" className="flex flex-col items-center gap-4 p-8 text-center">
          <p className="text-red-600 dark:text-red-400">
            {check.error.status === 0 ? TEXT.serverUnreachable : withDetail(ERRORS.checkAuth, check.error.message)}
          </p>
          <Button variant="secondary" onClick={() => void check.refetch()}>
            {TEXT.tryAgain}
          </Button>
        </div>
      );
    }
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  }
  if (!check.data.authed) return <Navigate to="/mfa" replace />;
  if (check.data.user.forcePasswordReset) return <Navigate to="/resetPassword" replace />;
  // A policy holds the user to the set-up of a strong factor (docs/two-factor.md "Company policy"): every other
  // screen renders the redirect, so no navigation started meanwhile can leave them elsewhere.
  if (check.data.mustSetUpTwoFactor) {
    const setUpPath = check.data.user.staffRole ? RESELLER_SECURITY_PATH : SECURITY_PATH;
    // Keyed by the location: a navigation that cancels this one (while the page's chunk loads) renders it again.
    if (location.pathname.toLowerCase() !== setUpPath.toLowerCase())
      return <Navigate key={location.key} to={setUpPath} replace />;
  }
  // Reseller staff work in the reseller area; customers never see it (the API refuses both the other way too).
  const inResellerArea = /^\/reseller(\/|$)/i.test(location.pathname);
  if (check.data.user.staffRole && !inResellerArea) return <Navigate to="/reseller" replace />;
  if (!check.data.user.staffRole && inResellerArea) return <Navigate to="/" replace />;
  return <Outlet />;
}
