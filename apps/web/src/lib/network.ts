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

/** The probe's backoff: 1 s, 2 s, 4 s, … capped at 30 s. `attempt` counts from 0. */
export function backoffDelay(attempt: number): number {
  return Math.min(BASE_DELAY_MS * 2 ** Math.max(0, attempt), MAX_DELAY_MS);
}

/** A read's own retries: 0.5 s, 1 s, 2 s (the screen's message comes within some 4 s, not 7). */
export function queryRetryDelay(attempt: number): number {
  return backoffDelay(attempt) / 2;
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

/** What the banner says: the browser's own word first, then whether the server was found unreachable. */
export function networkState(browserOnline: boolean, serverUnreachable: boolean): NetworkState {
  if (!browserOnline) return 'offline';
  return serverUnreachable ? 'unreachable' : 'online';
}

/**
 * A request that got no answer makes the server *suspect*; the watch's probe then asks it at once. Only a probe
 * that gets no answer either makes it *unreachable* (the banner, probes with backoff): one endpoint failing on its
 * own is that screen's error, not a lost network, and must not flash the banner or refresh every screen.
 */
let unreachable = false;
let state: NetworkState = 'online';
let probeNow: (() => void) | undefined;
const listeners = new Set<() => void>();
const recoveredHandlers = new Set<() => void>();
const browserOnline = () => (typeof navigator === 'undefined' ? true : navigator.onLine);

function update() {
  const next = networkState(browserOnline(), unreachable);
  if (next === state) return;
  const wasDown = state !== 'online';
  state = next;
  for (const listener of listeners) listener();
  if (wasDown && next === 'online') for (const handler of recoveredHandlers) handler();
}

/** lib/api.ts: a request got no answer (not a timeout: a slow server is not a lost network). */
export function reportNetworkFailure(): void {
  if (unreachable) return;
  if (probeNow) probeNow();
  else {
    // No watch to ask (tests without a window): take the request's word.
    unreachable = true;
    update();
  }
}

/** lib/api.ts and the probe: the server answered (any status). */
export function reportAnswer(): void {
  if (!unreachable) return;
  unreachable = false;
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

/** Called when the network is back after being lost (the query client refreshes what failed). */
export function onNetworkRecovered(handler: () => void): () => void {
  recoveredHandlers.add(handler);
  return () => recoveredHandlers.delete(handler);
}

/**
 * Follows the browser's online/offline events and probes the server (`probe` answers whether it answered): at once
 * when a request got no answer, then with backoff while it stays unreachable, and at once on window focus or when
 * the browser says it is online again. Returns the uninstall.
 */
export function installNetworkWatch(probe: () => Promise<boolean>): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  let probing = false;
  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    if (state !== 'unreachable') {
      attempt = 0;
      return;
    }
    timer = setTimeout(() => void runProbe(), backoffDelay(attempt++));
  };
  const runProbe = async () => {
    if (probing) return;
    probing = true;
    const answered = await probe().catch(() => false);
    probing = false;
    if (answered) reportAnswer();
    else if (browserOnline()) {
      unreachable = true;
      update();
    }
    schedule();
  };
  const onOnline = () => {
    update();
    attempt = 0;
    if (unreachable) void runProbe();
  };
  const onFocus = () => {
    if (document.visibilityState === 'visible' && state === 'unreachable') {
      attempt = 0;
      void runProbe();
    }
  };
  probeNow = () => void runProbe();
  window.addEventListener('online', onOnline);
  window.addEventListener('offline', update);
  window.addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onFocus);
  update();
  return () => {
    clearTimeout(timer);
    probeNow = undefined;
    window.removeEventListener('online', onOnline);
    window.removeEventListener('offline', update);
    window.removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onFocus);
  };
}
