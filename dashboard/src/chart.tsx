/**
 * A time-series line chart over uPlot (a canvas, about 20 KB gzipped). The canvas has a text
 * alternative, and every chart on a page sits beside a table with the same numbers.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SeriesData } from './series';

/** Line colours: distinguishable for common colour-vision deficiencies, dark enough on white. */
export const PALETTE = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#4b5563'];

const HEIGHT = 260;
/** The axes' font, set here so the y axis can be sized to its widest label in the same font. */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
/** Tick length plus the gap between tick and label, plus a margin at the canvas's left edge. */
const AXIS_EXTRA = 10 + 5 + 8;
const DAY_SECONDS = 86_400;

let measurer: CanvasRenderingContext2D | null = null;

/**
 * The y axis's width: its widest label plus ticks and margins. A fixed width cut the start of
 * wide labels (the `$` of `$0.000012`) at the canvas's left edge.
 */
function yAxisSize(_u: uPlot, values: string[] | null): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer || !values) return 50;
  measurer.font = AXIS_FONT;
  const widest = values.reduce((w, v) => Math.max(w, measurer?.measureText(v).width ?? 0), 0);
  return Math.ceil(widest) + AXIS_EXTRA;
}

/** The x range: half a bucket beyond the first and last bucket, so no point sits on an edge. */
function xRange(data: SeriesData): [number, number] | undefined {
  const first = data.x[0];
  const last = data.x[data.x.length - 1];
  if (first === undefined || last === undefined) return undefined;
  const half = (data.step ?? DAY_SECONDS) / 2;
  return [first - half, last + half];
}

function colour(i: number): string {
  return PALETTE[i % PALETTE.length] as string;
}

/** Props: the data, a sentence describing it, and how to print the y axis's values. */
export interface ChartProps {
  data: SeriesData;
  label: string;
  format: (value: number) => string;
  /**
   * The y axis's labels from its ticks and their spacing, when one value at a time cannot tell them
   * apart (money: `usdTicks`); default `format` on each tick.
   */
  ticks?: (values: readonly number[], step: number) => string[];
}

/** The y axis's labels, also kept on the plot's element (they are drawn on the canvas), for tests and anyone inspecting the page. */
function yLabels(u: uPlot, labels: string[]): string[] {
  u.root.dataset.yLabels = JSON.stringify(labels);
  return labels;
}

/** The drawn x scale's extent (Unix seconds) on the plot's element, for tests and anyone inspecting the page. */
function showExtent(u: uPlot): void {
  u.root.dataset.xMin = String(u.scales.x?.min);
  u.root.dataset.xMax = String(u.scales.x?.max);
}

/**
 * The chart; redrawn when the data changes and resized with its container. A layout effect, so
 * the old plot is gone in the same frame as the data it drew.
 */
export function Chart({ data, label, format, ticks }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 240),
      height: HEIGHT,
      scales: { x: { time: true, range: xRange(data) } },
      // The legend is rendered below as a list (uPlot's own is a table without a caption).
      legend: { show: false },
      axes: [
        { font: AXIS_FONT },
        {
          font: AXIS_FONT,
          values: (u, values, _axis, _space, step) => yLabels(u, ticks ? ticks(values, step) : values.map(format)),
          size: yAxisSize,
        },
      ],
      hooks: { draw: [showExtent] },
      series: [
        {},
        ...data.series.map((s, i) => ({
          label: s.label,
          stroke: colour(i),
          width: 2,
          points: { show: true, size: 6, fill: colour(i) },
        })),
      ],
    };
    const plot = new uPlot(opts, [data.x, ...data.series.map((s) => s.values)], el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 240), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [data, format, ticks]);
  const points = data.series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={label} data-points={points} />
      <figcaption>
        {label}
        <ul class="legend">
          {data.series.map((s, i) => (
            <li key={s.label}>
              <span class="swatch" style={{ background: colour(i) }} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
