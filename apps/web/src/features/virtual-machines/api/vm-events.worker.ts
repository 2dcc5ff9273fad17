/**
 * One live-status stream per browser (issue #12 point 10): every portal tab connects to this shared worker,
 * which holds a single EventSource and relays each VM event to all tabs. Six tabs with their own streams would
 * use up Chromium's six HTTP/1.1 connections per host and leave a seventh tab hanging on load.
 */
/** The shared worker's global scope (the web app's TypeScript lib is the DOM's, not the worker's). */
const scope = globalThis as unknown as { onconnect: ((event: MessageEvent) => void) | null };

const ports = new Set<MessagePort>();
let source: EventSource | null = null;

function open(url: string): void {
  if (source) return;
  source = new EventSource(url, { withCredentials: true });
  source.addEventListener('vm', (event) => {
    for (const port of ports) port.postMessage({ type: 'vm', data: (event as MessageEvent<string>).data });
  });
}

scope.onconnect = (event: MessageEvent) => {
  const port = event.ports[0];
  if (!port) return;
  ports.add(port);
  port.onmessage = (message: MessageEvent<{ type: 'open'; url: string } | { type: 'close' }>) => {
    if (message.data.type === 'open') open(message.data.url);
    else {
      ports.delete(port);
      // No tab listens any more: drop the stream (the worker ends soon after anyway).
      if (ports.size === 0) {
        source?.close();
        source = null;
      }
    }
  };
  port.start();
};
