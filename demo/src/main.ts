import { CsvImageDataset, checksum } from '@medfusion/web';
import * as tf from '@tensorflow/tfjs';
import { adviceFor } from './advice.js';
import { renderAugmentGrid } from './augmentation.js';
import { BarChart, LiveChart } from './charts.js';
import { COMPARE_ROWS, runComparison } from './compare.js';
import { openDicomSource } from './dicomSource.js';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from './manifest.js';
import { buildFusionModel, chooseBackend } from './model.js';
import { registerOffline } from './offline.js';
import { clearDisk, LOADER_SEED, Pipeline, type PipelineSource } from './pipeline.js';
import {
  numberSetting,
  readSettings,
  type Settings,
  type Source,
  writeSettings,
} from './settings.js';
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
const compareBtn = $<HTMLButtonElement>('#compare');
const statusEl = $('#status');
const compareStatus = $('#compare-status');
const progress = $<HTMLProgressElement>('#progress');
const epochEl = $('#epoch');
const originEl = $('#origin');
const adviceEl = $('#advice');

let settings: Settings = readSettings(location.search);
const sources: Partial<Record<Source, PipelineSource>> = {};
let running: AbortController | undefined;

const lossChart = new LiveChart(
  $('#chart-loss'),
  [
    { label: 'loss', stroke: '#c0392b', scale: 'loss', format: (v) => v.toFixed(3) },
    {
      label: 'accuracy',
      stroke: '#1f5fbf',
      scale: '%',
      format: (v) => `${(v * 100).toFixed(1)} %`,
    },
  ],
  { '%': { range: [0, 1] } },
);
const speedChart = new LiveChart($('#chart-speed'), [
  { label: 'samples/s', stroke: '#2e8b57', format: (v) => v.toFixed(0) },
]);
const cacheChart = new LiveChart(
  $('#chart-cache'),
  [
    { label: 'memory hit rate', stroke: '#1f5fbf', format: pct },
    { label: 'disk hit rate', stroke: '#8e44ad', format: pct },
    { label: 'data stall', stroke: '#c0392b', format: pct },
  ],
  { y: { range: [0, 1] } },
);
const compareChart = new BarChart($('#chart-compare'), [
  { label: 'ours', fill: '#1f5fbf' },
  { label: 'reference', fill: '#b0b8c8' },
]);

function pct(v: number): string {
  return `${(v * 100).toFixed(1)} %`;
}

function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

function setStatus(text: string, state: 'idle' | 'running' | 'done' | 'error' | 'stopped'): void {
  statusEl.textContent = text;
  statusEl.dataset.state = state;
}

/** Show a statistic: readable text, and the raw number in `data-value` for tools. */
function stat(name: string, text: string, value: number): void {
  const el = document.querySelector<HTMLElement>(`[data-stat="${name}"]`);
  if (!el) return;
  el.textContent = text;
  el.dataset.value = String(value);
}

// ---------------------------------------------------------------- settings

function fillForm(): void {
  for (const el of [...form.elements, ...compareForm.elements]) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) continue;
    const key = el.name as keyof Settings;
    if (key in settings) el.value = String(settings[key]);
  }
}

function readForm(): void {
  const next = { ...settings } as Record<string, unknown>;
  for (const el of [...form.elements, ...compareForm.elements]) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) continue;
    const key = el.name as keyof Settings;
    if (!(key in settings)) continue;
    next[key] =
      typeof settings[key] === 'number'
        ? numberSetting(key, el.value, settings[key] as number)
        : el.value;
  }
  settings = readSettings(writeSettings(next as unknown as Settings));
  history.replaceState(null, '', `${location.pathname}${writeSettings(settings)}`);
  applyLatency();
}

/** The data server reads the added latency from this cookie on every request (workers too). */
function applyLatency(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the data server reads a cookie that workers send too
  document.cookie = `mf-latency=${settings.latency}; path=/; SameSite=Strict`;
}

