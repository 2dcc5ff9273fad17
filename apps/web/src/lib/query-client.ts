import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './api.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Auth and permission answers are final; only network trouble is worth one more try.
      retry: (count, err) => count < 1 && err instanceof ApiError && err.status === 0,
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
  },
});
