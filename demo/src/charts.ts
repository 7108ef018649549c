import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { num } from './format.js';

/** One line of a {@link LiveChart}. */
export interface LineSpec {
  /** Legend label. */
  label: string;
  /** Line colour. */
  stroke: string;
  /** Axis the line is drawn against (id of an {@link AxisSpec}); the first axis by default. */
  axis?: string;
  /** How the legend prints a value (the axis's format by default). */
  format?: (v: number) => string;
}

/** One y axis of a {@link LiveChart}. */
export interface AxisSpec {
  /** Scale id the lines refer to. */
  id: string;
  /** Axis title, with its unit. */
  title: string;
  /** How tick values print, e.g. as percentages. */
  format: (v: number) => string;
  /** Fixed range, e.g. [0, 1] for shares. */
  range?: [number, number];
}

const HEIGHT = 200;

function widthOf(el: HTMLElement): number {
  return Math.max(240, Math.floor(el.getBoundingClientRect().width || el.clientWidth || 320));
}

/**
 * Resize `plot` to `el`'s width whenever that changes. The resize runs on the next frame, not in
 * the observer's callback: resizing the plot there changes `el`'s own box within the same frame,
 * which WebKit logs as an error ("ResizeObserver loop completed with undelivered notifications").
 */
function followWidth(el: HTMLElement, plot: () => uPlot, height: number): void {
  let width = 0;
  let frame = 0;
  new ResizeObserver(() => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => {
      const w = widthOf(el);
      if (w === width) return;
      width = w;
      plot().setSize({ width: w, height });
    });
  }).observe(el);
}

/** Charts waiting to redraw: one per animation frame, so no frame draws them all at once. */
const redrawQueue: LiveChart[] = [];

function scheduleRedraw(chart: LiveChart): void {
  redrawQueue.push(chart);
  if (redrawQueue.length === 1) requestAnimationFrame(redrawNext);
}

function redrawNext(): void {
  redrawQueue.shift()?.redraw();
  if (redrawQueue.length > 0) requestAnimationFrame(redrawNext);
}

/**
 * A uPlot line chart that grows by one point per step. Points are buffered and
 * drawn at most once per animation frame, one chart per frame, so a fast loop
 * does not redraw per step and no frame grows long; the legend shows the latest values (or the hovered step's). Until the
 * first point the chart area shows its `data-empty` text instead of axes.
 */
export class LiveChart {
  private readonly plot: uPlot;
  private readonly xs: number[] = [];
  private readonly ys: number[][];
  private pending = false;
  private hovering = false;

