import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backoffDelay,
  currentNetworkState,
  installNetworkWatch,
  isGatewayFailure,
  isNetworkFailure,
  MAX_QUERY_RETRIES,
  networkState,
  onNetworkRecovered,
  queryRetryDelay,
  reportAnswer,
  reportNetworkFailure,
  shouldRetryQuery,
} from './network.ts';

// The shape of lib/api.ts's ApiError (importing it would read the page's config at load).
const networkError = () => ({ status: 0, message: 'Cannot reach the server.', timedOut: false });
const timeoutError = () => ({ status: 0, message: 'The server took too long to answer. Try again.', timedOut: true });

describe('retry and backoff of reads', () => {
  it('probes after 1 s, 2 s, 4 s ... never more than 30 s apart; a read retries after 0.5 s, 1 s, 2 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffDelay)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect([0, 1, 2].map(queryRetryDelay)).toEqual([500, 1000, 2000]);
  });

  it('retries a read that got no answer, up to MAX_QUERY_RETRIES times', () => {
    expect(MAX_QUERY_RETRIES).toBe(3);
    expect([0, 1, 2, 3].map((n) => shouldRetryQuery(n, networkError(), true))).toEqual([true, true, true, false]);
  });

  it("does not retry the server's answers, a timeout, or while the browser says it is offline", () => {
    for (const status of [400, 401, 403, 404, 409, 500, 503])
      expect(shouldRetryQuery(0, { status, message: 'x' }, true), String(status)).toBe(false);
    expect(shouldRetryQuery(0, timeoutError(), true)).toBe(false);
    expect(shouldRetryQuery(0, networkError(), false)).toBe(false);
    expect(shouldRetryQuery(0, new Error('boom'), true)).toBe(false);
    expect(isNetworkFailure(networkError())).toBe(true);
    expect(isNetworkFailure(timeoutError())).toBe(false);
    expect(isNetworkFailure(null)).toBe(false);
  });

  it("takes a gateway's 502/503/504 page for no answer", () => {
    expect([500, 502, 503, 504, 404].map(isGatewayFailure)).toEqual([false, true, true, true, false]);
  });

  it("names the state: the browser's offline first, then the last request's failure", () => {
    expect(networkState(false, false)).toBe('offline');
    expect(networkState(false, true)).toBe('offline');
    expect(networkState(true, true)).toBe('unreachable');
    expect(networkState(true, false)).toBe('online');
  });
});

describe('the network watch', () => {
  let win: EventTarget;
  let doc: EventTarget & { visibilityState: string };
  const nav = { onLine: true };
  let uninstall: (() => void) | undefined;

  beforeEach(() => {
    vi.useFakeTimers();
    win = new EventTarget();
    doc = Object.assign(new EventTarget(), { visibilityState: 'visible' });
    nav.onLine = true;
    vi.stubGlobal('window', win);
    vi.stubGlobal('document', doc);
    vi.stubGlobal('navigator', nav);
    reportAnswer();
  });
  afterEach(() => {
    uninstall?.();
    uninstall = undefined;
    reportAnswer();
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('a request without an answer makes the watch ask at once; a probe that answers ends it, no banner, no refresh', async () => {
    const probe = vi.fn(async () => true);
    uninstall = installNetworkWatch(probe);
    const recovered = vi.fn();
    const off = onNetworkRecovered(recovered);
    reportNetworkFailure();
    await vi.advanceTimersByTimeAsync(0);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(currentNetworkState()).toBe('online');
    expect(recovered).not.toHaveBeenCalled();
    off();
  });

  it('probes an unreachable server with backoff and refreshes once it answers', async () => {
    let answers = false;
    const probes: number[] = [];
    const start = Date.now();
    uninstall = installNetworkWatch(async () => {
      probes.push(Date.now() - start);
      return answers;
    });
    const recovered = vi.fn();
    const off = onNetworkRecovered(recovered);
    reportNetworkFailure();
    await vi.advanceTimersByTimeAsync(0);
    expect(currentNetworkState()).toBe('unreachable');
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000);
    expect(probes).toEqual([0, 1000, 3000, 7000]);
    // More failed requests meanwhile do not add probes.
    reportNetworkFailure();
    answers = true;
    await vi.advanceTimersByTimeAsync(8000);
    expect(probes).toEqual([0, 1000, 3000, 7000, 15000]);
    expect(currentNetworkState()).toBe('online');
    expect(recovered).toHaveBeenCalledTimes(1);
    // Back online: no more probes.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probes).toHaveLength(5);
    off();
  });

  it("follows the browser's offline and online events; a focus probes at once", async () => {
    const probe = vi.fn(async () => true);
    uninstall = installNetworkWatch(probe);
    const recovered = vi.fn();
    const off = onNetworkRecovered(recovered);
    nav.onLine = false;
    win.dispatchEvent(new Event('offline'));
    expect(currentNetworkState()).toBe('offline');
    // Offline, the browser's word holds: no probing until it says it is online.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probe).not.toHaveBeenCalled();
    nav.onLine = true;
    win.dispatchEvent(new Event('online'));
    expect(currentNetworkState()).toBe('online');
    expect(recovered).toHaveBeenCalledTimes(1);

    probe.mockResolvedValue(false);
    reportNetworkFailure();
    await vi.advanceTimersByTimeAsync(0);
    expect(probe).toHaveBeenCalledTimes(1);
    expect(currentNetworkState()).toBe('unreachable');
    // Focus asks at once, not at the next backoff step.
    probe.mockResolvedValue(true);
    win.dispatchEvent(new Event('focus'));
    await vi.advanceTimersByTimeAsync(0);
    expect(probe).toHaveBeenCalledTimes(2);
    expect(currentNetworkState()).toBe('online');
    expect(recovered).toHaveBeenCalledTimes(2);
    off();
  });
});
