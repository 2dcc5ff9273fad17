/** Sends unexpected client errors to the server's `/logging` (best effort, never throws). */
import { routes } from '@portal/contract/routes';
import { callApi } from './api.ts';

let sent = 0;
const MAX_PER_PAGE = 20;

export function reportError(error: unknown): void {
  if (sent >= MAX_PER_PAGE) return;
  sent++;
  const err = error instanceof Error ? error : new Error(String(error));
  void callApi(routes.platform.logging, {
    body: {
      level: 'error',
      message: err.message.slice(0, 4000) || 'Unknown error',
      stack: err.stack?.slice(0, 16000),
      url: location.href.slice(0, 2048),
      userAgent: navigator.userAgent.slice(0, 512),
    },
    suppress401: true,
  }).catch(() => {});
}

export function installGlobalErrorReporting(): void {
  window.addEventListener('error', (e) => reportError(e.error ?? e.message));
  window.addEventListener('unhandledrejection', (e) => reportError(e.reason));
}
