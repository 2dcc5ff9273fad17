/**
 * Live VM status: the server's event stream refreshes the VM queries, so lists and details move without a
 * reload. All tabs of a browser share one stream through a shared worker (vm-events.worker.ts); where shared
 * workers do not exist (e.g. Chrome on Android) each tab opens its own.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { apiUrl } from '../../../lib/api.ts';
import { invalidateRoutes } from '../../../lib/route-keys.ts';
import { VM_READS } from '../../../lib/reads.ts';

const EVENTS_PATH = '/virtualMachines/events';

/** Calls `onEvent` for every VM event; returns the unsubscribe. */
function subscribe(onEvent: () => void): () => void {
  const url = new URL(apiUrl(EVENTS_PATH), document.baseURI).href;
  if (typeof SharedWorker !== 'undefined') {
    try {
      const worker = new SharedWorker(new URL('./vm-events.worker.ts', import.meta.url), {
        type: 'module',
        name: 'portal-vm-events',
      });
      worker.port.onmessage = (message: MessageEvent<{ type: string }>) => {
        if (message.data.type === 'vm') onEvent();
      };
      worker.port.start();
      worker.port.postMessage({ type: 'open', url });
      const leave = () => worker.port.postMessage({ type: 'close' });
      window.addEventListener('pagehide', leave);
      return () => {
        window.removeEventListener('pagehide', leave);
        leave();
        worker.port.close();
      };
    } catch {
      // Blocked (e.g. by a policy): fall back to a stream of this tab's own.
    }
  }
  if (typeof EventSource === 'undefined') return () => {};
  const source = new EventSource(url, { withCredentials: true });
  source.addEventListener('vm', onEvent);
  return () => source.close();
}

export function useLiveVmStatus(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = subscribe(() => {
      // Bursts (10 copies) become one refresh.
      timer ??= setTimeout(() => {
        timer = null;
        void invalidateRoutes(queryClient, ...VM_READS);
      }, 100);
    });
    return () => {
      if (timer) clearTimeout(timer);
      unsubscribe();
    };
  }, [queryClient]);
}
