/**
 * The metrics route's buckets as the graphs' columns (no DOM: unit-tested). A bucket holds totals over the seconds
 * the engine's samples covered in it, so a byte rate is bytes / seconds; CPU % and memory are the bucket's means.
 * Buckets without samples are absent from the answer: a missing step becomes a null, which breaks the line rather
 * than drawing a slope across a time the machine was off.
 */
export interface MetricsPointIn {
  /** The bucket's start: an ISO string, or a Date once the API client revived it. */
  at: string | Date;
  seconds: number;
  cpuPercent: number | null;
  memoryUsedBytes: number | null;
  diskReadBytes: number;
  diskWriteBytes: number;
  netRxBytes: number;
  netTxBytes: number;
}

/** Column-wise series, x in Unix seconds (uPlot's shape); null where there is no value. */
export interface MetricsSeries {
  x: number[];
  cpuPercent: (number | null)[];
  memoryUsedBytes: (number | null)[];
  diskReadRate: (number | null)[];
  diskWriteRate: (number | null)[];
  netRxRate: (number | null)[];
  netTxRate: (number | null)[];
  /** How many buckets carried samples (gaps not counted). */
  points: number;
}

/** Bytes over a bucket as bytes per second; null when the bucket covered no time (nothing to divide by). */
export function rateOf(bytes: number, seconds: number): number | null {
  if (!(seconds > 0) || !Number.isFinite(bytes)) return null;
  return Math.max(0, bytes) / seconds;
}

const toSeconds = (at: string | Date) => Math.floor(new Date(at).getTime() / 1000);

/**
 * Builds the series from the route's points (in time order), with one null row after each bucket that is not
 * followed by the next step's bucket, so the line stops there. `stepSeconds` is the answer's bucket width.
 */
export function toSeries(points: readonly MetricsPointIn[], stepSeconds: number): MetricsSeries {
  const out: MetricsSeries = {
    x: [],
    cpuPercent: [],
    memoryUsedBytes: [],
    diskReadRate: [],
    diskWriteRate: [],
    netRxRate: [],
    netTxRate: [],
    points: 0,
  };
  const gap = () => {
    out.cpuPercent.push(null);
    out.memoryUsedBytes.push(null);
    out.diskReadRate.push(null);
    out.diskWriteRate.push(null);
    out.netRxRate.push(null);
    out.netTxRate.push(null);
  };
  const sorted = [...points].sort((a, b) => toSeconds(a.at) - toSeconds(b.at));
  let previous: number | null = null;
  for (const p of sorted) {
    const t = toSeconds(p.at);
    if (previous !== null && t === previous) continue; // the same bucket twice: keep the first
    if (previous !== null && t - previous > stepSeconds * 1.5) {
      out.x.push(previous + stepSeconds);
      gap();
    }
    out.x.push(t);
    out.cpuPercent.push(p.cpuPercent === null ? null : Math.min(100, Math.max(0, p.cpuPercent)));
    out.memoryUsedBytes.push(p.memoryUsedBytes);
    out.diskReadRate.push(rateOf(p.diskReadBytes, p.seconds));
    out.diskWriteRate.push(rateOf(p.diskWriteBytes, p.seconds));
    out.netRxRate.push(rateOf(p.netRxBytes, p.seconds));
    out.netTxRate.push(rateOf(p.netTxBytes, p.seconds));
    out.points++;
    previous = t;
  }
  return out;
}

/** Rows with a value and none on either side: a line cannot show them, so they are drawn as points. */
export function isolatedIndices(values: (number | null)[]): number[] {
  const has = (i: number) => values[i] !== null && values[i] !== undefined;
  return values.flatMap((_, i) => (has(i) && !has(i - 1) && !has(i + 1) ? [i] : []));
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const;

/** Bytes in the portal's units (1 KB = 1024 B, as its RAM and disk sizes), at most three significant digits. */
export function formatBytes(bytes: number | null | undefined, locale?: string): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value >= 100 || unit === 0 ? 0 : value >= 10 ? 1 : 2;
  const number = new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(Math.sign(bytes) * value);
  return `${number} ${BYTE_UNITS[unit]}`;
}

/** A byte rate: "1.5 MB/s". */
export const formatRate = (bytesPerSecond: number | null | undefined, locale?: string): string =>
  bytesPerSecond === null || bytesPerSecond === undefined || !Number.isFinite(bytesPerSecond)
    ? '—'
    : `${formatBytes(bytesPerSecond, locale)}/s`;

/** A percentage: "42.5 %" (one decimal below 10, none above). */
export function formatPercent(value: number | null | undefined, locale?: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: value < 10 ? 1 : 0 }).format(value)} %`;
}

/**
 * Round axis steps for bytes (powers of 1024 times 1, 2 or 5), so an axis reads "0, 500 KB, 1 MB" and not
 * "0, 488.3 KB, 976.6 KB". uPlot picks the smallest that keeps its labels apart.
 */
export const BYTE_INCREMENTS: number[] = (() => {
  const out: number[] = [];
  for (let power = 0; power <= 4; power++) {
    for (const m of [1, 2, 5, 10, 20, 50, 100, 200, 500]) out.push(m * 1024 ** power);
  }
  return [...new Set(out)].sort((a, b) => a - b);
})();

/** The x axis' tick labels and the legend's time: in the user's locale, coarser for longer ranges. */
export function timeFormats(range: '1h' | '24h' | '7d' | '30d' | '90d', locale?: string) {
  const tick =
    range === '1h' || range === '24h'
      ? new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit' })
      : range === '7d'
        ? new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric' })
        : new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' });
  const full = new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    hour: 'numeric',
    minute: '2-digit',
  });
  return {
    tick: (seconds: number) => tick.format(new Date(seconds * 1000)),
    full: (seconds: number) => full.format(new Date(seconds * 1000)),
  };
}