  constructor(
    private readonly el: HTMLElement,
    xTitle: string,
    axes: AxisSpec[],
    lines: LineSpec[],
  ) {
    this.ys = lines.map(() => []);
    const byId = new Map(axes.map((a) => [a.id, a]));
    const scales: uPlot.Scales = { x: { time: false } };
    for (const a of axes) scales[a.id] = a.range ? { range: a.range } : {};
    const opts: uPlot.Options = {
      width: widthOf(el),
      height: HEIGHT,
      scales,
      series: [
        { label: 'step', value: (_u, v) => (v == null ? '–' : String(v)) },
        ...lines.map((l) => {
          const axis = byId.get(l.axis ?? (axes[0] as AxisSpec).id) as AxisSpec;
          const format = l.format ?? axis.format;
          return {
            label: l.label,
            stroke: l.stroke,
            width: 1.5,
            scale: axis.id,
            points: { show: false },
            value: (_u: uPlot, v: number | null) => (v == null ? '–' : format(v)),
          };
        }),
      ],
      axes: [
        { label: xTitle, labelSize: 20 },
        ...axes.map((a, k) => ({
          scale: a.id,
          label: a.title,
          labelSize: 20,
          side: k === 0 ? 3 : 1,
          grid: { show: k === 0 },
          size: 52,
          values: (_u: uPlot, ticks: number[]) => ticks.map(a.format),
        })),
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    this.plot = new uPlot(opts, [this.xs, ...this.ys], el);
    el.dataset.state = 'empty';
    // uPlot draws axis titles on the canvas: name them for assistive tech and tools too.
    const titles = [xTitle, ...axes.map((a) => a.title)];
    el.dataset.axes = titles.join(' | ');
    el.setAttribute('role', 'img');
    el.setAttribute(
      'aria-label',
      `Chart of ${lines.map((l) => l.label).join(', ')} by ${titles.join(', ')}`,
    );
    el.addEventListener('pointerenter', () => {
      this.hovering = true;
    });
    el.addEventListener('pointerleave', () => {
      this.hovering = false;
      this.showLatest();
    });
    followWidth(el, () => this.plot, HEIGHT);
  }

  /** Add the values of step `x` (one per line, in order). */
  push(x: number, values: number[]): void {
    this.xs.push(x);
    for (let i = 0; i < this.ys.length; i++) (this.ys[i] as number[]).push(values[i] ?? Number.NaN);
    if (!this.pending) {
      this.pending = true;
      scheduleRedraw(this);
    }
  }

  /** Draw the points pushed since the last frame (called by the redraw queue). */
  redraw(): void {
    this.pending = false;
    this.el.dataset.state = this.xs.length > 0 ? 'live' : 'empty';
    this.plot.setData([this.xs, ...this.ys]);
    this.showLatest();
  }

  /** Forget every point (the placeholder shows again). */
  clear(): void {
    this.xs.length = 0;
    for (const y of this.ys) y.length = 0;
    this.plot.setData([this.xs, ...this.ys]);
    this.el.dataset.state = 'empty';
  }

  /** Legend values of the last step, unless a pointer is reading the chart. */
  private showLatest(): void {
    if (!this.hovering && this.xs.length > 0) this.plot.setLegend({ idx: this.xs.length - 1 });
  }
}

/** One series of a {@link BarChart}. */
export interface BarSpec {
  /** Legend label. */
  label: string;
  /** Bar colour. */
  fill: string;
}

/** A grouped bar chart: one group per category, one bar per series (log scale, bars from 1x). */
export class BarChart {
  private readonly plot: uPlot;
  private names: string[] = [];

  constructor(
    private readonly el: HTMLElement,
    series: BarSpec[],
  ) {
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
        { label: 'strategy', value: (_u, v) => (v == null ? '–' : (this.names[v] ?? '')) },
        ...series.map((s, k) => ({
          label: s.label,
          fill: s.fill,
          stroke: s.fill,
          points: { show: false },
          fillTo: () => 1,
          paths: bars?.({ size: [0.8 / n, 60], align: (k === 0 ? -1 : 1) as -1 | 1 }),
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : `${num(v, 2)}x`),
        })),
      ],
      axes: [
        {
          label: 'strategy',
          labelSize: 20,
          values: (_u, ticks) => ticks.map((t) => this.names[t] ?? ''),
        },
        { label: 'speed-up (×, log)', labelSize: 20, size: 52 },
      ],
      legend: { live: true },
    };
    this.plot = new uPlot(opts, [[], ...series.map(() => [])], el);
    el.dataset.state = 'empty';
    followWidth(el, () => this.plot, 220);
  }

  /** Replace the data: category names and one value array per series (null = no bar). */
  set(names: string[], values: (number | null)[][]): void {
    this.names = names;
    this.el.dataset.state = names.length > 0 ? 'live' : 'empty';
    this.plot.setData([names.map((_, i) => i), ...values] as uPlot.AlignedData);
    if (names.length > 0) this.plot.setLegend({ idx: names.length - 1 });
  }

  /** Show or hide one series (e.g. the reference's bars where its scenario does not apply). */
  show(series: number, on: boolean): void {
    this.plot.setSeries(series + 1, { show: on });
  }
}
