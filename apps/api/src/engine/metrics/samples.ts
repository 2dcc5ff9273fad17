/**
 * What one sample of a VM adds to its history, from the counters read the time before (pure: no database, no clock).
 * A sample's interval (since the sample before) counts in the minute where it ends; its network bytes count in the
 * calendar month (UTC) where they were moved, split in proportion to time when the interval crosses a month's start.
 * A CPU time lower than the last one read means the machine restarted (its counters began again at 0): every
 * counter then counts from 0; any other counter that went back (a disk or interface removed) adds nothing.
 * Nothing is ever negative.
 */
import type { MachineStats } from '../../providers/provider.ts';

/** The counters last stored for a VM (vm_metric_latest). */
export interface LastCounters {
  sampledAt: Date;
  cpuTimeNs: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  netRxBytes: number;
  netTxBytes: number;
}

/** What one interval adds to a minute bucket. */
export interface IntervalDelta {
  seconds: number;
  cpuNs: number;
  cpuCapacityNs: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  netRxBytes: number;
  netTxBytes: number;
  restarted: boolean;
}

export interface MonthTraffic {
  /** The month's first instant, UTC. */
  month: Date;
  rxBytes: number;
  txBytes: number;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export const floorTo = (at: Date, ms: number) => new Date(Math.floor(at.getTime() / ms) * ms);
export const monthOf = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
const monthBefore = (month: Date) => new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() - 1, 1));

/** The interval since `last` (null for a first sample, or one not newer than the last stored). */
export function intervalDelta(last: LastCounters | undefined, now: MachineStats, at: Date): IntervalDelta | null {
  if (!last || at.getTime() <= last.sampledAt.getTime()) return null;
  const restarted = now.cpuTimeNs < last.cpuTimeNs;
  const grew = (cur: number, old: number) => (restarted ? cur : Math.max(0, cur - old));
  const seconds = (at.getTime() - last.sampledAt.getTime()) / 1000;
  return {
    seconds,
    cpuNs: grew(now.cpuTimeNs, last.cpuTimeNs),
    cpuCapacityNs: Math.round(seconds * 1e9 * Math.max(1, now.vcpus)),
    diskReadBytes: grew(now.diskReadBytes, last.diskReadBytes),
    diskWriteBytes: grew(now.diskWriteBytes, last.diskWriteBytes),
    netRxBytes: grew(now.netRxBytes, last.netRxBytes),
    netTxBytes: grew(now.netTxBytes, last.netTxBytes),
    restarted,
  };
}

/** CPU use over an interval, % of the machine's vCPUs (one decimal, at most 100). */
export function cpuPercentOf(cpuNs: number, capacityNs: number): number {
  if (capacityNs <= 0) return 0;
  return Math.round(Math.min(100, (cpuNs / capacityNs) * 100) * 10) / 10;
}

/**
 * The interval's network bytes by month: all in the month of `at`, or, when the interval began in an earlier month,
 * the share of its time after the month's start there and the rest in the month before.
 */
export function trafficByMonth(from: Date, at: Date, rxBytes: number, txBytes: number): MonthTraffic[] {
  const month = monthOf(at);
  if (from.getTime() >= month.getTime()) return [{ month, rxBytes, txBytes }];
  const share = (at.getTime() - month.getTime()) / (at.getTime() - from.getTime());
  const rx = Math.round(rxBytes * share);
  const tx = Math.round(txBytes * share);
  return [
    { month: monthBefore(month), rxBytes: rxBytes - rx, txBytes: txBytes - tx },
    { month, rxBytes: rx, txBytes: tx },
  ];
}
