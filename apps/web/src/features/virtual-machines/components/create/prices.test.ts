import { describe, expect, it } from 'vitest';
import { formatPrice, timesDecimal } from './prices.ts';

describe('create form prices', () => {
  it('multiplies decimal strings exactly, in their own decimals', () => {
    expect(timesDecimal('5.00', 1)).toBe('5.00');
    expect(timesDecimal('0.00685', 3)).toBe('0.02055');
    expect(timesDecimal('24.50', 10)).toBe('245.00');
    // 0.1 × 3 in floats is 0.30000000000000004.
    expect(timesDecimal('0.10', 3)).toBe('0.30');
    expect(timesDecimal('9999999999.99', 10)).toBe('99999999999.90');
    expect(timesDecimal('7', 2)).toBe('14');
    expect(timesDecimal('abc', 2)).toBeNull();
    expect(timesDecimal('1.5', 1.5)).toBeNull();
  });

  it('shows an amount in its currency with at least 2 decimals and no rounding of the catalog', () => {
    expect(formatPrice('5.00', 'USD')).toBe('$5.00');
    expect(formatPrice('5', 'USD')).toBe('$5.00');
    expect(formatPrice('0.00685', 'USD')).toBe('$0.00685');
    expect(formatPrice('0.01000', 'EUR')).toBe('€0.01');
    expect(formatPrice('0.03350', 'EUR')).toBe('€0.0335');
    expect(formatPrice('1234.50', 'USD')).toBe('$1,234.50');
    expect(formatPrice('3.00', 'XYZ1')).toBe('3.00 XYZ1');
  });
});
