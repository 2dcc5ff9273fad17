/**
 * One uPlot time chart: its width follows its box, its colours come from the theme's CSS variables (read again when
 * the theme changes), its axes carry units and the user's locale, and its legend shows the values under the cursor
 * (the newest point's when the cursor is elsewhere).
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTheme } from '../../../../lib/theme.ts';
import {
  BYTE_INCREMENTS,
  formatBytes,
  formatPercent,
  formatRate,
  isolatedIndices,
  timeFormats,
} from './metrics-series.ts';
import type { GraphRange } from '../../api/vm-metrics.ts';

export type ValueKind = 'percent' | 'bytes' | 'rate';

export interface ChartSeries {
  label: string;
  /** A CSS custom property set on the chart's box (below), e.g. '--graph-1'. */
  colorVar: '--graph-1' | '--graph-2';
  values: (number | null)[];
}

export interface TimeChartProps {
  /** Names the chart for assistive technology and tests. */
  name: string;
  kind: ValueKind;
  range: GraphRange;
  /** The x axis spans the whole range asked for, Unix seconds. */
  from: number;
  to: number;
  x: number[];
  series: ChartSeries[];
  height?: number;
}

/** Any CSS colour (oklch included) as rgba() with the given alpha, through a 1 px canvas. */
function withAlpha(color: string, alpha: number): string {
  const ctx = document.createElement('canvas').getContext('2d');
  if (!ctx) return color;
  ctx.fillStyle = color;
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

const locale = () => (typeof navigator === 'undefined' ? undefined : navigator.language);

function formatterOf(kind: ValueKind): (v: number | null | undefined) => string {
  const l = locale();
  return kind === 'percent'
    ? (v) => formatPercent(v, l)
    : kind === 'bytes'
      ? (v) => formatBytes(v, l)
      : (v) => formatRate(v, l);
}

/** The index of the newest row with a value, for the legend when the cursor is not over the chart. */
function lastIndex(series: ChartSeries[]): number | null {
  for (let i = (series[0]?.values.length ?? 0) - 1; i >= 0; i--) {
    if (series.some((s) => s.values[i] !== null && s.values[i] !== undefined)) return i;
  }
  return null;
}

export function TimeChart({ name, kind, range, from, to, x, series, height = 160 }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const { theme } = useTheme();

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(el);
    const color = (v: string) => css.getPropertyValue(v).trim() || css.color;
    const axisColor = color('--graph-axis');
    const gridColor = color('--graph-grid');
    const font = `12px ${css.fontFamily}`;
    const format = formatterOf(kind);
    const times = timeFormats(range, locale());
    const single = series.length === 1;
    const strokes = series.map((x) => color(x.colorVar));

    const axisSize = (self: uPlot, values: string[] | null, axisIdx: number) => {
      if (!values?.length) return 40;
      const ctx = self.ctx;
      ctx.save();
      ctx.font = font;
      const widest = Math.max(...values.map((v) => ctx.measureText(v).width));
      ctx.restore();
      return Math.ceil(widest) + (self.axes[axisIdx]?.gap ?? 5) + 14;
    };

    const opts: uPlot.Options = {
      width: Math.max(1, Math.floor(el.clientWidth)),
      height,
      padding: [10, 12, 0, 0],
      cursor: { drag: { x: false, y: false }, points: { size: 7 } },
      legend: {
        live: true,
        // Filled swatches in the series' colours (uPlot's default is an outline for a series without a fill).
        markers: { fill: (_u, i) => strokes[i - 1] ?? axisColor },
      },
      scales: {
        x: { time: true, range: () => [from, to] },
        y: {
          range: (_u, _min, max) =>
            kind === 'percent'
              ? [0, 100]
              : [0, max !== null && max > 0 ? max * 1.15 : kind === 'bytes' ? 1024 ** 3 : 1024],
        },
      },
      axes: [
        {
          stroke: axisColor,
          font,
          space: range === '1h' || range === '24h' ? 70 : 60,
          grid: { stroke: gridColor, width: 1 },
          ticks: { stroke: gridColor, width: 1 },
          values: (_u, splits) => splits.map((s) => times.tick(s)),
        },
        {
          stroke: axisColor,
          font,
          size: axisSize,
          grid: { stroke: gridColor, width: 1 },
          ticks: { stroke: gridColor, width: 1 },
          ...(kind === 'percent' ? { incrs: [10, 20, 25, 50] } : { incrs: BYTE_INCREMENTS }),
          values: (_u, splits) => splits.map((s) => format(s)),
        },
      ],
      series: [
        { label: 'Time', value: (_u, v) => (v === null || v === undefined ? '—' : times.full(v)) },
        ...series.map((s, i) => {
          const stroke = strokes[i] ?? axisColor;
          return {
            label: s.label,
            stroke,
            width: 2,
            ...(single ? { fill: withAlpha(stroke, 0.15) } : {}),
            spanGaps: false,
            // All points when few enough to tell apart (uPlot decides), else only those no line reaches.
            points: { size: 5, fill: stroke, filter: (_u, _i, show) => (show ? null : isolatedIndices(s.values)) },
            value: (_u: uPlot, v: number | null) => format(v),
          } satisfies uPlot.Series;
        }),
      ],
      hooks: {
        ready: [
          (u) => {
            const idx = lastIndex(series);
            if (idx !== null) u.setLegend({ idx });
          },
        ],
        setCursor: [
          (u) => {
            // Back to the newest values once the cursor leaves.
            if (u.cursor.idx === null || u.cursor.idx === undefined) {
              const idx = lastIndex(series);
              if (idx !== null) queueMicrotask(() => u.setLegend({ idx }));
            }
          },
        ],
      },
    };
    const data: uPlot.AlignedData = [x, ...series.map((s) => s.values)];
    const chart = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => {
      const width = Math.max(1, Math.floor(el.clientWidth));
      if (width !== chart.width) chart.setSize({ width, height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [kind, range, from, to, x, series, height, theme]);

  return (
    <div
      ref={box}
      data-graph={name}
      data-points={series[0]?.values.filter((v) => v !== null).length ?? 0}
      className="vm-graph min-w-0 text-sm text-slate-700 dark:text-slate-300 [--graph-1:var(--color-brand-600)] [--graph-2:var(--color-amber-600)] [--graph-axis:var(--color-slate-600)] [--graph-grid:var(--color-slate-200)] dark:[--graph-1:var(--color-brand-300)] dark:[--graph-2:var(--color-amber-400)] dark:[--graph-axis:var(--color-slate-300)] dark:[--graph-grid:var(--color-slate-700)]"
    />
  );
}
