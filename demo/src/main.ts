import { drawAugmentGrid } from './augmentation.js';
import { LiveChart } from './charts.js';
import { REFERENCE_TRACE } from './compare.js';
import { ComparePanel } from './comparePanel.js';
import { offerDicomWeb } from './dicomWebSource.js';
import { mountE2eReport } from './e2eReport.js';
import { EncryptionPanel } from './encryptionPanel.js';
import { SettingsForm } from './form.js';
import { mib, num, pct, secs } from './format.js';
import { registerOffline } from './offline.js';
import { mountOwnData } from './ownData.js';
import { mountRanksPanel } from './ranksPanel.js';
import { readSettings, type Settings, type Source } from './settings.js';
import type { SourceInfo } from './sources.js';
import { tierRates } from './stats.js';
import { showBottleneck, showDisk, showOrigin, showRates, showShards, stat } from './tiles.js';
import type { StepReport, TrainEvent } from './trainer.worker.js';
import { trainer, trainWatched } from './trainerLink.js';
import './style.css';

const $ = <E extends HTMLElement>(sel: string) => {
  const el = document.querySelector<E>(sel);
  if (!el) throw new Error(`missing element ${sel}`);
  return el;
};

const form = $<HTMLFormElement>('#settings');
const compareForm = $<HTMLFormElement>('#compare-settings');
const startBtn = $<HTMLButtonElement>('#start');
const stopBtn = $<HTMLButtonElement>('#stop');
const resetBtn = $<HTMLButtonElement>('#reset');
const statusEl = $('#status');
const phasesEl = $('#phases');
const progress = $<HTMLProgressElement>('#progress');
const epochEl = $('#epoch');
const adviceEl = $('#advice');

const encryption = new EncryptionPanel({
  root: $('#encryption-panel'),
  trainer,
  source: () => settings().source,
});
const sources: Partial<Record<Source, SourceInfo>> = {};
let training = false;
let comparing = false;
let ready = false;
/** Starts since the page loaded: the first one is cold (nothing compiled or cached in memory). */
let runs = 0;

const percentAxis = (v: number) => `${num(v * 100)} %`;
const lossChart = new LiveChart(
  $('#chart-loss'),
  'training step',
  [
    { id: 'loss', title: 'loss (cross-entropy)', format: (v) => num(v, 2) },
    { id: 'acc', title: 'accuracy (%)', format: percentAxis, range: [0, 1] },
  ],
  [
    { label: 'loss', stroke: '#c0392b', axis: 'loss', format: (v) => num(v, 3) },
    { label: 'accuracy', stroke: '#1f5fbf', axis: 'acc', format: pct },
  ],
);
const speedChart = new LiveChart(
  $('#chart-speed'),
  'training step',
  [{ id: 'sps', title: 'samples per second', format: (v) => num(v) }],
  [{ label: 'samples/s (last 10 steps)', stroke: '#2e8b57' }],
);
const cacheChart = new LiveChart(
  $('#chart-cache'),
  'training step',
  [{ id: 'share', title: 'share (%)', format: percentAxis, range: [0, 1] }],
  [
    { label: 'memory hits', stroke: '#1f5fbf', format: pct },
    { label: 'disk hits', stroke: '#8e44ad', format: pct },
    { label: 'data stall', stroke: '#c0392b', format: pct },
  ],
);

type RunState = 'idle' | 'preparing' | 'running' | 'done' | 'error' | 'stopped';

function setStatus(text: string, state: RunState): void {
  statusEl.textContent = text;
  statusEl.dataset.state = state;
}

/** Mark the preparing phases: those before `phase` done, `phase` active (undefined hides the list). */
function setPhase(phase: 'data' | 'model' | 'batch' | undefined): void {
  phasesEl.hidden = phase === undefined;
  let seen = false;
  for (const li of phasesEl.querySelectorAll<HTMLElement>('li')) {
    const current = li.dataset.phase === phase;
    if (current) seen = true;
    li.dataset.state = current ? 'active' : seen ? 'pending' : 'done';
  }
}

// ---------------------------------------------------------------- settings

// Set right after the settings form (which it reads); the form's callbacks only run later.
let compare: ComparePanel | undefined;

const settingsForm = new SettingsForm({
  forms: [form, compareForm],
  initial: readSettings(location.search),
  onChange: (s) => {
    applyLatency(s);
    showSettingsInUse();
    compare?.showReference(s.compareTrace === REFERENCE_TRACE);
    void showAugmentGrid().catch((e: unknown) => console.warn(e));
  },
  onValidity: () => lockControls(),
});
const settings = (): Settings => settingsForm.settings;

compare = new ComparePanel({
  root: $('section[aria-labelledby="compare-title"]'),
  settings,
  onBusy: (busy) => {
    comparing = busy;
    lockControls();
  },
});

