import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { NetworkBanner } from '../components/ui/NetworkBanner.tsx';
import { Toasts } from '../components/ui/toast.tsx';
import { setTwoFactorSetUpHandler, setUnauthorizedHandler } from '../lib/api.ts';
import { clearStoredAuth, forgetAuthAfterBrowserRestart } from '../lib/auth-storage.ts';
import { queryClient } from '../lib/query-client.ts';
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
    // The company requires an authenticator app and the user has none: every call but the set-up's answers 403,
    // so the portal goes to the Security page, which says why (docs/two-factor.md "Company policy").
    setTwoFactorSetUpHandler(() => {
      if (r.state.location.pathname !== '/security') void r.navigate('/security', { replace: true });
    });
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
