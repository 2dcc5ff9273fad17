import { QueryClient } from '@tanstack/react-query';
import { routes } from '@portal/contract/routes';
import { callApi } from './api.ts';
import { installNetworkWatch, onNetworkRecovered, queryRetryDelay, shouldRetryQuery } from './network.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Auth and permission answers are final; a read that got no answer retries with backoff (0.5 s, 1 s, 2 s)
      // while the browser says it is online; then the screen shows its message with Try again, and the
      // network watch below refreshes it once the server answers again (lib/network.ts, issue 25 item 6).
      retry: (count, err) => shouldRetryQuery(count, err, navigator.onLine),
      retryDelay: (attempt) => queryRetryDelay(attempt),
      refetchOnWindowFocus: false,
      staleTime: 10_000,
      // Offline, TanStack's default ('online') pauses a query until the browser says it is back: a list or a
      // Refresh then spun for ever with no message (issue 25). Always asking makes a lost network an error,
      // which every screen shows with a way to try again.
      networkMode: 'always',
    },
    mutations: { networkMode: 'always' },
  },
});

/**
 * The network is back (the browser's `online`, or the server answers a probe again): what is shown and failed or
 * is stale is read again; a read still running (retrying) goes on rather than start over.
 */
onNetworkRecovered(
  () =>
    void queryClient.refetchQueries(
      { type: 'active', predicate: (q) => q.state.status === 'error' || q.isStale() },
      { cancelRefetch: false },
    ),
);

// The probe: the public brand, a cached read every screen already makes (the API health check would dial SMTP).
if (typeof window !== 'undefined')
  installNetworkWatch(async () => {
    try {
      await callApi(routes.resellerBranding.publicBrand, { suppress401: true });
      return true;
    } catch {
      return false;
    }
  });
