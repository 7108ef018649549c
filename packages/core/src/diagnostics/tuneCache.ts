import { beladyHitRate } from '../cache/belady.js';
import { LRUCache } from '../cache/LRUCache.js';
import { defaultSizeOf } from '../cache/sizeOf.js';
import type { Dataset } from '../dataset/Dataset.js';
import { createCachedDataset } from '../engine/createCachedDataset.js';
import { isEpochPlan, type PlanInput } from '../plan/EpochPlan.js';
import { IndexPermutation } from '../plan/IndexPermutation.js';
import { throwIfAborted } from '../util/abort.js';
import { type Clock, systemClock } from '../util/Clock.js';
import {
  abortSignal,
  arrayOf,
  badType,
  clock as checkClock,
  nonNegativeFinite,
  positiveFinite,
  positiveInt,
  rejectUnknownOptions,
  showValue,
  withDefault,
} from '../util/validate.js';
import { recommendCacheSize } from './cacheReport.js';

/** The cache sizes the reference's tuning loop tries, one epoch each. */
export const REFERENCE_CACHE_SIZES: readonly number[] = [100, 500, 1000, 2000];

/** Reads simulated at most (a longer plan is simulated on its first reads). */
const MAX_SIMULATED_READS = 2_000_000;

/** Options of {@link tuneCache}. */
export interface TuneCacheOptions {
  /** Samples per batch (the reference's sizing rule uses it). @example 32 */
  batchSize: number;
  /**
   * Time for short timed runs of the candidates simulation cannot decide, in
   * ms; 0 decides on simulation alone (no loads at all).
   * @default 0
   */
  budgetMs?: number;
  /** Byte budget of the cache: candidates that cannot fit are left out. @default Infinity */
  maxBytes?: number;
  /**
   * The reads to tune for: the next epochs' order. @default two shuffled epochs
   * (`IndexPermutation(length, 0, 0)` then epoch 1), the DataLoader's kind of plan
   */
  plan?: PlanInput;
  /** Bytes of one sample, for `maxBytes`. @default measured on sample 0 (one load) when `maxBytes` is set */
  sampleBytes?: number;
  /** Extra cache sizes to consider. @default [] */
  candidates?: readonly number[];
  /** Time source of the timed runs. @default systemClock */
  clock?: Clock;
  /** Stops the timed runs. */
  signal?: AbortSignal;
}

/** One candidate of {@link tuneCache}'s table. */
export interface TuneCacheRow {
  /** The cache size tried. */
  cacheSize: number;
  /** Where the candidate comes from. */
  origin: 'reference-rule' | 'reference-sweep' | 'dataset' | 'candidate';
  /** Predicted hit rate of an LRU cache of this size on the plan (exact simulation). */
  lruHitRate: number;
  /** Predicted hit rate with plan-aware eviction (Belady; what the engine does with a plan). */
  predictedHitRate: number;
  /** Samples per second of the short timed run; undefined when simulation decided. */
  samplesPerSec: number | undefined;
}

/** Result of {@link tuneCache}. */
export interface TuneCacheResult {
  /** Every candidate, smallest first. */
  rows: TuneCacheRow[];
  /** The reference's sizing rule for this data set (`recommendCacheSize`). */
  referenceCacheSize: number;
  /** What to pass to `createCachedDataset`. */
  chosen: {
    cacheType: 'both';
    cacheSize: number;
    prefetchSize: 'auto';
    numWorkers: 'auto';
  };
}

const KNOWN = [
  'batchSize',
  'budgetMs',
  'maxBytes',
  'plan',
  'sampleBytes',
  'candidates',
  'clock',
  'signal',
];

/** The plan's reads as an array (at most MAX_SIMULATED_READS). */
function planReads(plan: PlanInput | undefined, length: number): ArrayLike<number> {
  if (plan === undefined) {
    const n = Math.min(length, MAX_SIMULATED_READS / 2);
    const out = new Float64Array(2 * n);
    for (let e = 0; e < 2; e++) {
      const perm = new IndexPermutation(length, 0, e);
      for (let p = 0; p < n; p++) out[e * n + p] = perm.indexAt(p);
    }
    return out;
  }
  if (!isEpochPlan(plan)) {
    return plan.length > MAX_SIMULATED_READS
      ? Array.prototype.slice.call(plan, 0, MAX_SIMULATED_READS)
      : plan;
  }
  const n = Math.min(plan.length, MAX_SIMULATED_READS);
  const out = new Float64Array(n);
  for (let p = 0; p < n; p++) out[p] = plan.indexAt(p);
  return out;
}

function lruHitRate(reads: ArrayLike<number>, capacity: number): number {
  if (capacity === 0 || reads.length === 0) return 0;
  const cache = new LRUCache<number, true>({ capacity });
  let hits = 0;
  for (let p = 0; p < reads.length; p++) {
    const k = reads[p]!;
    if (cache.get(k) !== undefined) hits++;
    else cache.set(k, true);
  }
  return hits / reads.length;
}

