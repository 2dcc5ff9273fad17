import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { NetworkBanner } from '../components/ui/NetworkBanner.tsx';
import { Toasts } from '../components/ui/toast.tsx';
import { routes } from '@portal/contract/routes';
import { setTwoFactorSetUpHandler, setUnauthorizedHandler } from '../lib/api.ts';
import { clearStoredAuth, forgetAuthAfterBrowserRestart } from '../lib/auth-storage.ts';
import { queryClient } from '../lib/query-client.ts';
import { invalidateRoutes } from '../lib/route-keys.ts';
import { installGlobalErrorReporting } from '../lib/report-error.ts';
import { AuthProvider } from '../lib/auth-context.tsx';
import { createRouter } from './router.tsx';

forgetAuthAfterBrowserRestart();
installGlobalErrorReporting();

export function App() {
  const [router] = useState(() => {
    const r = createRouter();
    // Any 401 (unless the caller handles it) clears the stored auth and goes to /login.
    setUnauthorizedHandler(() => {
      clearStoredAuth();
      queryClient.clear();
      void r.navigate('/login', { replace: true });
    });
    // The company requires an authenticator app and the user has none: every call but the set-up's answers 403.
    // The 403 refreshes the auth check, whose `mustSetUpTwoFactor` makes RequireAuth render the redirect to the
    // Security page on every screen until the app is on. Not a one-off navigate: another navigation started
    // while the Security page's chunk loads (the Teams table resetting its page in the address after the same
    // 403) cancelled it and left the user on the dashboard (docs/two-factor.md "Company policy").
    setTwoFactorSetUpHandler(() => void invalidateRoutes(queryClient, routes.auth.check));
    return r;
  });
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <RouterProvider router={router} />
        <Toasts />
        <NetworkBanner />
      </AuthProvider>
    </QueryClientProvider>
  );
}
