import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line of a {@link LiveChart}. */
export interface LineSpec {
  /** Legend label. */
  label: string;
  /** Line colour. */
  stroke: string;
  /** Scale id: series sharing one share a y axis. */
  scale?: string;
  /** How the legend prints a value. */
  format?: (v: number) => string;
}

const HEIGHT = 180;

function widthOf(el: HTMLElement): number {
  return Math.max(240, Math.floor(el.getBoundingClientRect().width || el.clientWidth || 320));
}

/**
 * A uPlot line chart that grows by one point per step. Points are buffered and
 * drawn at most once per animation frame so a fast loop does not redraw per step.
 */
export class LiveChart {
  private readonly plot: uPlot;
  private readonly xs: number[] = [];
  private readonly ys: number[][];
  private pending = false;

  constructor(el: HTMLElement, lines: LineSpec[], scales: Record<string, uPlot.Scale> = {}) {
    this.ys = lines.map(() => []);
    const scaleIds = [...new Set(lines.map((l) => l.scale ?? 'y'))];
    const opts: uPlot.Options = {
      width: widthOf(el),
      height: HEIGHT,
      scales: { x: { time: false }, ...scales },
      series: [
        { label: 'step' },
        ...lines.map((l) => ({
          label: l.label,
          stroke: l.stroke,
          width: 1.5,
          scale: l.scale ?? 'y',
          points: { show: false },
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : (l.format ?? String)(v)),
        })),
      ],
      axes: [
        { label: 'step' },
        ...scaleIds.map((id, k) => ({ scale: id, side: k === 0 ? 3 : 1, grid: { show: k === 0 } })),
      ],
      legend: { live: false },
    };
    this.plot = new uPlot(opts, [this.xs, ...this.ys], el);
    new ResizeObserver(() => this.plot.setSize({ width: widthOf(el), height: HEIGHT })).observe(el);
  }

  /** Add the values of step `x` (one per line, in order). */
  push(x: number, values: number[]): void {
    this.xs.push(x);
    for (let i = 0; i < this.ys.length; i++) (this.ys[i] as number[]).push(values[i] ?? Number.NaN);
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.plot.setData([this.xs, ...this.ys]);
      });
    }
  }

  /** Forget every point. */
  clear(): void {
    this.xs.length = 0;
    for (const y of this.ys) y.length = 0;
    this.plot.setData([this.xs, ...this.ys]);
  }
}

/** A grouped bar chart: one group per category, one bar per series. */
export class BarChart {
  private readonly plot: uPlot;

  constructor(el: HTMLElement, series: { label: string; fill: string }[]) {
    const n = series.length;
    const bars = uPlot.paths.bars;
    const opts: uPlot.Options = {
      width: widthOf(el),
      height: 220,
      scales: {
        x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
        // Log scale: 1.4x and 50x both stay readable; bars grow from 1x (no speed-up).
        y: { distr: 3, log: 10, range: (_u, _min, max) => [0.5, Math.max(4, max * 1.5)] },
      },
      series: [
        { label: 'strategy' },
        ...series.map((s, k) => ({
          label: s.label,
          fill: s.fill,
          stroke: s.fill,
          points: { show: false },
          fillTo: () => 1,
          paths: bars?.({ size: [0.8 / n, 60], align: (k === 0 ? -1 : 1) as -1 | 1 }),
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : `${v.toFixed(2)}x`),
        })),
      ],
      axes: [
        { values: (_u, ticks) => ticks.map((t) => this.names[t] ?? '') },
        { label: 'speed-up (log scale)' },
      ],
      legend: { live: false },
    };
    this.plot = new uPlot(opts, [[], ...series.map(() => [])], el);
    new ResizeObserver(() => this.plot.setSize({ width: widthOf(el), height: 220 })).observe(el);
  }

  private names: string[] = [];

  /** Replace the data: category names and one value array per series (null = no bar). */
  set(names: string[], values: (number | null)[][]): void {
    this.names = names;
    this.plot.setData([names.map((_, i) => i), ...values] as uPlot.AlignedData);
  }
}
