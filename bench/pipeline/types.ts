// What the driver (bench/pipeline.ts) and the page (bench/pipeline/main.ts) exchange.

/** The rows of `pnpm bench pipeline`: the demo's strategies (`both-disk` = both + the disk tier). */
export const ROWS = ['none', 'lru', 'prefetch', 'both', 'both-disk'] as const;
/** One row. */
export type Row = (typeof ROWS)[number];

/** What the driver asks the page to run. */
export interface RowConfig {
  /** The demo's strategy. */
  strategy: Row;
  /** Samples per epoch (the first N of the demo's manifest; 0 = all). */
  samples: number;
  /** TF.js backend, as the demo's `backend` setting. */
  backend: string;
  /** Step of the cold epoch (from 1) whose timeline is recorded; 0 = none. */
  timelineStep: number;
  /** The engine's loads in flight; 0 = the demo's default (`'auto'`). */
  loadsInFlight: number;
  /**
   * Where the samples come from: `png` = the demo's CSV manifest + one PNG per sample (decoded
   * in the demo's Web Workers); `decoded` = `medfusion pack --decode` shards under
   * `/data/<decodedDir>/` (uint8 `.npy` members, read by range requests on the page's thread,
   * decoded in 2 Web Workers); `decoded-page` = the same, decoded on the page's thread.
   */
  source: 'png' | 'decoded' | 'decoded-page';
  /** With `source: 'decoded'` or `'decoded-page'`: the folder under `/data/` holding the shards' manifest.json. */
  decodedDir: string;
  /** Epochs to run: 2 = cold then warm, 1 = the cold epoch only (`warm` is null). */
  epochs: 1 | 2;
}

/** CPU time (ms) of Chromium's threads since the last mark. */
export interface CpuDelta {
  /** The page's main thread (renderers' main threads): training, the engine, collate. */
  pageMs: number;
  /** Dedicated Web Workers (the demo's decode workers). */
  workersMs: number;
  /** Every other Chromium thread and process (GPU, network, renderer pools). */
  otherMs: number;
}

/** One epoch of one row, as measured in the page. */
export interface EpochResult {
  /** Wall time of the epoch, ms (from the first `next()` to the last step's end). */
  ms: number;
  /** Samples delivered to training. */
  samples: number;
  /** Time training waited in the data iterator's `next()`, ms. */
  waitMs: number;
  /** Of `waitMs`, the first step's wait: the pipeline starting up (workers, first loads). */
  firstWaitMs: number;
  /** Median training-step time without the wait for data, ms. */
  computeMs: number;
  /** Steps run. */
  steps: number;
  /** Mean of the engine's loads in flight, sampled at every step's end. */
  inFlight: number;
  /** Most loads in flight seen at a step's end. */
  peakInFlight: number;
  /** CPU used by the browser during the epoch. */
  cpu: CpuDelta;
  /** Source loads timed this epoch (the decode workers' load phases; 0 when none loaded). */
  loadsTimed: number;
  /** Mean ms a source load waited for its image's bytes this epoch (NaN when none loaded). */
  bytesMsPerLoad: number;
  /** Mean ms a source load spent decoding this epoch (NaN when none loaded). */
  decodeMsPerLoad: number;
  /** Reads the disk tier answered this epoch (0 without it). */
  diskHits: number;
  /** Disk writes dropped this epoch (queue full; 0 without the tier). */
  diskWritesDropped: number;
}

/** The step recorded for the timeline: when training asked for it and when it got it. */
export interface StepTimeline {
  /** Step of the cold epoch (from 1). */
  step: number;
  /** Absolute time (ms since the Unix epoch) training asked for the batch. */
  askedAt: number;
  /** Absolute time the batch was handed over. */
  gotAt: number;
  /** Epoch plan position of the batch's first sample. */
  firstPosition: number;
  /** Samples in the batch. */
  size: number;
  /** The engine's stats at the step's end (prefetch counters, loads in flight). */
  engine: unknown;
  /** Absolute time the cold epoch ended (requests after it belong to the warm epoch). */
  epochEndedAt: number;
}

/** A row's result. */
export interface RowResult {
  strategy: Row;
  cold: EpochResult;
  /** The second epoch; null when the row ran the cold epoch only. */
  warm: EpochResult | null;
  timeline: StepTimeline | undefined;
}
