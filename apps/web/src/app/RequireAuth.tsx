/** Protected routes: the auth check runs on load; no session → /login, code still due → /mfa. */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { Spinner } from '../components/ui/Spinner.tsx';
import { ApiError } from '../lib/api.ts';
import { useAuthCheck } from '../lib/auth-check.ts';
import { useAuth } from '../lib/auth-context.tsx';

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
      return (
        <p className="p-8 text-center text-red-600 dark:text-red-400">{`Error checking auth.: ${check.error.message}`}</p>
      );
    }
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  }
  if (!check.data.authed) return <Navigate to="/mfa" replace />;
  if (check.data.user.forcePasswordReset) return <Navigate to="/resetPassword" replace />;
  // Reseller staff work in the reseller area; customers never see it (the API refuses both the other way too).
  const inResellerArea = /^\/reseller(\/|$)/i.test(location.pathname);
  if (check.data.user.staffRole && !inResellerArea) return <Navigate to="/reseller" replace />;
  if (!check.data.user.staffRole && inResellerArea) return <Navigate to="/" replace />;
  return <Outlet />;
}