/** With augmentation on, show sample 0's views across epochs (hidden when off). */
async function showAugmentGrid(): Promise<void> {
  const figure = $('#augment-figure');
  figure.hidden = settings.augment !== 'on';
  if (!figure.hidden)
    await renderAugmentGrid($('#augment-grid'), (await openSource()).dataset, LOADER_SEED);
}

form.addEventListener('change', readForm);
form.addEventListener(
  'change',
  () => void showAugmentGrid().catch((e: unknown) => console.warn(e)),
);
compareForm.addEventListener('change', readForm);

function setRunning(on: boolean): void {
  startBtn.disabled = on;
  compareBtn.disabled = on;
  resetBtn.disabled = on;
  stopBtn.disabled = !on;
  for (const el of form.elements) (el as HTMLInputElement).disabled = on;
}

// ---------------------------------------------------------------- training

async function openSource(): Promise<PipelineSource> {
  const kind = settings.source;
  const opened =
    sources[kind] ??
    (await (kind === 'shards' ? openShards() : kind === 'dicom' ? openDicom() : openCsv()));
  sources[kind] = opened;
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
  showDataset(
    dataset.length,
    `${dataset.tabularColumns.length} tabular features (manifest from ${manifest.from})`,
  );
  return {
    kind: 'csv',
    dataset,
    features: dataset.tabularColumns.length,
    fingerprint: { name: 'medfusion-demo-synthetic', version },
  };
}

async function openShards(): Promise<PipelineSource> {
  const { dataset, columns, version } = await openShardSource(location.origin);
  showDataset(
    dataset.length,
    `${columns.length} tabular features, ${dataset.shardSizes.length} tar shards`,
  );
  return {
    kind: 'shards',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-shards', version },
  };
}

async function openDicom(): Promise<PipelineSource> {
  const { dataset, columns, version } = await openDicomSource(location.origin);
  showDataset(dataset.length, `${columns.length} tabular features, DICOM files`);
  return {
    kind: 'dicom',
    dataset,
    features: columns.length,
    fingerprint: { name: 'medfusion-demo-dicom', version },
  };
}

function showDataset(length: number, detail: string): void {
  const el = $('#dataset');
  el.textContent = `${length.toLocaleString('en')} samples, ${detail}`;
  el.dataset.length = String(length);
}

/** Range requests and bytes of the shards source ("off" for the CSV source). */
function showShards(s: ReturnType<Pipeline['stats']>): void {
  const el = document.querySelector<HTMLElement>('[data-stat="shards"]');
  if (!el) return;
  if (!s.shards) {
    stat('shards', 'off', 0);
    el.dataset.bytes = '0';
    return;
  }
  const { rangeRequests, bytesRead } = s.shards;
  stat(
    'shards',
    `${rangeRequests.toLocaleString('en')} requests, ${mib(bytesRead)}`,
    rangeRequests,
  );
  el.dataset.bytes = String(bytesRead);
}

function showOrigin(s: ReturnType<Pipeline['stats']>): void {
  const memory = Math.max(0, s.delivered - s.networkLoads - s.diskReads);
  originEl.textContent =
    `Samples came from: network ${s.networkLoads.toLocaleString('en')} · disk ${s.diskReads.toLocaleString('en')} · ` +
    `memory ${memory.toLocaleString('en')} (${s.delivered.toLocaleString('en')} delivered to training` +
    `${s.networkErrors ? `, ${s.networkErrors} network failures` : ''})`;
  originEl.dataset.network = String(s.networkLoads);
  originEl.dataset.disk = String(s.diskReads);
  originEl.dataset.memory = String(memory);
  originEl.dataset.delivered = String(s.delivered);
  originEl.dataset.networkErrors = String(s.networkErrors);
}