/** Enable what can be used now: nothing while busy, Start only with valid fields. */
function lockControls(): void {
  const busy = training || comparing || !ready;
  startBtn.disabled = busy || !settingsForm.valid(form);
  if (compare) compare.startButton.disabled = busy || !settingsForm.valid(compareForm);
  resetBtn.disabled = busy;
  encryption.setBusy(busy);
  stopBtn.disabled = !training;
  for (const el of [...form.elements, ...compareForm.elements]) {
    (el as HTMLInputElement).disabled = training || comparing;
  }
}

/** The data server reads the added latency from this cookie on every request (workers too). */
function applyLatency(s: Settings): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the data server reads a cookie that workers send too
  document.cookie = `mf-latency=${s.latency}; path=/; SameSite=Strict`;
}

const STRATEGY_NAMES: Record<Settings['strategy'], string> = {
  none: 'no cache',
  lru: 'memory cache',
  prefetch: 'prefetch',
  both: 'memory cache + prefetch',
  'both-disk': 'memory cache + prefetch + disk',
};

/** The header: the data set and the settings Start will use. */
function showSettingsInUse(): void {
  const s = settings();
  const src = sources[s.source];
  const el = $('#dataset');
  if (src) {
    const length = src.length;
    const used = s.samples > 0 ? Math.min(s.samples, length) : length;
    el.textContent = `${used === length ? num(length) : `${num(used)} of ${num(length)}`} samples, ${src.detail}`;
    el.dataset.length = String(length);
    el.dataset.used = String(used);
  }
  const cache =
    s.strategy === 'none' || s.strategy === 'prefetch' ? '' : `, ${num(s.cacheSize)} in memory`;
  $('#in-use').textContent =
    `${STRATEGY_NAMES[s.strategy]}${cache}, batch ${num(s.batchSize)}, ${num(s.epochs)} ${s.epochs === 1 ? 'epoch' : 'epochs'}`;
}

/** With augmentation on, show sample 0's views across epochs (hidden when off). */
async function showAugmentGrid(): Promise<void> {
  const figure = $('#augment-figure');
  figure.hidden = settings().augment !== 'on';
  if (figure.hidden) return;
  await openSource();
  drawAugmentGrid(
    $('#augment-grid'),
    await trainer.augmentViews(settings().source, navigator.onLine),
  );
}

// ---------------------------------------------------------------- data sources

/** Open the chosen source in the worker (once) and show it in the header. */
async function openSource(): Promise<SourceInfo> {
  const kind = settings().source;
  const opened = sources[kind] ?? (await trainer.open(kind, navigator.onLine));
  sources[kind] = opened;
  showSettingsInUse();
  return opened;
}

// A folder the user packed into OPFS becomes the "your own data" source, selected.
mountOwnData({
  root: $('#own-data'),
  onPacked: async () => {
    delete sources.own;
    await trainer.forget('own');
    $<HTMLSelectElement>('#source').value = 'own';
    form.dispatchEvent(new Event('change'));
    await openSource();
  },
});

// ---------------------------------------------------------------- live numbers

function showAdvice(text: string | undefined, report = ''): void {
  adviceEl.hidden = text === undefined;
  $('#advice-text').textContent = text ?? '';
  $('#advice-report').textContent = report;
}

// ---------------------------------------------------------------- training

