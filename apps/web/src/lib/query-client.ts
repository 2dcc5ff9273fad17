import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Auth and permission answers are final; only network trouble is worth one more try.
      retry: (count, err) => count < 1 && err instanceof ApiError && err.status === 0,
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