async function start(): Promise<void> {
  readForm();
  const ac = new AbortController();
  running = ac;
  setRunning(true);
  adviceEl.hidden = true;
  lossChart.clear();
  speedChart.clear();
  cacheChart.clear();
  let pipeline: Pipeline | undefined;
  let model: tf.LayersModel | undefined;
  try {
    setStatus('Opening the data set…', 'running');
    const src = await openSource();
    pipeline = await Pipeline.create(src, settings);
    const p = pipeline;
    model = buildFusionModel({ side: 64, features: src.features });
    const total = p.stepsPerEpoch * settings.epochs;
    const recent: { ms: number; n: number }[] = [];
    const t0 = performance.now();
    const losses: number[] = [];
    let steps = 0;
    setStatus(`Training: ${settings.epochs} epochs of ${p.stepsPerEpoch} steps…`, 'running');
    epochEl.textContent = `1 / ${settings.epochs}`;
    const { trainModel } = await import('./train.js');
    await trainModel({
      model,
      dataset: p.tfDataset,
      epochs: settings.epochs,
      signal: ac.signal,
      onStep: (info) => {
        steps = info.step;
        losses.push(info.loss);
        const s = p.stats();
        recent.push({ ms: info.stepMs, n: settings.batchSize });
        if (recent.length > 10) recent.shift();
        const ms = recent.reduce((a, r) => a + r.ms, 0);
        const throughput = ms > 0 ? (recent.reduce((a, r) => a + r.n, 0) * 1000) / ms : 0;
        const elapsed = performance.now() - t0;
        const stall = elapsed > 0 ? Math.min(1, p.waitMs / elapsed) : 0;
        stat('step', `${info.step} / ${total}`, info.step);
        stat('loss', info.loss.toFixed(4), info.loss);
        stat('acc', pct(info.acc), info.acc);
        stat('throughput', throughput.toFixed(0), throughput);
        stat('memoryHitRate', pct(s.memoryHitRate), s.memoryHitRate);
        stat('diskHitRate', pct(s.diskHitRate), s.diskHitRate);
        stat('stall', pct(stall), stall);
        stat(
          'cache',
          s.cacheCapacity ? `${s.cacheSize} / ${s.cacheCapacity} (${mib(s.cacheBytes)})` : 'off',
          s.cacheSize,
        );
        epochEl.textContent = `${info.epoch} / ${settings.epochs}`;
        progress.value = info.stepInEpoch / p.stepsPerEpoch;
        lossChart.push(info.step, [info.loss, info.acc]);
        speedChart.push(info.step, [throughput]);
        cacheChart.push(info.step, [s.memoryHitRate, s.diskHitRate, stall]);
        showOrigin(s);
        showShards(s);
        if (info.step % 10 === 1) void showDisk(p);
      },
      onEpoch: async (epoch) => {
        const s = p.stats();
        const advice = adviceFor(s, {
          length: p.length,
          batchSize: settings.batchSize,
          strategy: settings.strategy,
        });
        adviceEl.textContent = advice ?? '';
        adviceEl.hidden = !advice;
        await showDisk(p);
        console.info(`[demo] epoch ${epoch}: ${JSON.stringify({ ...s, raw: undefined })}`);
      },
    });
    showOrigin(p.stats());
    showShards(p.stats());
    await showDisk(p);
    // Mean of the first and of the last three steps: one batch's loss is noisy.
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const firstLoss = mean(losses.slice(0, 3));
    const lastLoss = mean(losses.slice(-3));
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    const verb = ac.signal.aborted ? 'Stopped' : 'Done';
    setStatus(
      `${verb}: ${steps} steps in ${secs} s, loss ${firstLoss.toFixed(3)} → ${lastLoss.toFixed(3)}.`,
      ac.signal.aborted ? 'stopped' : 'done',
    );
    statusEl.dataset.firstLoss = String(firstLoss);
    statusEl.dataset.lastLoss = String(lastLoss);
    statusEl.dataset.steps = String(steps);
  } catch (err) {
    setStatus(`Training failed: ${err instanceof Error ? err.message : String(err)}`, 'error');
    console.warn('[demo] training failed', err);
  } finally {
    model?.dispose();
    await pipeline?.close().catch(() => undefined);
    running = undefined;
    setRunning(false);
  }
}

