import { describe, expect, it } from 'vitest';
import { isChunkLoadError } from './chunk-load-error.ts';

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
