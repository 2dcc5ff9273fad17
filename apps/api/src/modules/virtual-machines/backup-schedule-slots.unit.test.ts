import { describe, expect, it } from 'vitest';
import { slotAfter, slotAtOrBefore } from './backup-schedule-slots.ts';

const at = (s: string) => new Date(s);
describe('backup schedule slots (UTC)', () => {
  it('daily: the hour today when still ahead, else tomorrow; the slot itself is not after itself', () => {
    const rule = { frequency: 'daily', weekday: null, hour: 3 } as const;
    expect(slotAfter(rule, at('2026-11-26T02:59:59Z'))).toEqual(at('2026-11-26T03:00:00Z'));
    expect(slotAfter(rule, at('2026-11-26T03:00:00Z'))).toEqual(at('2026-11-27T03:00:00Z'));
    expect(slotAfter(rule, at('2026-12-31T23:30:00Z'))).toEqual(at('2027-01-01T03:00:00Z'));
    expect(slotAtOrBefore(rule, at('2026-11-26T03:00:00Z'))).toEqual(at('2026-11-26T03:00:00Z'));
    expect(slotAtOrBefore(rule, at('2026-11-26T02:00:00Z'))).toEqual(at('2026-11-25T03:00:00Z'));
  });
  it('weekly: the weekday at the hour, strictly after; the last one at or before', () => {
    // 2026-11-26 is a Thursday (4).
    const monday = { frequency: 'weekly', weekday: 1, hour: 23 } as const;
    expect(slotAfter(monday, at('2026-11-26T12:00:00Z'))).toEqual(at('2026-11-30T23:00:00Z'));
    expect(slotAfter(monday, at('2026-11-30T23:00:00Z'))).toEqual(at('2026-12-07T23:00:00Z'));
    expect(slotAfter(monday, at('2026-11-30T22:59:00Z'))).toEqual(at('2026-11-30T23:00:00Z'));
    expect(slotAtOrBefore(monday, at('2026-11-26T12:00:00Z'))).toEqual(at('2026-11-23T23:00:00Z'));
    const thursday = { frequency: 'weekly', weekday: 4, hour: 0 } as const;
    expect(slotAfter(thursday, at('2026-11-26T00:00:00Z'))).toEqual(at('2026-12-03T00:00:00Z'));
    expect(slotAtOrBefore(thursday, at('2026-11-26T00:00:00Z'))).toEqual(at('2026-11-26T00:00:00Z'));
    const sunday = { frequency: 'weekly', weekday: 0, hour: 5 } as const;
    expect(slotAfter(sunday, at('2026-11-28T23:00:00Z'))).toEqual(at('2026-11-29T05:00:00Z'));
  });
});
