// The training worker: TF.js, the model, the data sources and the pipeline that
// feeds them all run here, so no training step ever blocks the page's thread.
// The page drives it through comlink (`Trainer`) and only renders what it
// reports: one event per step, epoch, disk count and piece of advice.
import {
  connectWorkerHost,
  type Diagnosis,
  diagnose,
  resolveFingerprint,
  type WorkerHostClient,
} from '@medfusion/web';
import * as Comlink from 'comlink';
import { adviceFor } from './advice.js';
import { type AugmentViews, augmentViews } from './augmentation.js';
import { diskDir, type ForgetResult, forgetDataSet, setDiskKey } from './diskEncryption.js';
import { buildFusionModel, chooseBackend } from './model.js';
import { clearDisk, LOADER_SEED, Pipeline, type PipelineSource } from './pipeline.js';
import type { Backend, Settings, Source } from './settings.js';
import { openSource, type SourceInfo, sourceInfo } from './sources.js';
import { type DiskUsage, type PipelineStats, phasesSince } from './stats.js';
import { trace } from './trace.js';
import type { StepInfo } from './train.js';

/** One training step as the page shows it. */
export interface StepReport {
  /** The step's numbers from `fitDataset`. */
  info: StepInfo;
  /** Samples per second over the last 10 steps. */
  throughput: number;
  /** Share of this epoch's time spent waiting for data, 0..1. */
  stall: number;
  /** The pipeline's counters now. */
  stats: PipelineStats;
  /** The library's `diagnose` of the data path so far: the limiting stage, its number, one change. */
  diagnosis: Pick<Diagnosis, 'bottleneck' | 'evidence' | 'recommendation' | 'stallShare'>;
  /** The counters when this epoch began (for per-epoch hit rates). */
  epochStart: PipelineStats | undefined;
  /** Batches per epoch. */
  stepsPerEpoch: number;
}

/** What the worker reports while it trains, in order. */
export type TrainEvent =
  | { type: 'phase'; phase: 'model' | 'batch' }
  | { type: 'epoch'; epoch: number }
  | { type: 'step'; step: StepReport }
  | { type: 'disk'; usage: DiskUsage | undefined; length: number }
  | { type: 'advice'; text: string; report: string };

/** How a run ended. */
export interface TrainResult {
  /** Steps run. */
  steps: number;
  /** Mean loss of the first three steps. */
  firstLoss: number;
  /** Mean loss of the last three steps. */
  lastLoss: number;
  /** Milliseconds from the first batch request to the end. */
  elapsedMs: number;
  /** Whether Stop ended it. */
  stopped: boolean;
  /** The pipeline's counters at the end. */
  stats: PipelineStats;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** The worker's API (comlink): open sources, train, stop, empty the disk tier. */
export class Trainer {
  private readonly sources: Partial<Record<Source, Promise<PipelineSource>>> = {};
  private running: AbortController | undefined;
  private host: WorkerHostClient | undefined;

  /**
   * Take the port of the page's worker host: the decode workers and the OPFS store's worker
   * are started by the page, never nested in this worker (trainerLink.ts says why).
   */
  connectHost(port: MessagePort): void {
    this.host?.close();
    this.host = connectWorkerHost(port);
  }

  /** Start TF.js with `backend` (falls back to WebGL, then CPU); returns the backend that runs. */
  init(backend: Backend): Promise<string> {
    return chooseBackend(backend);
  }

  private source(kind: Source, online: boolean): Promise<PipelineSource> {
    let src = this.sources[kind];
    if (!src) {
      src = openSource(kind, self.location.origin, online);
      src.catch(() => delete this.sources[kind]);
      this.sources[kind] = src;
    }
    return src;
  }

  /** Open (once) the source `kind`; `online` is the page's `navigator.onLine`. */
  async open(kind: Source, online: boolean): Promise<SourceInfo> {
    return sourceInfo(await this.source(kind, online));
  }

  /** Drop the opened source `kind` (its data changed: a new folder was packed). */
  forget(kind: Source): void {
    delete this.sources[kind];
  }

  /** Sample 0's augmented views for the grid. */
  async augmentViews(kind: Source, online: boolean): Promise<AugmentViews> {
    return augmentViews((await this.source(kind, online)).dataset, LOADER_SEED);
  }

  /** Stop the current run at the next step boundary. */
  stop(): void {
    this.running?.abort(new Error('stopped by the user'));
  }

  /** Empty the disk tier. */
  clearDisk(): Promise<void> {
    return clearDisk();
  }

  /** Seal the disk tier with `key` from the next run on (undefined: plain); kept in memory only. */
  setDiskKey(key: CryptoKey | undefined): void {
    setDiskKey(key);
  }

  /** The directory of the disk tier in use (the encrypted one while a key is set). */
  diskDir(): string {
    return diskDir();
  }

  /** Delete the data set `kind` from the disk tier in use, for real. */
  async forgetDataSet(kind: Source, online: boolean): Promise<ForgetResult> {
    if (this.running) throw new Error('a run is in progress: stop it first');
    const src = await this.source(kind, online);
    return forgetDataSet(resolveFingerprint(src.fingerprint, src.dataset));
  }

