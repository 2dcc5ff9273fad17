/** The one date formatter (issue 25 item 8): each format writes the same moment as docs/account.md shows. */
import { afterEach, describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatMonth, formatTime, setDateFormat } from './dates.ts';

const at = new Date(Date.UTC(2026, 10, 26, 14, 5, 9));

describe('formatDate / formatDateTime', () => {
  afterEach(() => setDateFormat('day-month'));

  it("writes the spec's day, short month, year by default", () => {
    expect(formatDate(at, { utc: true })).toBe('26 Nov 2026');
    expect(formatDateTime(at, { utc: true })).toBe('26 Nov 2026 14:05 UTC');
    expect(formatDate(null)).toBe('—');
    expect(formatDate('not a date')).toBe('—');
  });

  it('follows the chosen format', () => {
    expect(formatDateTime(at, { utc: true, format: 'iso' })).toBe('2026-11-26 14:05 UTC');
    expect(formatDateTime(at, { utc: true, format: 'us' })).toBe('Nov 26, 2026 2:05 PM UTC');
    expect(formatDateTime(at, { utc: true, format: 'us', seconds: true })).toBe('Nov 26, 2026 2:05:09 PM UTC');
    setDateFormat('iso');
    expect(formatDate(at, { utc: true })).toBe('2026-11-26');
    expect(formatMonth('2026-11')).toBe('2026-11');
    setDateFormat('us');
    expect(formatDate(at, { utc: true })).toBe('Nov 26, 2026');
    expect(formatTime(new Date(Date.UTC(2026, 0, 1, 0, 7)), { utc: true })).toBe('12:07 AM');
    expect(formatMonth('2026-11')).toBe('November 2026');
  });
});
