/** Live VM status: the server's event stream refreshes the VM queries, so lists and details move without a reload. */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiUrl } from '../../../lib/api.ts';
import { invalidateRoutes } from '../../../lib/route-keys.ts';
import { VM_READS } from '../../../lib/reads.ts';

export function useLiveVmStatus(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(apiUrl('/virtualMachines/events'), { withCredentials: true });
    let timer: ReturnType<typeof setTimeout> | null = null;
    source.addEventListener('vm', () => {
      // Bursts (10 copies) become one refresh.
      timer ??= setTimeout(() => {
        timer = null;
        void invalidateRoutes(queryClient, ...VM_READS);
      }, 100);
    });
    return () => {
      if (timer) clearTimeout(timer);
      source.close();
    };
  }, [queryClient]);
}