  /** Train with `s`, reporting to `onEvent`; resolves when done or stopped. */
  async train(
    s: Settings,
    online: boolean,
    onEvent: (e: TrainEvent) => void | Promise<void>,
  ): Promise<TrainResult> {
    if (this.running) throw new Error('a run is already in progress');
    const ac = new AbortController();
    this.running = ac;
    let pipeline: Pipeline | undefined;
    let model: ReturnType<typeof buildFusionModel> | undefined;
    try {
      const src = await this.source(s.source, online);
      trace('train: opening the source');
      if (!this.host) throw new Error('the page has not connected its worker host');
      trace('train: building the pipeline');
      pipeline = await Pipeline.create(src, s, this.host);
      const p = pipeline;
      trace('train: building the model');
      onEvent({ type: 'phase', phase: 'model' });
      model = buildFusionModel({ side: 64, features: src.features });
      const { trainModel } = await import('./train.js');
      trace('train: reading the disk tier');
      onEvent({ type: 'phase', phase: 'batch' });
      // Awaited where order matters: events travel on their own port, the result on another.
      const showDisk = async () =>
        await onEvent({
          type: 'disk',
          usage: await p.diskUsage().catch(() => undefined),
          length: p.length,
        });
      await showDisk();
      trace('train: first batch');
      const recent: { ms: number; n: number }[] = [];
      const t0 = performance.now();
      const losses: number[] = [];
      let steps = 0;
      let epochStart: PipelineStats | undefined;
      let epochWait = 0;
      let epochT0 = t0;
      // this epoch's wait for data per step (ms): where in the epoch the stall is
      let stepWaits: number[] = [];
      let lastWait = 0;
      await trainModel({
        model,
        dataset: p.tfDataset,
        epochs: s.epochs,
        signal: ac.signal,
        onEpochBegin: (epoch) => {
          epochStart = p.stats();
          epochWait = p.waitMs;
          epochT0 = performance.now();
          stepWaits = [];
          lastWait = p.waitMs;
          onEvent({ type: 'epoch', epoch });
        },
        onStep: (info) => {
          trace(`train: step ${info.step}`);
          steps = info.step;
          stepWaits.push(Math.round(p.waitMs - lastWait));
          lastWait = p.waitMs;
          losses.push(info.loss);
          recent.push({ ms: info.stepMs, n: s.batchSize });
          if (recent.length > 10) recent.shift();
          const ms = recent.reduce((a, r) => a + r.ms, 0);
          const throughput = ms > 0 ? (recent.reduce((a, r) => a + r.n, 0) * 1000) / ms : 0;
          const elapsed = performance.now() - epochT0;
          const stall = elapsed > 0 ? Math.min(1, (p.waitMs - epochWait) / elapsed) : 0;
          const stepsPerEpoch = p.stepsPerEpoch;
          const stats = p.stats();
          // The step's own stall (what fitDataset waited this epoch), not the engine's:
          // the engine's also counts the DataLoader's read-ahead and the waits while
          // the disk tier flushes between epochs (57 % vs 0.5 % in an e2e run). The load
          // phases are this epoch's too, over the same wall time.
          const loadPhases = phasesSince(stats.engine.loadPhases, epochStart?.engine.loadPhases);
          const { bottleneck, evidence, recommendation, stallShare } = diagnose(
            { ...stats.engine, stallMs: p.waitMs - epochWait, loadPhases },
            { wallMs: elapsed },
          );
          const diagnosis = { bottleneck, evidence, recommendation, stallShare };
          if (info.step % 25 === 1) void showDisk();
          // The page answers once it has drawn the step: training takes the
          // core back only then, so the page's frames are not starved.
          return onEvent({
            type: 'step',
            step: { info, throughput, stall, stats, diagnosis, epochStart, stepsPerEpoch },
          });
        },
        onEpoch: async (epoch) => {
          // the data-stall share of the epoch's training steps (before the flush)
          const epochMs = performance.now() - epochT0;
          const epochStall = (p.waitMs - epochWait) / Math.max(1, epochMs);
          // The whole epoch on disk before the next one reads it.
          trace(`train: epoch ${epoch} flushing to disk`);
          await p.flushDisk();
          await showDisk();
          // A stopped epoch is partial: no advice from it.
          if (ac.signal.aborted || !epochStart) return;
          const now = p.stats();
          const advice = adviceFor(now, epochStart, {
            epoch,
            length: p.length,
            strategy: s.strategy,
          });
          if (advice) onEvent({ type: 'advice', ...advice });
          const { tuning, loadLatency } = now.engine;
          console.info(
            `[demo] epoch ${epoch}: ${JSON.stringify({
              ...now,
              engine: undefined,
              epochStall,
              epochMs,
              firstWaitMs: p.firstWaitMs,
              stepWaits,
              // the knobs in force at the epoch's end and the loads' latency
              loadsInFlight: tuning?.numWorkers,
              prefetchSize: tuning?.prefetchSize,
              loadP50Ms: loadLatency?.p50Ms,
            })}`,
          );
        },
      });
      await showDisk();
      return {
        steps,
        // Mean of the first and of the last three steps: one batch's loss is noisy.
        firstLoss: mean(losses.slice(0, 3)),
        lastLoss: mean(losses.slice(-3)),
        elapsedMs: performance.now() - t0,
        stopped: ac.signal.aborted,
        stats: p.stats(),
      };
    } finally {
      model?.dispose();
      await pipeline?.close().catch(() => undefined);
      this.running = undefined;
    }
  }
}

Comlink.expose(new Trainer());
