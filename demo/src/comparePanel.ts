// The "Compare strategies" panel: runs the seeded, simulated scenario once per
// strategy with its own Stop, fills the table and the bar chart, and shows the
// reference's figures only where its scenario applies (its trace, its rows).
import { BarChart } from './charts.js';
import { COMPARE_ROWS, type CompareResult, REFERENCE_TRACE, runComparison } from './compare.js';
import { num, pct, secs } from './format.js';
import type { Settings } from './settings.js';

/** The panel's elements and what it asks of the page. */
export interface ComparePanelOptions {
  /** The panel's section. */
  root: HTMLElement;
  /** The settings in use when Compare is pressed. */
  settings: () => Settings;
  /** Called with true when a comparison starts and false when it ends (the page locks training). */
  onBusy: (busy: boolean) => void;
}

function el<E extends HTMLElement>(root: HTMLElement, sel: string): E {
  const found = root.querySelector<E>(sel);
  if (!found) throw new Error(`missing element ${sel}`);
  return found;
}

/** The panel: Compare and Stop comparison buttons, status, table, chart. */
export class ComparePanel {
  /** Start button (the page disables it while training). */
  readonly startButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly tbody: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly chart: BarChart;
  private running: AbortController | undefined;

  constructor(private readonly o: ComparePanelOptions) {
    this.startButton = el(o.root, '#compare');
    this.stopButton = el(o.root, '#compare-stop');
    this.status = el(o.root, '#compare-status');
    this.table = el(o.root, '#compare-table');
    this.tbody = el(o.root, '#compare-table tbody');
    this.chart = new BarChart(el(o.root, '#chart-compare'), [
      { label: 'ours', fill: '#1f5fbf' },
      { label: 'reference', fill: '#b0b8c8' },
    ]);
    this.startButton.addEventListener('click', () => void this.run());
    this.stopButton.addEventListener('click', () =>
      this.running?.abort(new Error('comparison stopped')),
    );
    this.showReference(o.settings().compareTrace === REFERENCE_TRACE);
  }

  /** Show the reference column and bars only for the reference's own trace. */
  showReference(on: boolean): void {
    this.table.classList.toggle('no-ref', !on);
    this.o.root.classList.toggle('no-ref', !on);
    this.chart.show(1, on);
  }

  private row(r: CompareResult, withRef: boolean): HTMLTableRowElement {
    const tr = document.createElement('tr');
    const ref = r.row.reference;
    const cells = [
      r.row.name,
      secs(r.wallMs, 2),
      `${num(r.speedup, 2)}x`,
      pct(r.hitRate),
      num(r.loads),
      withRef && ref !== null ? `${num(ref, 1)}x` : '—',
    ];
    for (const [i, text] of cells.entries()) {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) td.setAttribute('scope', 'row');
      if (i === 5) td.className = 'ref';
      td.textContent = text;
      tr.append(td);
    }
    if (r.row.cacheType === 'prefetch' && !r.row.plan) {
      tr.title = 'Without a plan, prefetch guesses the next index: see the note under the table.';
      tr.classList.add('has-note');
    }
    tr.dataset.wallMs = String(r.wallMs);
    tr.dataset.speedup = String(r.speedup);
    tr.dataset.hitRate = String(r.hitRate);
    return tr;
  }

  private async run(): Promise<void> {
    const s = this.o.settings();
    const withRef = s.compareTrace === REFERENCE_TRACE;
    const latency = s.latency || 10;
    const ac = new AbortController();
    this.running = ac;
    this.o.onBusy(true);
    this.startButton.disabled = true;
    this.stopButton.disabled = false;
    this.showReference(withRef);
    this.tbody.replaceChildren();
    this.chart.set([], [[], []]);
    const names: string[] = [];
    const ours: (number | null)[] = [];
    const reference: (number | null)[] = [];
    this.status.textContent = `Running ${COMPARE_ROWS.length} strategies on ${num(s.compareSamples)} simulated samples, ${num(latency)} ms per load…`;
    this.status.dataset.state = 'running';
    try {
      await runComparison({
        samples: s.compareSamples,
        trace: s.compareTrace,
        latencyMs: latency,
        signal: ac.signal,
        onRow: (r) => {
          this.tbody.append(this.row(r, withRef));
          names.push(r.row.name);
          ours.push(r.speedup);
          reference.push(withRef ? r.row.reference : null);
          this.chart.set(names, [ours, reference]);
        },
      });
      this.status.textContent =
        `Done: ${s.compareTrace === REFERENCE_TRACE ? 'local repeats' : 'shuffled epochs'}, ` +
        `${num(s.compareSamples)} samples, memory cache ${num(Math.max(1, Math.round(s.compareSamples / 10)))}, ` +
        `${num(latency)} ms per simulated load.`;
      this.status.dataset.state = 'done';
    } catch (err) {
      const stopped = ac.signal.aborted;
      this.status.textContent = stopped
        ? `Stopped after ${names.length} of ${COMPARE_ROWS.length} strategies.`
        : `Comparison failed: ${err instanceof Error ? err.message : String(err)}`;
      this.status.dataset.state = stopped ? 'stopped' : 'error';
    } finally {
      this.running = undefined;
      this.stopButton.disabled = true;
      this.startButton.disabled = false;
      this.o.onBusy(false);
    }
  }
}
