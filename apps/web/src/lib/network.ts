/**
 * Network failure states (issue 25 item 6; docs/failure-states.md): whether the portal can reach its server, the
 * retry and backoff rules of reads, and the timeout after which a request gives up. Pure rules are exported for
 * the unit tests; the store is fed by lib/api.ts (every request's outcome) and the browser's online/offline events.
 */
import { useSyncExternalStore } from 'react';

/** A read gives up after this long; a write after WRITE_TIMEOUT_MS (the server may still be doing it). */
export const READ_TIMEOUT_MS = 15_000;
export const WRITE_TIMEOUT_MS = 30_000;

/** Automatic retries of a read that failed on the network (not a timeout, not an answer of the server). */
export const MAX_QUERY_RETRIES = 3;
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;

export const NETWORK_TEXT = {
  offline: 'You are offline. The portal will reconnect and refresh this page when the network is back.',
  unreachable: 'The server cannot be reached. Retrying…',
  timeout: 'The server took too long to answer. Try again.',
};

/** Exponential backoff: 1 s, 2 s, 4 s, … capped at 30 s. `attempt` counts from 0. */
export function backoffDelay(attempt: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** Math.max(0, attempt), MAX_DELAY_MS);
}

export interface FailureShape {
  /** 0: no answer from the server (network error or timeout). */
  status: number;
  timedOut?: boolean;
}

/**
 * Whether a read retries on its own. Only "no answer" is worth retrying: an answer (401, 404, 400 ...) is final,
 * a timeout already waited long enough (it ends in a message with Try again), and while the browser knows it is
 * offline retrying is pointless: the reconnect (the `online` event) refreshes the screen instead.
 */
export function shouldRetryQuery(failureCount: number, error: unknown, browserOnline: boolean): boolean {
  if (!isNetworkFailure(error)) return false;
  if (!browserOnline) return false;
  return failureCount < MAX_QUERY_RETRIES;
}

export function isNetworkFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Partial<FailureShape>;
  return e.status === 0 && !e.timedOut;
}

/**
 * A gateway's "the server behind me did not answer" (a reverse proxy in front of the portal, docs/reverse-proxy.md),
 * when the body is not the portal's JSON envelope: as good as no answer at all.
 */
export function isGatewayFailure(status: number): boolean {
  return status === 502 || status === 503 || status === 504;
}

export type NetworkState = 'online' | 'offline' | 'unreachable';

/** What the banner says: the browser's own word first, then what the last request found. */
export function networkState(browserOnline: boolean, lastRequestFailed: boolean): NetworkState {
  if (!browserOnline) return 'offline';
  return lastRequestFailed ? 'unreachable' : 'online';
}

let lastRequestFailed = false;
let state: NetworkState = 'online';
const listeners = new Set<() => void>();
const browserOnline = () => (typeof navigator === 'undefined' ? true : navigator.onLine);

function update() {
  const next = networkState(browserOnline(), lastRequestFailed);
  if (next === state) return;
  const wasDown = state !== 'online';
  state = next;
  for (const listener of listeners) listener();
  if (wasDown && next === 'online') for (const handler of recoveredHandlers) handler();
}

/** lib/api.ts: a request got no answer (not a timeout: a slow server is not a lost network). */
export function reportNetworkFailure(): void {
  lastRequestFailed = true;
  update();
}

/** lib/api.ts: a request got an answer (any status). */
export function reportAnswer(): void {
  if (!lastRequestFailed) return;
  lastRequestFailed = false;
  update();
}

export function currentNetworkState(): NetworkState {
  return state;
}

export function subscribeNetworkState(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useNetworkState(): NetworkState {
  return useSyncExternalStore(subscribeNetworkState, currentNetworkState, () => 'online');
}

const recoveredHandlers = new Set<() => void>();
/** Called when the network is back after being lost (the query client refreshes what failed). */
export function onNetworkRecovered(handler: () => void): () => void {
  recoveredHandlers.add(handler);
  return () => recoveredHandlers.delete(handler);
}

/**
 * Follows the browser's online/offline events, and while the server is unreachable probes it with backoff
 * (`probe` returns whether it answered), also at once when the window regains focus or the browser says it is
 * online again. Returns the uninstall.
 */
export function installNetworkWatch(probe: () => Promise<boolean>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let probing = false;
  const runProbe = async () => {
    if (probing || state === 'online') return;
    probing = true;
    try {
      if (await probe()) reportAnswer();
    } finally {
      probing = false;
    }
    schedule();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    if (state !== 'unreachable') {
      attempt = 0;
      return;
    }
    timer = setTimeout(() => void runProbe(), backoffDelay(attempt++));
  };
  const onOnline = () => {
    update();
    attempt = 0;
    void runProbe();
  };
  const onFocus = () => {
    if (document.visibilityState === 'visible' && state !== 'online') {
      attempt = 0;
      void runProbe();
    }
  };
  const unsubscribe = subscribeNetworkState(schedule);
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', update);
  window.addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onFocus);
  update();
  return () => {
    clearTimeout(timer);
    unsubscribe();
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', update);
    window.removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onFocus);
  };
}
