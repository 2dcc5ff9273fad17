/** What one sample adds to a VM's history: intervals, restarts, CPU %, and traffic split at a month's start. */
import { expect, it } from 'vitest';
import type { MachineStats } from '../../providers/provider.ts';
import { cpuPercentOf, floorTo, intervalDelta, MINUTE_MS, monthOf, trafficByMonth } from './samples.ts';

const stats = (over: Partial<MachineStats> = {}): MachineStats => ({
  cpuTimeNs: 10e9,
  vcpus: 2,
  memoryUsedBytes: 1024,
  diskReadBytes: 1000,
  diskWriteBytes: 2000,
  netRxBytes: 3000,
  netTxBytes: 4000,
  ...over,
});
const at = (iso: string) => new Date(iso);

it('takes the growth of each counter over the interval, and nothing for a first or an older sample', () => {
  const last = { sampledAt: at('2026-03-01T10:00:00Z'), ...stats() };
  expect(intervalDelta(undefined, stats(), at('2026-03-01T10:00:15Z'))).toBeNull();
  expect(intervalDelta(last, stats(), at('2026-03-01T10:00:00Z'))).toBeNull();
  expect(
    intervalDelta(
      last,
      stats({ cpuTimeNs: 25e9, diskReadBytes: 1500, netRxBytes: 9000, netTxBytes: 4000 }),
      at('2026-03-01T10:00:15Z'),
    ),
  ).toEqual({
    seconds: 15,
    cpuNs: 15e9,
    cpuCapacityNs: 30e9,
    diskReadBytes: 500,
    diskWriteBytes: 0,
    netRxBytes: 6000,
    netTxBytes: 0,
    restarted: false,
  });
});

it('reads a CPU time that went back as a restart: every counter counts from 0, none is ever negative', () => {
  const last = { sampledAt: at('2026-03-01T10:00:00Z'), ...stats({ cpuTimeNs: 900e9, netRxBytes: 5e9 }) };
  const d = intervalDelta(last, stats({ cpuTimeNs: 2e9, netRxBytes: 7000 }), at('2026-03-01T10:01:00Z'))!;
  expect(d).toMatchObject({ restarted: true, cpuNs: 2e9, netRxBytes: 7000, diskReadBytes: 1000 });
  // A disk or interface removed (its bytes drop) without a restart: it adds nothing rather than a negative amount.
  const unplugged = intervalDelta(last, stats({ cpuTimeNs: 901e9, netRxBytes: 100 }), at('2026-03-01T10:01:00Z'))!;
  expect(unplugged).toMatchObject({ restarted: false, cpuNs: 1e9, netRxBytes: 0 });
});

it('gives CPU % of all vCPUs to one decimal, at most 100', () => {
  expect(cpuPercentOf(15e9, 30e9)).toBe(50);
  expect(cpuPercentOf(1e9, 3e9)).toBe(33.3);
  expect(cpuPercentOf(40e9, 30e9)).toBe(100);
  expect(cpuPercentOf(5, 0)).toBe(0);
});

it("counts an interval's traffic in its month, split by time when it began in the month before", () => {
  expect(trafficByMonth(at('2026-03-31T23:59:00Z'), at('2026-03-31T23:59:30Z'), 100, 10)).toEqual([
    { month: at('2026-03-01T00:00:00Z'), rxBytes: 100, txBytes: 10 },
  ]);
  // 45 s before midnight, 15 s after: a quarter in April.
  expect(trafficByMonth(at('2026-03-31T23:59:15Z'), at('2026-04-01T00:00:15Z'), 1000, 101)).toEqual([
    { month: at('2026-03-01T00:00:00Z'), rxBytes: 750, txBytes: 76 },
    { month: at('2026-04-01T00:00:00Z'), rxBytes: 250, txBytes: 25 },
  ]);
  // Across a year's end.
  expect(trafficByMonth(at('2026-12-31T23:00:00Z'), at('2027-01-01T01:00:00Z'), 10, 0)[0]!.month).toEqual(
    at('2026-12-01T00:00:00Z'),
  );
  expect(monthOf(at('2026-02-28T23:59:59.999Z'))).toEqual(at('2026-02-01T00:00:00Z'));
  expect(floorTo(at('2026-02-28T23:59:59.999Z'), MINUTE_MS)).toEqual(at('2026-02-28T23:59:00Z'));
});
