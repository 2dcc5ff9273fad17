import { describe, expect, it } from 'vitest';
import { CHUNK_RELOAD_GUARD_MS, isChunkLoadError, shouldReloadForChunk } from './chunk-load-error.ts';

describe('isChunkLoadError', () => {
  it("knows each browser's words for a lazy chunk that did not load", () => {
    for (const message of [
      'Failed to fetch dynamically imported module: http://localhost:3000/assets/SupportPage-abc.js',
      'error loading dynamically imported module: http://localhost:3000/assets/SupportPage-abc.js',
      'Importing a module script failed.',
      'Unable to preload CSS for /assets/x.css',
    ])
      expect(isChunkLoadError(new TypeError(message)), message).toBe(true);
  });
  it('leaves every other error to the error page', () => {
    expect(isChunkLoadError(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isChunkLoadError(undefined)).toBe(false);
  });
});

describe('shouldReloadForChunk', () => {
  const chunkError = new TypeError('Failed to fetch dynamically imported module: http://x/assets/SupportPage-abc.js');
  const now = 1_000_000;
  it('reloads once for a chunk gone after a deploy, not again within the guard', () => {
    expect(shouldReloadForChunk(chunkError, { online: true, now, lastReloadAt: null })).toBe(true);
    expect(shouldReloadForChunk(chunkError, { online: true, now, lastReloadAt: String(now - 5_000) })).toBe(false);
    expect(
      shouldReloadForChunk(chunkError, { online: true, now, lastReloadAt: String(now - CHUNK_RELOAD_GUARD_MS) }),
    ).toBe(true);
    expect(shouldReloadForChunk(chunkError, { online: true, now, lastReloadAt: 'garbage' })).toBe(true);
  });
  it('never reloads offline or for another error', () => {
    expect(shouldReloadForChunk(chunkError, { online: false, now, lastReloadAt: null })).toBe(false);
    expect(shouldReloadForChunk(new Error('boom'), { online: true, now, lastReloadAt: null })).toBe(false);
  });
});
