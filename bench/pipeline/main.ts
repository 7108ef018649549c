// The page side of `pnpm bench pipeline`: the demo's own pipeline (demo/src/pipeline.ts: CSV
// manifest + PNGs over HTTP, decoded in the demo's Web Workers, memory cache, prefetch, disk
// tier), the demo's fusion model and training loop (demo/src/model.ts, demo/src/train.ts), two
// epochs per row: the first cold (fresh pipeline, empty disk tier), the second warm. The driver
// (bench/pipeline.ts) serves the data with the demo's latency middleware and reads CPU time.
// The cold-epoch row of `pnpm bench pack` runs the same rows from `medfusion pack --decode`
// shards instead (decodedSource.ts), the cold epoch only.
import {
  CsvImageDataset,
  checksum,
  type LoadPhaseStats,
  type WorkerHostClient,
} from '@medfusion/web';
import * as tf from '@tensorflow/tfjs';
import { fetchManifest, IMAGES_PATH, manifestBlobUrl } from '../../demo/src/manifest.js';
import { buildFusionModel, chooseBackend } from '../../demo/src/model.js';
import { clearDisk, Pipeline, type PipelineSource } from '../../demo/src/pipeline.js';
import { DEFAULTS, type Settings } from '../../demo/src/settings.js';
import { type PipelineStats, phasesSince } from '../../demo/src/stats.js';
import { trainModel } from '../../demo/src/train.js';
import { type DecodedSource, openDecodedSource } from './decodedSource.js';
import type { CpuDelta, EpochResult, RowConfig, RowResult, StepTimeline } from './types.js';

/**
 * The bench runs the demo's pipeline on the page itself, so the page starts its decode
 * workers directly (the demo's training worker asks the page's WorkerHost instead).
 */
const pageHost: WorkerHostClient = {
  spawn: () =>
    new Worker(new URL('../../demo/src/loader.worker.ts', import.meta.url), { type: 'module' }),
  offers: async () => true,
  close: () => {},
};

declare global {
  interface Window {
    /** Exposed by the driver: CPU used by Chromium since the previous call. */
    benchCpu(): Promise<CpuDelta>;
    /** Run one row (two epochs). */
    runRow(cfg: RowConfig): Promise<RowResult>;
    /** Set once the backend is up and the source is open. */
    benchReady: string;
  }
}

const status = document.getElementById('status') as HTMLElement;
let source: PipelineSource | undefined;

/** The CSV source, opened as the demo opens it (manifest once, then kept). */
async function openCsv(): Promise<PipelineSource> {
  if (source) return source;
  const manifest = await fetchManifest(location.origin);
  const dataset = await CsvImageDataset.open({
    csvUrl: manifestBlobUrl(manifest.text),
    imageBaseUrl: new URL(IMAGES_PATH, location.origin).href,
    standardizeTabular: true,
  });
  const version = checksum(new TextEncoder().encode(manifest.text)).toString(16);
  source = {
    kind: 'csv',
    dataset,
    features: dataset.tabularColumns.length,
    fingerprint: { name: 'medfusion-demo-synthetic', version },
    detail: `${dataset.tabularColumns.length} tabular features`,
  };
  return source;
}

