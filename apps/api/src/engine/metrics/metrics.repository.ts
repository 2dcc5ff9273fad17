/**
 * The metrics history's SQL (issue 22 item 3). A host's sample is written in one transaction: its VMs' last counters
 * read under a row lock (two instances sampling at once cannot count an interval twice), then one statement that
 * upserts the latest counters, adds to the minute points and to the months' traffic, whatever the number of VMs
 * (the rows travel as JSON recordsets: one parameter each, nothing built per row). Hours are rolled up from the
 * minutes of hours that ended; old points are pruned (retention.ts).
 */
import { and, asc, eq, gte, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client.ts';
import { vmMetricLatest, vmMetricMinutes, vmTrafficMonths } from '../../db/schema.ts';
import type { LastCounters } from './samples.ts';

/** What vm_metric_latest holds for a VM after a sample. */
export interface LatestRow extends LastCounters {
  vmId: number;
  vcpus: number;
  memoryUsedBytes: number | null;
  cpuPercent: number;
}

/** What a sample adds to a VM's minute. */
export interface MinuteRow {
  vmId: number;
  minute: Date;
  seconds: number;
  cpuNs: number;
  cpuCapacityNs: number;
  memorySamples: number;
  memoryBytesSum: number;
  diskReadBytes: number;
  diskWriteBytes: number;
  netRxBytes: number;
  netTxBytes: number;
}

export interface TrafficRow {
  vmId: number;
  companyId: number;
  month: Date;
  rxBytes: number;
  txBytes: number;
}

/** A time bucket as read back (minute or hour): `at` is its start. */
export type BucketRow = Omit<MinuteRow, 'vmId' | 'minute'> & { at: Date };

const BUCKET_COLUMNS = sql.raw(
  'seconds, cpu_ns, cpu_capacity_ns, memory_samples, memory_bytes_sum, disk_read_bytes, disk_write_bytes, net_rx_bytes, net_tx_bytes',
);
const BUCKET_SUMS = sql.raw(
  'sum(seconds) as seconds, sum(cpu_ns) as cpu_ns, sum(cpu_capacity_ns) as cpu_capacity_ns, sum(memory_samples) as memory_samples, sum(memory_bytes_sum) as memory_bytes_sum, sum(disk_read_bytes) as disk_read_bytes, sum(disk_write_bytes) as disk_write_bytes, sum(net_rx_bytes) as net_rx_bytes, sum(net_tx_bytes) as net_tx_bytes',
);

type RawBucket = Record<
  | 'seconds'
  | 'cpu_ns'
  | 'cpu_capacity_ns'
  | 'memory_samples'
  | 'memory_bytes_sum'
  | 'disk_read_bytes'
  | 'disk_write_bytes'
  | 'net_rx_bytes'
  | 'net_tx_bytes',
  string | number
> & { at: string | Date };

const bucketOf = (r: RawBucket): BucketRow => ({
  at: new Date(r.at),
  seconds: Number(r.seconds),
  cpuNs: Number(r.cpu_ns),
  cpuCapacityNs: Number(r.cpu_capacity_ns),
  memorySamples: Number(r.memory_samples),
  memoryBytesSum: Number(r.memory_bytes_sum),
  diskReadBytes: Number(r.disk_read_bytes),
  diskWriteBytes: Number(r.disk_write_bytes),
  netRxBytes: Number(r.net_rx_bytes),
  netTxBytes: Number(r.net_tx_bytes),
});

const json = (rows: unknown[]) => JSON.stringify(rows);
/** A time as a timestamptz parameter (the same text on node-postgres and PGlite). */
const ts = (at: Date) => sql`${at.toISOString()}::timestamptz`;
/** Rows a statement changed: node-postgres says rowCount, PGlite affectedRows. */
const affected = (res: unknown) => {
  const r = res as { rowCount?: number | null; affectedRows?: number };
  return r.rowCount ?? r.affectedRows ?? 0;
};

export function createMetricsRepository(db: Db) {
  /** The writes of one host's sample, inside its transaction. */
  const inTransaction = (tx: Tx) => ({
    /** The VMs' last counters, locked until the transaction ends. */
    async lastCounters(vmIds: number[]): Promise<Map<number, LastCounters>> {
      if (vmIds.length === 0) return new Map();
      const rows = await tx
        .select()
        .from(vmMetricLatest)
        .where(inArray(vmMetricLatest.vmId, vmIds))
        .orderBy(asc(vmMetricLatest.vmId))
        .for('update');
      return new Map(rows.map((r) => [r.vmId, r]));
    },

    /** One statement: latest counters upserted, minutes and months' traffic added to. */
    async store(latest: LatestRow[], minutes: MinuteRow[], traffic: TrafficRow[]): Promise<void> {
      if (latest.length === 0) return;
      await tx.execute(sql`
        with latest as (
          insert into vm_metric_latest (vm_id, sampled_at, cpu_time_ns, disk_read_bytes, disk_write_bytes, net_rx_bytes,
            net_tx_bytes, vcpus, memory_used_bytes, cpu_percent)
          select "vmId", "sampledAt", "cpuTimeNs", "diskReadBytes", "diskWriteBytes", "netRxBytes", "netTxBytes", vcpus,
            "memoryUsedBytes", "cpuPercent"
          from jsonb_to_recordset(${json(latest)}::jsonb) as r("vmId" int, "sampledAt" timestamptz, "cpuTimeNs" bigint,
            "diskReadBytes" bigint, "diskWriteBytes" bigint, "netRxBytes" bigint, "netTxBytes" bigint, vcpus int,
            "memoryUsedBytes" bigint, "cpuPercent" float8)
          on conflict (vm_id) do update set sampled_at = excluded.sampled_at, cpu_time_ns = excluded.cpu_time_ns,
            disk_read_bytes = excluded.disk_read_bytes, disk_write_bytes = excluded.disk_write_bytes,
            net_rx_bytes = excluded.net_rx_bytes, net_tx_bytes = excluded.net_tx_bytes, vcpus = excluded.vcpus,
            memory_used_bytes = excluded.memory_used_bytes, cpu_percent = excluded.cpu_percent
          returning 1
        ), minutes as (
          insert into vm_metric_minutes (vm_id, minute, ${BUCKET_COLUMNS})
          select "vmId", minute, seconds, "cpuNs", "cpuCapacityNs", "memorySamples", "memoryBytesSum", "diskReadBytes",
            "diskWriteBytes", "netRxBytes", "netTxBytes"
          from jsonb_to_recordset(${json(minutes)}::jsonb) as r("vmId" int, minute timestamptz, seconds float8,
            "cpuNs" bigint, "cpuCapacityNs" bigint, "memorySamples" int, "memoryBytesSum" bigint, "diskReadBytes" bigint,
            "diskWriteBytes" bigint, "netRxBytes" bigint, "netTxBytes" bigint)
          on conflict (vm_id, minute) do update set seconds = vm_metric_minutes.seconds + excluded.seconds,
            cpu_ns = vm_metric_minutes.cpu_ns + excluded.cpu_ns,
            cpu_capacity_ns = vm_metric_minutes.cpu_capacity_ns + excluded.cpu_capacity_ns,
            memory_samples = vm_metric_minutes.memory_samples + excluded.memory_samples,
            memory_bytes_sum = vm_metric_minutes.memory_bytes_sum + excluded.memory_bytes_sum,
            disk_read_bytes = vm_metric_minutes.disk_read_bytes + excluded.disk_read_bytes,
            disk_write_bytes = vm_metric_minutes.disk_write_bytes + excluded.disk_write_bytes,
            net_rx_bytes = vm_metric_minutes.net_rx_bytes + excluded.net_rx_bytes,
            net_tx_bytes = vm_metric_minutes.net_tx_bytes + excluded.net_tx_bytes
          returning 1
        )
        insert into vm_traffic_months (vm_id, company_id, month, rx_bytes, tx_bytes)
        select "vmId", "companyId", month, "rxBytes", "txBytes"
        from jsonb_to_recordset(${json(traffic)}::jsonb) as r("vmId" int, "companyId" int, month timestamptz,
          "rxBytes" bigint, "txBytes" bigint)
        on conflict (vm_id, month) do update set rx_bytes = vm_traffic_months.rx_bytes + excluded.rx_bytes,
          tx_bytes = vm_traffic_months.tx_bytes + excluded.tx_bytes`);
    },
  });

  return {
    /**
     * Runs `work` with one host's writes in one transaction, committed without waiting for the WAL flush: a crash may
     * lose the last samples, never count one twice (the next sample's interval then runs from the older counters
     * still stored, so totals stay whole), and a pass does not wait for one disk flush per host.
     */
    sampling<T>(work: (w: ReturnType<typeof inTransaction>) => Promise<T>): Promise<T> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`set local synchronous_commit = off`);
        return work(inTransaction(tx));
      });
    },

    async latest(vmId: number): Promise<LatestRow | null> {
      const [row] = await db.select().from(vmMetricLatest).where(eq(vmMetricLatest.vmId, vmId));
      return row ?? null;
    },

    /** A VM's minute points from `from` on. */
    async minutes(vmId: number, from: Date): Promise<BucketRow[]> {
      const rows = await db
        .select()
        .from(vmMetricMinutes)
        .where(and(eq(vmMetricMinutes.vmId, vmId), gte(vmMetricMinutes.minute, from)))
        .orderBy(asc(vmMetricMinutes.minute));
      return rows.map(({ vmId: _, minute, ...bucket }) => ({ at: minute, ...bucket }));
    },

    /**
     * A VM's hours from `from` on: the rolled-up ones, then the hours after its last roll-up (the current one, or one
     * the sweep has not reached yet) summed from its minutes, so the newest hour is never missing.
     */
    async hours(vmId: number, from: Date): Promise<BucketRow[]> {
      const res = await db.execute<RawBucket>(sql`
        select hour as at, ${BUCKET_COLUMNS} from vm_metric_hours where vm_id = ${vmId} and hour >= ${ts(from)}
        union all
        select date_trunc('hour', minute, 'UTC') as at, ${BUCKET_SUMS}
        from vm_metric_minutes
        where vm_id = ${vmId} and minute >= greatest(${ts(from)},
          coalesce((select max(hour) from vm_metric_hours where vm_id = ${vmId}) + interval '1 hour', ${ts(from)}))
        group by 1
        order by 1`);
      return res.rows.map(bucketOf);
    },

    /** A VM's network bytes in a month (zeros when none were counted). */
    async traffic(vmId: number, month: Date): Promise<{ rxBytes: number; txBytes: number }> {
      const [row] = await db
        .select({ rxBytes: vmTrafficMonths.rxBytes, txBytes: vmTrafficMonths.txBytes })
        .from(vmTrafficMonths)
        .where(and(eq(vmTrafficMonths.vmId, vmId), eq(vmTrafficMonths.month, month)));
      return row ?? { rxBytes: 0, txBytes: 0 };
    },

    /**
     * Rolls up the minutes of every hour that ended before `until` and is not rolled up yet (after the newest hour
     * rolled up; the first time, from the oldest minute): one statement; answers the hour rows written.
     */
    async rollUp(until: Date): Promise<number> {
      const res = await db.execute(sql`
        with since as (
          select coalesce((select max(hour) + interval '1 hour' from vm_metric_hours),
            (select date_trunc('hour', min(minute), 'UTC') from vm_metric_minutes)) as at
        )
        insert into vm_metric_hours (vm_id, hour, ${BUCKET_COLUMNS})
        select vm_id, date_trunc('hour', minute, 'UTC'), ${BUCKET_SUMS}
        from vm_metric_minutes, since
        where minute >= since.at and minute < ${ts(until)}
        group by 1, 2
        on conflict (vm_id, hour) do update set seconds = excluded.seconds, cpu_ns = excluded.cpu_ns,
          cpu_capacity_ns = excluded.cpu_capacity_ns, memory_samples = excluded.memory_samples,
          memory_bytes_sum = excluded.memory_bytes_sum, disk_read_bytes = excluded.disk_read_bytes,
          disk_write_bytes = excluded.disk_write_bytes, net_rx_bytes = excluded.net_rx_bytes,
          net_tx_bytes = excluded.net_tx_bytes`);
      return affected(res);
    },

    /** Drops minutes and hours older than their retention, and the last counters of deleted VMs. */
    async prune(minutesBefore: Date, hoursBefore: Date): Promise<{ minutes: number; hours: number; latest: number }> {
      const minutes = await db.execute(sql`delete from vm_metric_minutes where minute < ${ts(minutesBefore)}`);
      const hours = await db.execute(sql`delete from vm_metric_hours where hour < ${ts(hoursBefore)}`);
      const latest = await db.execute(sql`
        delete from vm_metric_latest l using virtual_machines v where v.id = l.vm_id and v.deleted_at is not null`);
      return { minutes: affected(minutes), hours: affected(hours), latest: affected(latest) };
    },
  };
}

export type MetricsRepository = ReturnType<typeof createMetricsRepository>;
