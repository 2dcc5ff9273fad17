/** The one date formatter (issue 25 item 8): each format writes the same moment as docs/account.md shows. */
import { afterEach, describe, expect, it } from 'vitest';
import {
  dayExample,
  formatDate,
  formatDateTime,
  formatDay,
  formatMonth,
  formatTime,
  parseDay,
  setDateFormat,
} from './dates.ts';
import { DATE_FORMATS } from '@portal/contract/account';

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

describe("formatDay / parseDay (the activity filters: a day typed in the user's format)", () => {
  afterEach(() => setDateFormat('day-month'));

  it('writes a calendar day in each format, with no time zone shift', () => {
    expect(formatDay('2026-11-26', { format: 'day-month' })).toBe('26 Nov 2026');
    expect(formatDay('2026-11-26', { format: 'iso' })).toBe('2026-11-26');
    expect(formatDay('2026-11-26', { format: 'us' })).toBe('Nov 26, 2026');
    expect(formatDay('2026-01-01', { format: 'day-month' })).toBe('1 Jan 2026');
    expect(dayExample('day-month')).toBe('26 Nov 2026');
    expect(dayExample('iso')).toBe('2026-11-26');
    expect(dayExample('us')).toBe('Nov 26, 2026');
  });

  it('reads back what it writes, both ways, for the three formats', () => {
    for (const format of DATE_FORMATS) {
      for (const day of ['2026-11-26', '2024-02-29', '2030-01-01', '1999-12-31']) {
        const written = formatDay(day, { format });
        expect(parseDay(written, format)).toEqual({ ok: true, day });
        expect(formatDay((parseDay(written, format) as { day: string }).day, { format })).toBe(written);
      }
    }
  });

  it('takes the usual spellings of each format, and ISO in every format', () => {
    expect(parseDay(' 26 november 2026 ', 'day-month')).toEqual({ ok: true, day: '2026-11-26' });
    expect(parseDay('26-Nov-2026', 'day-month')).toEqual({ ok: true, day: '2026-11-26' });
    expect(parseDay('26/11/2026', 'day-month')).toEqual({ ok: true, day: '2026-11-26' });
    expect(parseDay('11/26/2026', 'us')).toEqual({ ok: true, day: '2026-11-26' });
    expect(parseDay('November 26 2026', 'us')).toEqual({ ok: true, day: '2026-11-26' });
    expect(parseDay('Sept 3, 2026', 'us')).toEqual({ ok: true, day: '2026-09-03' });
    for (const format of DATE_FORMATS) expect(parseDay('2030-02-01', format)).toEqual({ ok: true, day: '2030-02-01' });
    // The user's format decides: the default reads neither "Nov 26, 2026" as a day-month nor 11/26 as a month 26.
    setDateFormat('day-month');
    expect(parseDay('11/26/2026').ok).toBe(false);
  });

  it('refuses what is not a day with a message showing the format', () => {
    const bad = { ok: false, message: 'Enter a date like 26 Nov 2026' };
    for (const text of [
      '',
      'tomorrow',
      '26 Nov',
      '31 Feb 2026',
      '29 Feb 2026',
      '26 Foo 2026',
      '0 Jan 2026',
      '26 Nov 26',
    ]) {
      expect(parseDay(text, 'day-month')).toEqual(bad);
    }
    expect(parseDay('2026-13-01', 'iso')).toEqual({ ok: false, message: 'Enter a date like 2026-11-26' });
    expect(parseDay('26 Nov 2026', 'iso')).toEqual({ ok: false, message: 'Enter a date like 2026-11-26' });
    expect(parseDay('Feb 30, 2026', 'us')).toEqual({ ok: false, message: 'Enter a date like Nov 26, 2026' });
    expect(parseDay('13/01/2026', 'us')).toEqual({ ok: false, message: 'Enter a date like Nov 26, 2026' });
  });
});