/** Resolves once the next frame is drawn, or after 100 ms (no frames in a hidden tab). */
function drawn(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

/** The latest step not yet shown in the tiles (they update once per frame). */
let shownNext: { r: StepReport; s: Settings } | undefined;

/** Take one step the worker reported: chart points now, tiles on the next frame. */
function showStep(r: StepReport, s: Settings, clicked: number): void {
  const { info, stats: st, stepsPerEpoch } = r;
  if (info.step === 1) {
    performance.mark('demo:first-step');
    const ms = performance.now() - clicked;
    statusEl.dataset.firstStepMs = String(ms);
    setPhase(undefined);
    setStatus(
      `Training: ${num(s.epochs)} × ${num(stepsPerEpoch)} steps (first step after ${secs(ms)})…`,
      'running',
    );
  }
  const disk = s.strategy === 'both-disk';
  const rates = tierRates(st, r.epochStart);
  lossChart.push(info.step, [info.loss, info.acc]);
  speedChart.push(info.step, [r.throughput]);
  cacheChart.push(info.step, [
    st.cacheCapacity ? rates.memory : Number.NaN,
    disk ? rates.disk : Number.NaN,
    r.stall,
  ]);
  if (shownNext === undefined) requestAnimationFrame(showTiles);
  shownNext = { r, s };
}

function showTiles(): void {
  if (!shownNext) return;
  const { r, s } = shownNext;
  shownNext = undefined;
  const { info, stats: st, stepsPerEpoch } = r;
  stat('step', `${num(info.step)} / ${num(stepsPerEpoch * s.epochs)}`, info.step);
  stat('loss', num(info.loss, 4), info.loss);
  stat('acc', pct(info.acc), info.acc);
  stat('throughput', num(r.throughput), r.throughput);
  stat('stall', pct(r.stall), r.stall, `${pct(r.stall)} of this epoch's time waiting for data`);
  showRates(st, r.epochStart, s.strategy === 'both-disk');
  stat(
    'cache',
    st.cacheCapacity ? `${num(st.cacheSize)} / ${num(st.cacheCapacity)}` : 'off',
    st.cacheSize,
    st.cacheCapacity
      ? `${num(st.cacheSize)} of ${num(st.cacheCapacity)} samples in memory, ${mib(st.cacheBytes)}`
      : 'no memory cache',
  );
  progress.value = info.stepInEpoch / stepsPerEpoch;
  showOrigin(st);
  showShards(st);
  showBottleneck(r.diagnosis, st);
}

async function start(): Promise<void> {
  const s = settings();
  training = true;
  lockControls();
  showAdvice(undefined);
  lossChart.clear();
  speedChart.clear();
  cacheChart.clear();
  const cold = runs++ === 0;
  const clicked = performance.now();
  statusEl.dataset.firstStepMs = '';
  statusEl.dataset.run = cold ? 'cold' : 'warm';
  const onEvent = (e: TrainEvent): Promise<void> | undefined => {
    if (e.type === 'step') {
      showStep(e.step, s, clicked);
      return drawn();
    }
    if (e.type === 'disk') showDisk(e.usage, e.length);
    else if (e.type === 'advice') showAdvice(e.text, e.report);
    else if (e.type === 'epoch') {
      performance.mark(`demo:epoch-${e.epoch}`);
      epochEl.textContent = `${num(e.epoch)} of ${num(s.epochs)}`;
    } else if (e.phase === 'model') {
      setPhase('model');
      setStatus('Preparing: building and compiling the model…', 'preparing');
    } else {
      setPhase('batch');
      setStatus(
        `Preparing: loading the first batch of ${num(s.batchSize)} (${cold ? 'first run' : 'warm'})…`,
        'preparing',
      );
    }
  };
  try {
    performance.mark('demo:start');
    setPhase('data');
    setStatus('Preparing: opening the data set and the pipeline…', 'preparing');
    await openSource();
    const end = await trainWatched(s, navigator.onLine, onEvent);
    showTiles(); // the last step's numbers, before the status says done
    showOrigin(end.stats);
    showShards(end.stats);
    setPhase(undefined);
    setStatus(
      `${end.stopped ? 'Stopped' : 'Done'}: ${num(end.steps)} steps in ${secs(end.elapsedMs)}, loss ${num(end.firstLoss, 3)} → ${num(end.lastLoss, 3)}.`,
      end.stopped ? 'stopped' : 'done',
    );
    statusEl.dataset.firstLoss = String(end.firstLoss);
    statusEl.dataset.lastLoss = String(end.lastLoss);
    statusEl.dataset.steps = String(end.steps);
  } catch (err) {
    setPhase(undefined);
    const code = (err as { code?: unknown } | null)?.code; // e.g. STALLED: see trainerLink.ts
    const why = `${err instanceof Error ? err.message : String(err)}${code ? ` (${code})` : ''}`;
    setStatus(`Training failed: ${why}`, 'error');
    console.warn('[demo] training failed', err);
  } finally {
    training = false;
    lockControls();
  }
}

startBtn.addEventListener('click', () => void start());
mountRanksPanel($('#ranks-panel'));
stopBtn.addEventListener('click', () => void trainer.stop());
resetBtn.addEventListener('click', async () => {
  resetBtn.disabled = true;
  try {
    await trainer.clearDisk();
    stat('disk', 'empty', 0);
    setStatus('Cache reset: memory caches are rebuilt on Start, the disk tier is empty.', 'idle');
  } catch (err) {
    setStatus(`Reset failed: ${err instanceof Error ? err.message : String(err)}`, 'error');
  } finally {
    lockControls();
  }
});

// ---------------------------------------------------------------- boot

function showOnline(): void {
  $('#online').textContent = navigator.onLine ? 'online' : 'offline';
}
window.addEventListener('online', showOnline);
window.addEventListener('offline', showOnline);

async function boot(): Promise<void> {
  applyLatency(settings());
  showOnline();
  showSettingsInUse();
  lockControls();
  setStatus('Starting TensorFlow.js…', 'preparing');
  try {
    await offerDicomWeb($<HTMLOptionElement>('#source option[value="dicomweb"]'), location.origin);
    const backend = await trainer.init(settings().backend);
    $('#backend').textContent = backend;
    $('#backend').dataset.backend = backend;
    $('#backend').title = `TensorFlow.js backend, running in the training worker`;
    await openSource();
    await showAugmentGrid();
    await registerOffline();
    setStatus(
      navigator.onLine
        ? 'Ready. Press Start to train.'
        : 'Ready, offline: with "both + disk", samples stored on an earlier visit train from disk.',
      'idle',
    );
    statusEl.dataset.ready = 'true';
  } catch (err) {
    setStatus(`Could not start: ${err instanceof Error ? err.message : String(err)}`, 'error');
  } finally {
    ready = true;
    lockControls();
  }
}

mountE2eReport(); // test-only (tests/e2e/demo-webkit.test.ts): inert without ?e2e-report=
void boot();
