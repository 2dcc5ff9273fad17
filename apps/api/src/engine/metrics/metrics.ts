/**
 * The engine's metrics (issue 22 item 3): what the reconciler's per-host sample is turned into, and what modules read
 * (Engine `metrics`): a VM's latest sample (VM details, no call to its host) and its history for the portal's graphs.
 * Its sweep (roll-ups and retention) is one of the engine's workers.
 */
import type { FastifyBaseLogger } from 'fastify';
import { VM_METRICS_RANGES, type VmMetrics, type VmMetricsRange } from '@portal/contract/virtual-machines';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { createMetricsRepository, type BucketRow } from './metrics.repository.ts';
import { createMetricsRecorder, type VmSample } from './recorder.ts';
import { createMetricsSweep, type SweepResult } from './retention.ts';
import { cpuPercentOf, floorTo, HOUR_MS, MINUTE_MS, monthOf } from './samples.ts';

export type { VmSample } from './recorder.ts';

/** A VM's latest sample as VM details show it. */
export interface LatestSample {
  at: Date;
  cpuPercent: number;
  memoryUsedBytes: number | null;
}

export interface EngineMetrics {
  /** Stores one host's sample taken at `at` (the reconciler, once per host per pass). */
  record(samples: VmSample[], at: Date): Promise<number>;
  /** The VM's latest sample, null before its first. */
  latest(vmId: number): Promise<LatestSample | null>;
  /** The VM's points over `range` up to now, its latest sample and this month's traffic (the metrics route). */
  history(vmId: number, range: VmMetricsRange): Promise<VmMetrics>;
  /** The VM's network bytes this calendar month (UTC), as the history's `traffic` (a VM's month so far). */
  monthTraffic(vmId: number): Promise<VmMetrics['traffic']>;
  /** Rolls up ended hours and applies retention now (the sweep does it periodically). */
  sweepOnce(): Promise<SweepResult>;
  /** The sweep worker. */
  start(): void;
  stop(): Promise<void>;
}

const pointOf = (b: BucketRow) => ({
  at: b.at.toISOString(),
  seconds: b.seconds,
  cpuPercent: b.cpuCapacityNs > 0 ? cpuPercentOf(b.cpuNs, b.cpuCapacityNs) : null,
  memoryUsedBytes: b.memorySamples > 0 ? Math.round(b.memoryBytesSum / b.memorySamples) : null,
  diskReadBytes: b.diskReadBytes,
  diskWriteBytes: b.diskWriteBytes,
  netRxBytes: b.netRxBytes,
  netTxBytes: b.netTxBytes,
});

export function createEngineMetrics(opts: {
  db: Db;
  clock: Clock;
  log: FastifyBaseLogger;
  sweepIntervalMs?: number;
}): EngineMetrics {
  const repo = createMetricsRepository(opts.db);
  const recorder = createMetricsRecorder(repo);
  const sweep = createMetricsSweep({
    repo,
    clock: opts.clock,
    log: opts.log,
    ...(opts.sweepIntervalMs ? { intervalMs: opts.sweepIntervalMs } : {}),
  });

  async function latest(vmId: number): Promise<LatestSample | null> {
    const row = await repo.latest(vmId);
    return row && { at: row.sampledAt, cpuPercent: row.cpuPercent, memoryUsedBytes: row.memoryUsedBytes };
  }

  return {
    record: recorder.record,
    latest,
    async history(vmId, range) {
      const now = opts.clock.now();
      const step = VM_METRICS_RANGES[range] <= 86_400 ? MINUTE_MS : HOUR_MS;
      const from = floorTo(new Date(now.getTime() - VM_METRICS_RANGES[range] * 1000), step);
      const month = monthOf(now);
      const [buckets, last, traffic] = await Promise.all([
        step === MINUTE_MS ? repo.minutes(vmId, from) : repo.hours(vmId, from),
        latest(vmId),
        repo.traffic(vmId, month),
      ]);
      return {
        range,
        stepSeconds: step === MINUTE_MS ? 60 : 3600,
        from: from.toISOString(),
        to: now.toISOString(),
        points: buckets.map(pointOf),
        latest: last && { ...last, at: last.at.toISOString() },
        traffic: { month: month.toISOString().slice(0, 7), ...traffic },
      };
    },
    async monthTraffic(vmId) {
      const month = monthOf(opts.clock.now());
      return { month: month.toISOString().slice(0, 7), ...(await repo.traffic(vmId, month)) };
    },
    sweepOnce: sweep.sweepOnce,
    start: sweep.start,
    stop: sweep.stop,
  };
}