function median(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Disk writes dropped so far (the tier's queue was full), 0 without the tier. */
function dropped(stats: PipelineStats): number {
  return 'disk' in stats.engine ? stats.engine.disk.writesDropped : 0;
}

/** Per-epoch accumulators, filled at every step's end. */
class EpochMeter {
  start = performance.now();
  waitAtStart: number;
  deliveredAtStart: number;
  computes: number[] = [];
  inFlightSum = 0;
  peakInFlight = 0;
  steps = 0;
  firstWaitMs = 0;

  /** The load phases at the epoch's start (cumulative, from the engine's stats). */
  phasesAtStart: LoadPhaseStats | undefined;

  diskHitsAtStart: number;
  droppedAtStart: number;

  constructor(p: Pipeline) {
    const stats = p.stats();
    this.diskHitsAtStart = stats.diskReads;
    this.droppedAtStart = dropped(stats);
    this.waitAtStart = p.waitMs;
    this.deliveredAtStart = p.delivered;
    this.phasesAtStart = stats.engine.loadPhases;
  }

  finish(p: Pipeline, cpu: CpuDelta): EpochResult {
    const stats = p.stats();
    const phases = phasesSince(stats.engine.loadPhases, this.phasesAtStart);
    const loads = phases?.loads ?? 0;
    return {
      loadsTimed: loads,
      bytesMsPerLoad: phases ? phases.sourceMs / loads : Number.NaN,
      decodeMsPerLoad: phases ? phases.decodeMs / loads : Number.NaN,
      ms: performance.now() - this.start,
      samples: p.delivered - this.deliveredAtStart,
      waitMs: p.waitMs - this.waitAtStart,
      firstWaitMs: this.firstWaitMs,
      diskHits: stats.diskReads - this.diskHitsAtStart,
      diskWritesDropped: dropped(stats) - this.droppedAtStart,
      computeMs: median(this.computes),
      steps: this.steps,
      inFlight: this.steps > 0 ? this.inFlightSum / this.steps : 0,
      peakInFlight: this.peakInFlight,
      cpu,
    };
  }
}

/**
 * The pre-decoded shards under /data/<dir>/, opened afresh for every row (before the epoch's
 * clock starts, as the CSV manifest is): no read-ahead bytes carry over from the previous row.
 */
async function openDecoded(dir: string, on: 'workers' | 'page'): Promise<DecodedSource> {
  const csv = await openCsv();
  if (csv.kind !== 'csv') throw new Error('the CSV source is not a CSV source');
  return openDecodedSource(csv.dataset, dir, on);
}

async function runRow(cfg: RowConfig): Promise<RowResult> {
  const decoded =
    cfg.source === 'png'
      ? undefined
      : await openDecoded(cfg.decodedDir, cfg.source === 'decoded' ? 'workers' : 'page');
  const src = decoded ? decoded.source : await openCsv();
  if (cfg.strategy === 'both-disk') await clearDisk();
  const settings: Settings = {
    ...DEFAULTS,
    strategy: cfg.strategy,
    samples: cfg.samples,
    epochs: cfg.epochs,
    backend: cfg.backend as Settings['backend'],
    ...(cfg.loadsInFlight > 0 ? { loadsInFlight: cfg.loadsInFlight } : {}),
  };
  const p = await Pipeline.create(src, settings, pageHost);
  const model = buildFusionModel({ side: 64, features: src.features });
  const epochs: EpochResult[] = [];
  let timeline: StepTimeline | undefined;
  try {
    await window.benchCpu(); // reset the CPU marks
    let meter = new EpochMeter(p);
    let lastEnd = meter.start;
    let lastWait = p.waitMs;
    status.textContent = `running ${cfg.strategy}`;
    await trainModel({
      model,
      dataset: p.tfDataset,
      epochs: cfg.epochs,
      signal: new AbortController().signal,
      onStep: (info) => {
        const wait = p.waitMs - lastWait;
        lastWait = p.waitMs;
        meter.computes.push(Math.max(0, info.stepMs - wait));
        if (meter.steps === 0) meter.firstWaitMs = wait;
        const engine = p.stats().engine;
        meter.inFlightSum += engine.inFlight;
        meter.peakInFlight = Math.max(meter.peakInFlight, engine.inFlight);
        meter.steps++;
        if (info.epoch === 1 && info.stepInEpoch === cfg.timelineStep) {
          const askedAt = performance.timeOrigin + lastEnd;
          timeline = {
            step: info.stepInEpoch,
            askedAt,
            gotAt: askedAt + wait,
            firstPosition: (info.stepInEpoch - 1) * settings.batchSize,
            size: settings.batchSize,
            engine,
            epochEndedAt: Number.POSITIVE_INFINITY,
          };
        }
        lastEnd = performance.now();
      },
      onEpoch: async (epoch) => {
        if (epoch === 1 && timeline)
          timeline.epochEndedAt = performance.timeOrigin + performance.now();
        epochs.push(meter.finish(p, await window.benchCpu()));
        meter = new EpochMeter(p);
        lastEnd = meter.start;
      },
    });
  } finally {
    model.dispose();
    await p.close();
    await decoded?.close();
    if (cfg.strategy === 'both-disk') await clearDisk();
  }
  const [cold, warm] = epochs;
  if (!cold || epochs.length !== cfg.epochs)
    throw new Error(`${cfg.strategy}: ran ${epochs.length} epochs, not ${cfg.epochs}`);
  return { strategy: cfg.strategy, cold, warm: warm ?? null, timeline };
}

async function boot(): Promise<void> {
  const backend = await chooseBackend(
    (new URLSearchParams(location.search).get('backend') ?? 'cpu') as Settings['backend'],
  );
  // First calls of every kernel outside the measurement.
  const src = await openCsv();
  const model = buildFusionModel({ side: 64, features: src.features });
  const image = tf.zeros([32, 64 * 64]);
  const tabular = tf.zeros([32, src.features]);
  const label = tf.zeros([32, 1]);
  await model.fit([image, tabular], label, { epochs: 2, batchSize: 32, verbose: 0 });
  tf.dispose([image, tabular, label]);
  model.dispose();
  window.runRow = runRow;
  window.benchReady = backend;
  status.textContent = `ready (${backend})`;
}

boot().catch((error: unknown) => {
  status.textContent = `failed: ${String(error)}`;
  console.error('[bench] boot failed', error);
});
