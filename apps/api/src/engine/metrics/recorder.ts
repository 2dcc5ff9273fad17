/**
 * Stores a host's sample (the reconciler's one call per host per pass) for the VMs read in that pass: per VM its
 * latest counters, what the interval since the last sample adds to its minute point, and its network bytes to its
 * month's traffic (samples.ts says how). One transaction and one write statement per host, whatever its VMs.
 */
import type { MachineStats } from '../../providers/provider.ts';
import type { LatestRow, MetricsRepository, MinuteRow, TrafficRow } from './metrics.repository.ts';
import { cpuPercentOf, floorTo, intervalDelta, MINUTE_MS, trafficByMonth } from './samples.ts';

/** One VM's statistics in a host's sample. */
export interface VmSample {
  vmId: number;
  companyId: number;
  stats: MachineStats;
}

export function createMetricsRecorder(repo: MetricsRepository) {
  /** Stores the samples taken at `at`; answers how many VMs got a point (a VM's first sample only sets its counters). */
  async function record(samples: VmSample[], at: Date): Promise<number> {
    // One row per VM even if a caller repeats one (an upsert may not touch a row twice).
    const byVm = new Map(samples.map((s) => [s.vmId, s]));
    if (byVm.size === 0) return 0;
    return repo.sampling(async (w) => {
      const last = await w.lastCounters([...byVm.keys()]);
      const latest: LatestRow[] = [];
      const minutes: MinuteRow[] = [];
      const traffic: TrafficRow[] = [];
      const minute = floorTo(at, MINUTE_MS);
      for (const { vmId, companyId, stats } of byVm.values()) {
        const before = last.get(vmId);
        // A sample not newer than the stored one (another instance got there first) changes nothing.
        if (before && at.getTime() <= before.sampledAt.getTime()) continue;
        const delta = intervalDelta(before, stats, at);
        latest.push({
          vmId,
          sampledAt: at,
          cpuTimeNs: stats.cpuTimeNs,
          diskReadBytes: stats.diskReadBytes,
          diskWriteBytes: stats.diskWriteBytes,
          netRxBytes: stats.netRxBytes,
          netTxBytes: stats.netTxBytes,
          vcpus: stats.vcpus,
          memoryUsedBytes: stats.memoryUsedBytes,
          cpuPercent: delta ? cpuPercentOf(delta.cpuNs, delta.cpuCapacityNs) : 0,
        });
        if (!delta) continue;
        minutes.push({
          vmId,
          minute,
          seconds: delta.seconds,
          cpuNs: delta.cpuNs,
          cpuCapacityNs: delta.cpuCapacityNs,
          memorySamples: stats.memoryUsedBytes === null ? 0 : 1,
          memoryBytesSum: stats.memoryUsedBytes ?? 0,
          diskReadBytes: delta.diskReadBytes,
          diskWriteBytes: delta.diskWriteBytes,
          netRxBytes: delta.netRxBytes,
          netTxBytes: delta.netTxBytes,
        });
        if (delta.netRxBytes > 0 || delta.netTxBytes > 0)
          for (const t of trafficByMonth(before!.sampledAt, at, delta.netRxBytes, delta.netTxBytes))
            traffic.push({ vmId, companyId, ...t });
      }
      await w.store(latest, minutes, traffic);
      return minutes.length;
    });
  }
  return { record };
}

export type MetricsRecorder = ReturnType<typeof createMetricsRecorder>;
