import { describe, expect, it } from 'vitest';
import {
  BYTE_INCREMENTS,
  formatBytes,
  formatPercent,
  formatRate,
  isolatedIndices,
  rateOf,
  timeFormats,
  toSeries,
  type MetricsPointIn,
} from './metrics-series.ts';

const point = (at: string, over: Partial<MetricsPointIn> = {}): MetricsPointIn => ({
  at,
  seconds: 60,
  cpuPercent: 25,
  memoryUsedBytes: 1024 ** 3,
  diskReadBytes: 6_000,
  diskWriteBytes: 60_000,
  netRxBytes: 600,
  netTxBytes: 1_200,
  ...over,
});

describe('rateOf', () => {
  it('divides a bucket total by the seconds it covered', () => {
    expect(rateOf(6_000, 60)).toBe(100);
    expect(rateOf(1_500, 30)).toBe(50);
  });
  it('is null when the bucket covered no time, never Infinity or NaN', () => {
    expect(rateOf(100, 0)).toBeNull();
    expect(rateOf(100, Number.NaN)).toBeNull();
    expect(rateOf(Number.NaN, 60)).toBeNull();
  });
  it('never goes below 0', () => {
    expect(rateOf(-60, 60)).toBe(0);
  });
});

describe('toSeries', () => {
  it('gives one row per bucket with rates per second, x in Unix seconds', () => {
    const s = toSeries([point('2026-11-25T10:00:00.000Z'), point('2026-11-25T10:01:00.000Z', { seconds: 30 })], 60);
    expect(s.x).toEqual([Date.UTC(2026, 10, 25, 10) / 1000, Date.UTC(2026, 10, 25, 10, 1) / 1000]);
    expect(s.diskReadRate).toEqual([100, 200]);
    expect(s.diskWriteRate).toEqual([1_000, 2_000]);
    expect(s.netRxRate).toEqual([10, 20]);
    expect(s.netTxRate).toEqual([20, 40]);
    expect(s.cpuPercent).toEqual([25, 25]);
    expect(s.memoryUsedBytes).toEqual([1024 ** 3, 1024 ** 3]);
    expect(s.points).toBe(2);
  });

  it('breaks the line where buckets are missing (one null row one step after the last point)', () => {
    const s = toSeries(
      [point('2026-11-25T10:00:00Z'), point('2026-11-25T10:01:00Z'), point('2026-11-25T10:05:00Z')],
      60,
    );
    const t0 = Date.UTC(2026, 10, 25, 10) / 1000;
    expect(s.x).toEqual([t0, t0 + 60, t0 + 120, t0 + 300]);
    expect(s.cpuPercent).toEqual([25, 25, null, 25]);
    expect(s.netRxRate).toEqual([10, 10, null, 10]);
    expect(s.points).toBe(3);
  });

  it('does not break hourly points that follow each other', () => {
    const s = toSeries([point('2026-11-25T10:00:00Z'), point('2026-11-25T11:00:00Z')], 3600);
    expect(s.cpuPercent).toEqual([25, 25]);
  });

  it('keeps a bucket without CPU or memory samples as null, its byte rates as numbers', () => {
    const s = toSeries([point('2026-11-25T10:00:00Z', { cpuPercent: null, memoryUsedBytes: null })], 60);
    expect(s.cpuPercent).toEqual([null]);
    expect(s.memoryUsedBytes).toEqual([null]);
    expect(s.diskReadRate).toEqual([100]);
  });

  it('accepts revived Dates, sorts by time, drops a repeated bucket and clamps CPU to 0..100', () => {
    const s = toSeries(
      [
        point('2026-11-25T10:01:00Z', { cpuPercent: 130 }),
        { ...point(''), at: new Date('2026-11-25T10:00:00Z'), cpuPercent: -1 },
        point('2026-11-25T10:01:00Z', { cpuPercent: 50 }),
      ],
      60,
    );
    expect(s.cpuPercent).toEqual([0, 100]);
    expect(s.points).toBe(2);
  });

  it('is empty for no points', () => {
    expect(toSeries([], 60)).toMatchObject({ x: [], cpuPercent: [], points: 0 });
  });
});

describe('isolatedIndices', () => {
  it('finds values with no neighbour, which a line alone would not show', () => {
    expect(isolatedIndices([1, null, 2, 3, null, 4])).toEqual([0, 5]);
    expect(isolatedIndices([null, 5, null])).toEqual([1]);
    expect(isolatedIndices([1, 2])).toEqual([]);
    expect(isolatedIndices([])).toEqual([]);
  });
});

describe('formatting', () => {
  it('bytes in 1024 steps with at most three significant digits', () => {
    expect(formatBytes(0, 'en-US')).toBe('0 B');
    expect(formatBytes(512, 'en-US')).toBe('512 B');
    expect(formatBytes(1536, 'en-US')).toBe('1.5 KB');
    expect(formatBytes(12.34 * 1024 ** 2, 'en-US')).toBe('12.3 MB');
    expect(formatBytes(4 * 1024 ** 3, 'en-US')).toBe('4 GB');
    expect(formatBytes(null)).toBe('—');
    expect(formatRate(2.5 * 1024 ** 2, 'en-US')).toBe('2.5 MB/s');
    expect(formatRate(null)).toBe('—');
  });
  it('follows the locale', () => {
    expect(formatBytes(1536, 'de-DE')).toBe('1,5 KB');
    expect(formatPercent(42.51, 'en-US')).toBe('43 %');
    expect(formatPercent(4.25, 'de-DE')).toBe('4,3 %');
  });
  it('byte axis steps are round in 1024 units and ascending', () => {
    expect(BYTE_INCREMENTS).toContain(500 * 1024);
    expect(BYTE_INCREMENTS).toContain(1024 ** 2);
    expect([...BYTE_INCREMENTS].sort((a, b) => a - b)).toEqual(BYTE_INCREMENTS);
  });
  it('times in the given locale', () => {
    const t = Date.UTC(2026, 10, 25, 15, 5) / 1000;
    expect(timeFormats('30d', 'en-GB').tick(t)).toMatch(/25 Nov/);
    expect(timeFormats('1h', 'de-DE').full(t)).toMatch(/25\. Nov/);
  });
});