async function showDisk(p: Pipeline): Promise<void> {
  const usage = await p.diskUsage().catch(() => undefined);
  if (usage) stat('disk', `${usage.entries} samples, ${mib(usage.bytes)}`, usage.bytes);
  else stat('disk', 'off', 0);
}

startBtn.addEventListener('click', () => void start());
stopBtn.addEventListener('click', () => running?.abort(new Error('stopped by the user')));
resetBtn.addEventListener('click', async () => {
  resetBtn.disabled = true;
  try {
    await clearDisk();
    stat('disk', 'empty', 0);
    setStatus('Cache reset: memory caches are rebuilt on Start, the disk tier is empty.', 'idle');
  } catch (err) {
    setStatus(`Reset failed: ${err instanceof Error ? err.message : String(err)}`, 'error');
  } finally {
    resetBtn.disabled = false;
  }
});

// ---------------------------------------------------------------- compare

compareBtn.addEventListener('click', async () => {
  readForm();
  const ac = new AbortController();
  running = ac;
  setRunning(true);
  const tbody = $('#compare-table tbody');
  tbody.replaceChildren();
  const names: string[] = [];
  const ours: (number | null)[] = [];
  const reference: (number | null)[] = [];
  compareStatus.textContent = `Running ${COMPARE_ROWS.length} strategies on ${settings.compareSamples} samples…`;
  compareStatus.dataset.state = 'running';
  try {
    await runComparison({
      samples: settings.compareSamples,
      trace: settings.compareTrace,
      latencyMs: settings.latency || 10,
      signal: ac.signal,
      onRow: (r) => {
        const tr = document.createElement('tr');
        const cells = [
          r.row.name,
          `${(r.wallMs / 1000).toFixed(2)} s`,
          `${r.speedup.toFixed(2)}x`,
          pct(r.hitRate),
          String(r.loads),
          r.row.reference === null ? '—' : `${r.row.reference.toFixed(1)}x`,
        ];
        for (const [i, text] of cells.entries()) {
          const td = document.createElement(i === 0 ? 'th' : 'td');
          if (i === 0) td.setAttribute('scope', 'row');
          td.textContent = text;
          tr.append(td);
        }
        tr.dataset.wallMs = String(r.wallMs);
        tr.dataset.speedup = String(r.speedup);
        tr.dataset.hitRate = String(r.hitRate);
        tbody.append(tr);
        names.push(r.row.name);
        ours.push(r.speedup);
        reference.push(r.row.reference);
        compareChart.set(names, [ours, reference]);
      },
    });
    compareStatus.textContent = `Done: ${settings.compareTrace}, ${settings.compareSamples} samples, cache ${Math.round(settings.compareSamples / 10)}, ${settings.latency || 10} ms per load.`;
    compareStatus.dataset.state = 'done';
  } catch (err) {
    compareStatus.textContent = `Comparison failed: ${err instanceof Error ? err.message : String(err)}`;
    compareStatus.dataset.state = 'error';
  } finally {
    running = undefined;
    setRunning(false);
  }
});

// ---------------------------------------------------------------- boot

function showOnline(): void {
  $('#online').textContent = navigator.onLine ? 'online' : 'offline';
}
window.addEventListener('online', showOnline);
window.addEventListener('offline', showOnline);

async function boot(): Promise<void> {
  fillForm();
  applyLatency();
  showOnline();
  setRunning(true);
  setStatus('Starting TensorFlow.js…', 'running');
  try {
    const backend = await chooseBackend(settings.backend);
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
    setRunning(false);
  }
  void tf;
}

void boot();
