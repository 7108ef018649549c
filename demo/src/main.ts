import { CsvImageDataset, checksum } from '@medfusion/web';
import type * as tf from '@tensorflow/tfjs';
import { adviceFor } from './advice.js';
import { renderAugmentGrid } from './augmentation.js';
import { LiveChart } from './charts.js';
import { REFERENCE_TRACE } from './compare.js';
import { ComparePanel } from './comparePanel.js';
import { openDicomSource } from './dicomSource.js';
import { offerDicomWeb, openDicomWebSource } from './dicomWebSource.js';
import { SettingsForm } from './form.js';
import { mib, num, pct, secs } from './format.js';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from './manifest.js';
import { buildFusionModel, chooseBackend } from './model.js';
import { registerOffline } from './offline.js';
import {
  clearDisk,
  LOADER_SEED,
  Pipeline,
  type PipelineSource,
  type PipelineStats,
  tierRates,
} from './pipeline.js';
import { readSettings, type Settings, type Source } from './settings.js';
import { openShardSource } from './shardSource.js';
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
const originEl = $('#origin');
const adviceEl = $('#advice');

const sources: Partial<Record<Source, PipelineSource>> = {};
let training: AbortController | undefined;
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

/** Let the browser paint the status before the next piece of work. */
function paint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** Show a statistic: readable text, and the raw number in `data-value` for tools. */
function stat(name: string, text: string, value: number, title = text): HTMLElement | null {
  const el = document.querySelector<HTMLElement>(`[data-stat="${name}"]`);
  if (!el) return null;
  el.textContent = text;
  el.title = title;
  el.dataset.value = String(value);
  return el;
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
  const busy = training !== undefined || comparing || !ready;
  startBtn.disabled = busy || !settingsForm.valid(form);
  if (compare) compare.startButton.disabled = busy || !settingsForm.valid(compareForm);
  resetBtn.disabled = busy;
  stopBtn.disabled = training === undefined;
  for (const el of [...form.elements, ...compareForm.elements]) {
    (el as HTMLInputElement).disabled = training !== undefined || comparing;
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
    const length = src.dataset.length;
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
  if (!figure.hidden)
    await renderAugmentGrid($('#augment-grid'), (await openSource()).dataset, LOADER_SEED);
}

// ---------------------------------------------------------------- data sources

async function openSource(): Promise<PipelineSource> {
  const kind = settings().source;
  const opened =
    sources[kind] ??
    (await (kind === 'shards'
      ? openShards()
      : kind === 'dicom'
        ? openDicom()
        : kind === 'dicomweb'
          ? openDicomWeb()
          : openCsv()));
  sources[kind] = opened;
  showSettingsInUse();
  return opened;
}

async function openCsv(): Promise<PipelineSource> {
  const manifest = await fetchManifest(location.origin);
  const dataset = await CsvImageDataset.open({
    csvUrl: manifestBlobUrl(manifest.text),
    imageBaseUrl: new URL(IMAGES_PATH, location.origin).href,
    standardizeTabular: true,
  });
  // The disk tier keys samples by this: a regenerated data set never reads stale bytes.
  const version = checksum(new TextEncoder().encode(manifest.text)).toString(16);
  return {
    kind: 'csv',
    dataset,
    features: dataset.tabularColumns.length,
    fingerprint: { name: 'medfusion-demo-synthetic', version },
    detail: `${dataset.tabularColumns.length} tabular features (manifest from ${manifest.from})`,
  };
}

async function openShards(): Promise<PipelineSource> {
  const { dataset, columns, version, from } = await openShardSource(location.origin);
  return {
    kind: 'shards',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-shards', version },
    detail: `${columns.length} tabular features, ${dataset.shardSizes.length} tar shards (manifest from ${from})`,
  };
}

async function openDicom(): Promise<PipelineSource> {
  const { dataset, columns, version } = await openDicomSource(location.origin);
  return {
    kind: 'dicom',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-dicom', version },
    detail: `${columns.length} tabular features, DICOM files`,
  };
}

async function openDicomWeb(): Promise<PipelineSource> {
  const { dataset, columns, version } = await openDicomWebSource(location.origin);
  return {
    kind: 'dicomweb',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-dicomweb', version },
    detail: `${columns.length} tabular features, DICOMweb (Orthanc)`,
  };
}

// ---------------------------------------------------------------- live numbers

/** Range requests and bytes of the shards source ("off" for the CSV source). */
function showShards(s: PipelineStats): void {
  if (!s.shards) {
    const el = stat('shards', 'off', 0);
    if (el) el.dataset.bytes = '0';
    return;
  }
  const { rangeRequests, bytesRead } = s.shards;
  const text = `${num(rangeRequests)} · ${mib(bytesRead)}`;
  const el = stat(
    'shards',
    text,
    rangeRequests,
    `${num(rangeRequests)} range requests, ${mib(bytesRead)}`,
  );
  if (el) el.dataset.bytes = String(bytesRead);
}

function showOrigin(s: PipelineStats): void {
  const memory = Math.max(0, s.delivered - s.networkLoads - s.diskReads);
  originEl.textContent =
    `Samples came from: network ${num(s.networkLoads)} · disk ${num(s.diskReads)} · ` +
    `memory ${num(memory)} (${num(s.delivered)} delivered to training` +
    `${s.networkErrors ? `, ${num(s.networkErrors)} network failures` : ''})`;
  originEl.dataset.network = String(s.networkLoads);
  originEl.dataset.disk = String(s.diskReads);
  originEl.dataset.memory = String(memory);
  originEl.dataset.delivered = String(s.delivered);
  originEl.dataset.networkErrors = String(s.networkErrors);
}

/** Hit rates of this epoch beside the whole run's. */
function showRates(
  s: PipelineStats,
  epochStart: PipelineStats | undefined,
  disk: boolean,
): { memory: number; disk: number } {
  const epoch = tierRates(s, epochStart);
  const all = tierRates(s);
  if (s.cacheCapacity === 0) stat('memoryHitRate', 'no cache', 0);
  else {
    const el = stat('memoryHitRate', `${pct(epoch.memory)} · ${pct(all.memory)}`, all.memory);
    if (el) el.dataset.epoch = String(epoch.memory);
  }
  if (!disk) stat('diskHitRate', 'off', 0);
  else {
    const el = stat('diskHitRate', `${pct(epoch.disk)} · ${pct(all.disk)}`, all.disk);
    if (el) el.dataset.epoch = String(epoch.disk);
  }
  return epoch;
}

async function showDisk(p: Pipeline): Promise<void> {
  const usage = await p.diskUsage().catch(() => undefined);
  if (!usage) {
    stat('disk', 'off', 0);
    return;
  }
  stat(
    'disk',
    `${num(usage.entries)} of ${num(p.length)}`,
    usage.entries,
    `${num(usage.entries)} of this data set's ${num(p.length)} samples on disk; ` +
      `the store holds ${num(usage.storeEntries)} entries, ${mib(usage.storeBytes)}, for every data set`,
  );
}

function showAdvice(text: string | undefined, report = ''): void {
  adviceEl.hidden = text === undefined;
  $('#advice-text').textContent = text ?? '';
  $('#advice-report').textContent = report;
}

// ---------------------------------------------------------------- training

async function start(): Promise<void> {
  const s = settings();
  const ac = new AbortController();
  training = ac;
  lockControls();
  showAdvice(undefined);
  lossChart.clear();
  speedChart.clear();
  cacheChart.clear();
  const cold = runs++ === 0;
  const clicked = performance.now();
  statusEl.dataset.firstStepMs = '';
  statusEl.dataset.run = cold ? 'cold' : 'warm';
  let pipeline: Pipeline | undefined;
  let model: tf.LayersModel | undefined;
  try {
    performance.mark('demo:start');
    setPhase('data');
    setStatus('Preparing: opening the data set and the pipeline…', 'preparing');
    await paint();
    const src = await openSource();
    pipeline = await Pipeline.create(src, s);
    const p = pipeline;
    const disk = s.strategy === 'both-disk';
    await paint();
    setPhase('model');
    setStatus('Preparing: building and compiling the model…', 'preparing');
    await paint();
    performance.mark('demo:model');
    model = buildFusionModel({ side: 64, features: src.features });
    const { trainModel } = await import('./train.js');
    performance.mark('demo:model-built');
    await paint();
    setPhase('batch');
    setStatus(
      `Preparing: loading the first batch of ${num(s.batchSize)} (${cold ? 'first run' : 'warm'})…`,
      'preparing',
    );
    await showDisk(p);
    const total = p.stepsPerEpoch * s.epochs;
    const recent: { ms: number; n: number }[] = [];
    const t0 = performance.now();
    const losses: number[] = [];
    let steps = 0;
    let epochStart: PipelineStats | undefined;
    let epochWait = 0;
    let epochT0 = t0;
    await trainModel({
      model,
      dataset: p.tfDataset,
      epochs: s.epochs,
      signal: ac.signal,
      onEpochBegin: (epoch) => {
        performance.mark(`demo:epoch-${epoch}`);
        epochStart = p.stats();
        epochWait = p.waitMs;
        epochT0 = performance.now();
        epochEl.textContent = `${num(epoch)} of ${num(s.epochs)}`;
      },
      onStep: (info) => {
        if (info.step === 1) {
          performance.mark('demo:first-step');
          const ms = performance.now() - clicked;
          statusEl.dataset.firstStepMs = String(ms);
          setPhase(undefined);
          setStatus(
            `Training: ${num(s.epochs)} × ${num(p.stepsPerEpoch)} steps (first step after ${secs(ms)})…`,
            'running',
          );
        }
        steps = info.step;
        losses.push(info.loss);
        const st = p.stats();
        recent.push({ ms: info.stepMs, n: s.batchSize });
        if (recent.length > 10) recent.shift();
        const ms = recent.reduce((a, r) => a + r.ms, 0);
        const throughput = ms > 0 ? (recent.reduce((a, r) => a + r.n, 0) * 1000) / ms : 0;
        const elapsed = performance.now() - epochT0;
        const stall = elapsed > 0 ? Math.min(1, (p.waitMs - epochWait) / elapsed) : 0;
        stat('step', `${num(info.step)} / ${num(total)}`, info.step);
        stat('loss', num(info.loss, 4), info.loss);
        stat('acc', pct(info.acc), info.acc);
        stat('throughput', num(throughput), throughput);
        stat('stall', pct(stall), stall, `${pct(stall)} of this epoch's time waiting for data`);
        const rates = showRates(st, epochStart, disk);
        stat(
          'cache',
          st.cacheCapacity ? `${num(st.cacheSize)} / ${num(st.cacheCapacity)}` : 'off',
          st.cacheSize,
          st.cacheCapacity
            ? `${num(st.cacheSize)} of ${num(st.cacheCapacity)} samples in memory, ${mib(st.cacheBytes)}`
            : 'no memory cache',
        );
        progress.value = info.stepInEpoch / p.stepsPerEpoch;
        lossChart.push(info.step, [info.loss, info.acc]);
        speedChart.push(info.step, [throughput]);
        cacheChart.push(info.step, [
          st.cacheCapacity ? rates.memory : Number.NaN,
          disk ? rates.disk : Number.NaN,
          stall,
        ]);
        showOrigin(st);
        showShards(st);
        if (info.step % 25 === 1) void showDisk(p);
      },
      onEpoch: async (epoch) => {
        await showDisk(p);
        // A stopped epoch is partial: no advice from it.
        if (ac.signal.aborted || !epochStart) return;
        const now = p.stats();
        const advice = adviceFor(now, epochStart, {
          epoch,
          length: p.length,
          strategy: s.strategy,
        });
        if (advice) showAdvice(advice.text, advice.report);
        console.info(`[demo] epoch ${epoch}: ${JSON.stringify({ ...now, engine: undefined })}`);
      },
    });
    const end = p.stats();
    showOrigin(end);
    showShards(end);
    await showDisk(p);
    // Mean of the first and of the last three steps: one batch's loss is noisy.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const firstLoss = mean(losses.slice(0, 3));
    const lastLoss = mean(losses.slice(-3));
    const verb = ac.signal.aborted ? 'Stopped' : 'Done';
    setPhase(undefined);
    setStatus(
      `${verb}: ${num(steps)} steps in ${secs(performance.now() - t0)}, loss ${num(firstLoss, 3)} → ${num(lastLoss, 3)}.`,
      ac.signal.aborted ? 'stopped' : 'done',
    );
    statusEl.dataset.firstLoss = String(firstLoss);
    statusEl.dataset.lastLoss = String(lastLoss);
    statusEl.dataset.steps = String(steps);
  } catch (err) {
    setPhase(undefined);
    setStatus(`Training failed: ${err instanceof Error ? err.message : String(err)}`, 'error');
    console.warn('[demo] training failed', err);
  } finally {
    model?.dispose();
    await pipeline?.close().catch(() => undefined);
    training = undefined;
    lockControls();
  }
}

startBtn.addEventListener('click', () => void start());
stopBtn.addEventListener('click', () => training?.abort(new Error('stopped by the user')));
resetBtn.addEventListener('click', async () => {
  resetBtn.disabled = true;
  try {
    await clearDisk();
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
    const backend = await chooseBackend(settings().backend);
    $('#backend').textContent = backend;
    $('#backend').dataset.backend = backend;
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

void boot();
