import { describe, expect, it } from 'vitest';
import { hasInAppHistory } from './use-back.ts';

describe('hasInAppHistory', () => {
  it('is true only past the entry the portal was loaded on', () => {
    // React Router's browser history: { usr, key, idx }, idx 0 on the first entry of this tab.
    expect(hasInAppHistory({ usr: null, key: 'default', idx: 0 })).toBe(false);
    expect(hasInAppHistory({ usr: null, key: 'a1b2', idx: 1 })).toBe(true);
  });
  it('treats a state it does not know (none, another script) as no history', () => {
    expect(hasInAppHistory(null)).toBe(false);
    expect(hasInAppHistory(undefined)).toBe(false);
    expect(hasInAppHistory({ idx: '2' })).toBe(false);
  });
});
