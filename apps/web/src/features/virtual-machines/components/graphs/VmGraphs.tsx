/**
 * The VM page's Graphs section (issue 25 item 4): CPU, memory, disk and network over 1 h, 24 h, 7 d, 30 d or 90 d from the
 * engine's metrics history. Loaded as its own chunk (VmGraphsSection), so uPlot stays out of every other page.
 */
import { useMemo, useState } from 'react';
import { GRAPH_TEXT, TEXT } from '@portal/contract/messages';
import { Button } from '../../../../components/ui/Button.tsx';
import { Spinner } from '../../../../components/ui/Spinner.tsx';
import { errorMessage } from '../../../../lib/api.ts';
import { GRAPH_RANGES, useVmMetrics, type GraphRange, type VmMetricsData } from '../../api/vm-metrics.ts';
import { toSeries } from './metrics-series.ts';
import { TimeChart, type ChartSeries, type ValueKind } from './TimeChart.tsx';

interface ChartDef {
  name: string;
  title: string;
  kind: ValueKind;
  series: ChartSeries[];
}

function chartsOf(data: VmMetricsData): { x: number[]; charts: ChartDef[]; from: number; to: number } {
  const s = toSeries(data.points, data.stepSeconds);
  const seconds = (d: string | Date) => Math.floor(new Date(d).getTime() / 1000);
  return {
    x: s.x,
    from: seconds(data.from),
    to: seconds(data.to),
    charts: [
      {
        name: 'cpu',
        title: GRAPH_TEXT.cpu,
        kind: 'percent',
        series: [{ label: GRAPH_TEXT.cpuSeries, colorVar: '--graph-1', values: s.cpuPercent }],
      },
      {
        name: 'memory',
        title: GRAPH_TEXT.memory,
        kind: 'bytes',
        series: [{ label: GRAPH_TEXT.memorySeries, colorVar: '--graph-1', values: s.memoryUsedBytes }],
      },
      {
        name: 'disk',
        title: GRAPH_TEXT.disk,
        kind: 'rate',
        series: [
          { label: GRAPH_TEXT.diskRead, colorVar: '--graph-1', values: s.diskReadRate },
          { label: GRAPH_TEXT.diskWrite, colorVar: '--graph-2', values: s.diskWriteRate },
        ],
      },
      {
        name: 'network',
        title: GRAPH_TEXT.network,
        kind: 'rate',
        series: [
          { label: GRAPH_TEXT.netIn, colorVar: '--graph-1', values: s.netRxRate },
          { label: GRAPH_TEXT.netOut, colorVar: '--graph-2', values: s.netTxRate },
        ],
      },
    ],
  };
}

function RangeSwitch({ value, onChange }: { value: GraphRange; onChange: (r: GraphRange) => void }) {
  return (
    <div
      role="group"
      aria-label={GRAPH_TEXT.rangeLabel}
      className="inline-flex rounded-md border border-slate-300 dark:border-slate-600 overflow-hidden"
    >
      {GRAPH_RANGES.map((r) => (
        <button
          key={r}
          type="button"
          aria-pressed={r === value}
          title={GRAPH_TEXT.ranges[r]}
          onClick={() => onChange(r)}
          className={`px-3 py-1 text-sm font-medium border-l first:border-l-0 border-slate-300 dark:border-slate-600 ${
            r === value
              ? 'bg-brand-600 text-on-brand-600 dark:bg-brand-300 dark:text-slate-900'
              : 'bg-white text-slate-700 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-300 dark:hover:bg-slate-800'
          }`}
        >
          {r}
        </button>
      ))}
    </div>
  );
}

export function VmGraphs({ vmId }: { vmId: number }) {
  const [range, setRange] = useState<GraphRange>('1h');
  const metrics = useVmMetrics(vmId, range);
  const data = metrics.data;
  // The answer shown may be the previous range's while the new one loads (kept to avoid a flash).
  const shown = data && data.range === range ? data : undefined;
  const built = useMemo(() => (shown ? chartsOf(shown) : null), [shown]);
  const hourly = range === '7d' || range === '30d' || range === '90d';

  let body;
  if (metrics.isError && !shown) {
    body = (
      <div role="alert" className="py-6 text-center" data-graphs-state="error">
        <p className="text-sm text-slate-700 dark:text-slate-300">{GRAPH_TEXT.loadFailed}</p>
        <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">{errorMessage(metrics.error)}</p>
        <Button variant="secondary" className="mt-3" onClick={() => void metrics.refetch()}>
          {TEXT.tryAgain}
        </Button>
      </div>
    );
  } else if (!built) {
    body = (
      <div
        className="flex items-center justify-center gap-2 py-10 text-sm text-slate-500 dark:text-slate-400"
        data-graphs-state="loading"
      >
        <Spinner label={GRAPH_TEXT.loading} />
        {GRAPH_TEXT.loading}
      </div>
    );
  } else if (built.x.length === 0) {
    body = (
      <p className="py-10 text-center text-sm text-slate-500 dark:text-slate-400" data-graphs-state="empty">
        {GRAPH_TEXT.noData}
      </p>
    );
  } else {
    body = (
      <>
        <div className="grid gap-6 lg:grid-cols-2" data-graphs-state="ready">
          {built.charts.map((c) => (
            <figure key={c.name} className="min-w-0">
              <figcaption className="mb-1 text-sm font-semibold text-slate-900 dark:text-slate-100">
                {c.title}
              </figcaption>
              <TimeChart
                name={c.name}
                kind={c.kind}
                range={range}
                from={built.from}
                to={built.to}
                x={built.x}
                series={c.series}
              />
            </figure>
          ))}
        </div>
        <p className="mt-4 text-xs text-slate-500 dark:text-slate-400">
          {GRAPH_TEXT.stepNote(hourly ? 'hour' : 'minute')}
        </p>
      </>
    );
  }

  return (
    <section
      aria-label={GRAPH_TEXT.title}
      className="rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 shadow-sm"
    >
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 dark:border-slate-700 px-4 py-3">
        <h2 className="font-semibold text-slate-900 dark:text-slate-100">{GRAPH_TEXT.title}</h2>
        <RangeSwitch value={range} onChange={setRange} />
      </div>
      <div className="p-4">
        {metrics.isError && shown ? (
          <p role="alert" className="mb-3 text-sm text-red-700 dark:text-red-300">
            {GRAPH_TEXT.loadFailed} {errorMessage(metrics.error)}{' '}
            <button type="button" className="underline" onClick={() => void metrics.refetch()}>
              {TEXT.tryAgain}
            </button>
          </p>
        ) : null}
        {body}
      </div>
    </section>
  );
}