/** Samples per second of a cache of `cacheSize` reading `reads` for at most `sliceMs`. */
async function timedRun<T>(
  dataset: Dataset<T>,
  reads: ArrayLike<number>,
  cacheSize: number,
  sliceMs: number,
  maxBytes: number | undefined,
  clock: Clock,
  signal: AbortSignal | undefined,
): Promise<number> {
  const ds = createCachedDataset(dataset, {
    cacheType: 'both',
    cacheSize,
    clock,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  try {
    ds.setPlan(reads);
    const t0 = clock.now();
    let n = 0;
    let elapsed = 0;
    while (n < reads.length) {
      throwIfAborted(signal);
      await ds.get(reads[n]!, signal === undefined ? undefined : { signal });
      n++;
      elapsed = clock.now() - t0;
      if (elapsed >= sliceMs) break;
    }
    return elapsed > 0 ? (n * 1000) / elapsed : Number.POSITIVE_INFINITY;
  } finally {
    await ds.close();
  }
}

/**
 * The reference's tuning guide as a function. It applies the reference's
 * sizing rule (`recommendCacheSize`), adds the sizes the reference sweeps
 * (100, 500, 1000, 2000) and the whole data set, replays the plan of the
 * next epochs against each size in simulation — LRU and plan-aware (Belady),
 * exact and cheap: no loads — and, when `budgetMs` allows, measures the
 * candidates simulation cannot tell apart (within 2 points of the best
 * predicted hit rate) with short timed runs of `createCachedDataset`. The
 * choice is the smallest size within a point of the best prediction, or the
 * fastest measured one; prefetch depth and loads in flight are left `'auto'`.
 *
 * @example
 * // The reference: for size in [100, 500, 1000, 2000]: time one epoch, keep the fastest.
 * const { rows, chosen } = await tuneCache(source, { batchSize: 32, budgetMs: 2000 });
 * console.table(rows);
 * const cached = createCachedDataset(source, chosen);
 */
export async function tuneCache<T>(
  dataset: Dataset<T>,
  options: TuneCacheOptions,
): Promise<TuneCacheResult> {
  if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
    throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${showValue(options)}`);
  }
  rejectUnknownOptions(options, KNOWN, 'tuneCache');
  const length = dataset.length;
  const batchSize = positiveInt('batchSize', options.batchSize);
  const budgetMs = withDefault('budgetMs', options.budgetMs, 0, nonNegativeFinite);
  const maxBytes = withDefault('maxBytes', options.maxBytes, undefined, positiveFinite);
  const sampleBytes = withDefault('sampleBytes', options.sampleBytes, undefined, nonNegativeFinite);
  const candidates = withDefault('candidates', options.candidates, [], (name, v) =>
    arrayOf(name, v, positiveInt, 'an array of cache sizes'),
  );
  const clock = withDefault('clock', options.clock, systemClock, checkClock);
  const signal = withDefault('signal', options.signal, undefined, abortSignal);
  if (options.plan !== undefined && (options.plan === null || typeof options.plan !== 'object')) {
    throw badType('plan', 'an order (an array of indices) or an EpochPlan', options.plan);
  }
  throwIfAborted(signal);

  const referenceCacheSize = recommendCacheSize(length, batchSize);
  const origins = new Map<number, TuneCacheRow['origin']>();
  for (const c of candidates) origins.set(c, 'candidate');
  for (const c of REFERENCE_CACHE_SIZES) if (c < length) origins.set(c, 'reference-sweep');
  origins.set(length, 'dataset');
  if (referenceCacheSize > 0) origins.set(referenceCacheSize, 'reference-rule');

  let fit = Number.POSITIVE_INFINITY;
  if (maxBytes !== undefined) {
    let bytes = sampleBytes;
    if (bytes === undefined && length > 0) {
      bytes = defaultSizeOf(await dataset.get(0, signal === undefined ? {} : { signal }));
    }
    if (bytes !== undefined && bytes > 0) fit = Math.floor(maxBytes / bytes);
  }

  const reads = planReads(options.plan, length);
  const rows: TuneCacheRow[] = [...origins.keys()]
    .filter((size) => size > 0 && size <= Math.max(1, fit) && size <= Math.max(1, length))
    .sort((a, b) => a - b)
    .map((cacheSize) => ({
      cacheSize,
      origin: origins.get(cacheSize)!,
      lruHitRate: lruHitRate(reads, cacheSize),
      predictedHitRate: beladyHitRate(reads, cacheSize, { keySpace: Math.max(1, length) }).hitRate,
      samplesPerSec: undefined,
    }));
  if (rows.length === 0) {
    const size = Math.max(1, Math.min(length, fit));
    rows.push({
      cacheSize: size,
      origin: 'dataset',
      lruHitRate: lruHitRate(reads, size),
      predictedHitRate: beladyHitRate(reads, size, { keySpace: Math.max(1, length) }).hitRate,
      samplesPerSec: undefined,
    });
  }

  const best = Math.max(...rows.map((r) => r.predictedHitRate));
  // simulation decides: the smallest size within a point of the best prediction
  let chosen = rows.find((r) => r.predictedHitRate >= best - 0.01)!;
  const undecided = rows.filter((r) => r.predictedHitRate >= best - 0.02);
  if (budgetMs > 0 && undecided.length > 1) {
    const slice = budgetMs / undecided.length;
    for (const row of undecided) {
      row.samplesPerSec = await timedRun(
        dataset,
        reads,
        row.cacheSize,
        slice,
        maxBytes,
        clock,
        signal,
      );
    }
    const fastest = Math.max(...undecided.map((r) => r.samplesPerSec!));
    // within 5 % of the fastest, the smallest wins (memory is not free)
    chosen = undecided.find((r) => r.samplesPerSec! >= fastest * 0.95)!;
  }
  return {
    rows,
    referenceCacheSize,
    chosen: {
      cacheType: 'both',
      cacheSize: chosen.cacheSize,
      prefetchSize: 'auto',
      numWorkers: 'auto',
    },
  };
}
