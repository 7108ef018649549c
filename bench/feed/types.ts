// What the driver (bench/feed.ts) and the page (bench/feed/main.ts) exchange.

/** The tiers of `pnpm bench feed`. */
export const TIERS = [
  'memory',
  'opfs',
  'shards-decoded',
  'shards-jpeg',
  'shards-png',
  'dicom',
] as const;
/** One tier. */
export type Tier = (typeof TIERS)[number];

/** Image side and channels of every sample: 224x224x3 uint8. */
export const SIDE = 224;
export const CHANNELS = 3;
export const SAMPLE_BYTES = SIDE * SIDE * CHANNELS;
export const BATCH = 64;
/** Decode workers of the encoded tiers (and of their codec ceiling): the machine's 2 cores. */
export const WORKERS = 2;

/** One byte range of a shard: a sample's `.npy`/`.png`/`.jpg`/`.dcm` member. */
export interface Member {
  /** Path under the page's origin, e.g. `/shards-png/shard-000000.tar`. */
  url: string;
  start: number;
  /** Exclusive. */
  end: number;
}

/** What the driver asks the page to run: one tier, cold then warm, and its ceiling. */
export interface TierConfig {
  tier: Tier;
  samples: number;
  /** For the shard tiers and dicom: `/<dir>/manifest.json`. */
  manifestUrl: string;
  /** For the shard tiers and dicom: the image member of every sample, in dataset order. */
  members: Member[];
  /** Trace the warm epoch (the driver prints each thread's busiest functions). */
  trace: boolean;
  /**
   * The batches' image dtype: 'float32' (collate's toFloat32, ImageNet's mean/std) or 'uint8'
   * (uint8 images left as they are, for a GPU to normalise: the WebGPU recipe's CPU side).
   */
  dtype: 'float32' | 'uint8';
}

/** One measured pass over the data (an epoch of the library, or its ceiling). */
export interface Pass {
  ms: number;
  samples: number;
  /** ms the consumer waited in `next()` (the ceiling: 0). */
  waitMs: number;
  /** Sum of the JS heap's rises between batches, bytes (Chromium counts ArrayBuffer contents in it). */
  heapRiseBytes: number;
  /** CPU of Chromium's threads over the pass, ms (/proc, from the driver). */
  cpu: CpuDelta;
}

/** CPU time (ms) of Chromium's threads since the last mark (bench/pipeline/cpu.ts). */
export interface CpuDelta {
  /** The page's main thread. */
  pageMs: number;
  /** Dedicated Web Workers (decode workers, the OPFS store's worker). */
  workersMs: number;
  /** Every other thread and process (network, IO, GPU, image decoding pools). */
  otherMs: number;
  /** The driver's Node process: the HTTP server of the shard tiers (Vite's static files). */
  serverMs: number;
}

/** A tier's round: the library's cold and warm epochs and the ceiling (best of two passes). */
export interface TierResult {
  tier: Tier;
  cold: Pass;
  warm: Pass;
  ceiling: Pass;
  /** Shard tiers: where the warm epoch's loads spent their time, ms per load. */
  phases?: { sourceMsPerLoad: number; decodeMsPerLoad: number };
}
