/**
 * A time-series line chart over uPlot (a canvas, about 20 KB gzipped). The canvas has a text
 * alternative, and every chart on a page sits beside a table with the same numbers.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { SeriesData } from './series';

/** Line colours: distinguishable for common colour-vision deficiencies, dark enough on white. */
export const PALETTE = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#b91c1c', '#0e7490', '#a16207', '#4b5563'];

const HEIGHT = 260;

function colour(i: number): string {
  return PALETTE[i % PALETTE.length] as string;
}

/** Props: the data, a sentence describing it, and how to print a value on the y axis. */
export interface ChartProps {
  data: SeriesData;
  label: string;
  format: (value: number) => string;
}

/** The chart; redrawn when the data changes and resized with its container. */
export function Chart({ data, label, format }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 240),
      height: HEIGHT,
      scales: { x: { time: true } },
      // The legend is rendered below as a list (uPlot's own is a table without a caption).
      legend: { show: false },
      axes: [{}, { values: (_u, ticks) => ticks.map(format), size: 70 }],
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
  }, [data, format]);
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
