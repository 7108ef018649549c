import { defaultSizeOf } from '../cache/sizeOf.js';
import type { Dataset } from '../dataset/Dataset.js';
import type { Executor } from '../dataset/Executor.js';
import type { LoadPhaseStats } from '../dataset/LoadPhases.js';
import type { Clock } from '../util/Clock.js';
import { systemClock } from '../util/Clock.js';
import {
  clock as checkClock,
  fn,
  nonNegativeInt,
  oneOfValues,
  positiveFinite,
  positiveInt,
  rejectUnknownOptions,
  showValue,
  withDefault,
} from '../util/validate.js';
import {
  AUTO_INITIAL_NUM_WORKERS,
  AUTO_INITIAL_PREFETCH_SIZE,
  AUTO_MAX_PREFETCH_SIZE,
  type TuningStats,
} from './autotune/AutoTuner.js';
import type { LoadLatencyStats } from './autotune/LatencyWindow.js';
import { type CacheStats, DEFAULT_CACHE_SIZE } from './CacheStats.js';

/** How the memory cache picks what to evict. */
export type EvictionPolicy = 'auto' | 'lru' | 'belady';

/** Options of {@link CachingEngine} (and, through it, of the factory's strategies). */
export interface CachingEngineOptions<T> {
  /**
   * Most samples kept in memory after use (the reference's `cache_size`);
   * 0 keeps none (pure prefetch). @default 1000
   */
  cacheSize?: number;
  /**
   * Upcoming samples kept loading or loaded ahead of need; 0 disables
   * prefetch. `'auto'` tunes it while running (twice the loads in flight, or
   * over a disk tier the source loads' latency ahead, within `maxBytes`; see
   * docs/autotune.md). @default 10
   */
  prefetchSize?: number | 'auto';
  /**
   * Most loads running at once (prefetch and on-demand together). `Infinity`
   * means no limit. `'auto'` tunes it while running from the measured load
   * latency, the consumer's rate and the data stall (see docs/autotune.md).
   * @default 2
   */
  numWorkers?: number | 'auto';
  /**
   * Eviction order: `'lru'`, `'belady'` (farthest next use in the plan), or
   * `'auto'` (Belady when a plan is known, LRU otherwise). `'belady'` also
   * falls back to LRU while no plan is known. The policy in force right now
   * is `getCacheStats().evictionPolicy`. @default 'auto'
   */
  evictionPolicy?: EvictionPolicy;
  /**
   * One byte budget for the cache and the prefetch buffer together; prefetch
   * stops and the cache evicts to stay within it. @default Infinity
   */
  maxBytes?: number;
  /** Bytes of one sample. @default defaultSizeOf (byteLength of its typed arrays) */
  sizeOf?: (value: T) => number;
  /**
   * Where loads run. @default new InThreadExecutor(dataset). An executor
   * passed in belongs to the caller: `close()` does not close it.
   */
  executor?: Executor<T>;
  /** Bound of every load and every wait, in ms; exceeded → LoadTimeoutError. @default 30000 */
  loadTimeoutMs?: number;
  /** Time source for timeouts and `stallMs` (inject a ManualClock in tests). @default systemClock */
  clock?: Clock;
  /**
   * Plan window: how many positions of the plan the engine looks ahead
   * through (prefetch candidates, next uses for eviction). Memory is
   * O(planWindow), whatever the data set's size. Belady eviction is exact
   * within the window; a plan that reads each index once (the DataLoader's
   * shuffled or sequential order) also gives exact next uses beyond it. With
   * a window of 4 × cacheSize, eviction on the seed traces is within a point
   * of the whole-plan optimum.
   * @default max(1024, 4 × cacheSize, 2 × prefetchSize)
   */
  planWindow?: number;
}

/** The eviction order in force: least recently used, or farthest next use in the plan. */
export type ActiveEvictionPolicy = 'lru' | 'belady';

/** Prefetch counters of {@link EngineStats}. */
export interface PrefetchStats {
  /** Prefetch loads started (a retry counts again). */
  issued: number;
  /** Prefetched samples a caller took (ready, or still loading when asked). */
  used: number;
  /** Prefetched samples dropped unused (plan changed, no room, failed). */
  wasted: number;
  /** Prefetch loads running now. */
  inFlight: number;
  /** Prefetched samples held, loaded and not yet taken. */
  buffered: number;
}

/**
 * Statistics of the caching engine ({@link CacheStats} plus prefetch, stall
 * and optimum). A read served by a prefetched sample counts as a miss (it was
 * loaded for that read) and as `prefetch.used`, so `hitRate` is comparable to
 * `optimalHitRate`. `bytes` counts the cache and the prefetch buffer.
 */
export interface EngineStats extends CacheStats {
  /** Prefetch counters. */
  prefetch: PrefetchStats;
  /**
   * Time during which at least one caller waited for a load, in ms (injected
   * clock); concurrent waits overlap rather than add up. With one reader this
   * is its stall; a DataLoader's read-ahead waits count too.
   */
  stallMs: number;
  /**
   * Hit rate of the reads made since the current plan was set (compare it
   * with `optimalHitRate` once the plan has been read); undefined without a plan.
   */
  planHitRate: number | undefined;
  /** Reads made since the current plan was set (0 without a plan). */
  planReads: number;
  /** Length of the current plan (0 without a plan). */
  planLength: number;
  /**
   * Belady's hit rate for the current plan at this cache size (starting from
   * what was cached when the plan was set); undefined without a plan.
   */
  optimalHitRate: number | undefined;
  /** Most bytes held at once (cache + prefetch buffer). */
  peakBytes: number;
  /**
   * How the memory cache evicts right now: `'belady'` while a plan is set and
   * the `evictionPolicy` option allows it (`'auto'`, `'belady'`), else `'lru'`.
   */
  evictionPolicy: ActiveEvictionPolicy;
  /**
   * Loads in flight and prefetch depth in force (tuned when `'auto'`), and the
   * tuner's estimates. Always set by the engine (optional for stats built by hand).
   */
  tuning?: TuningStats;
  /** Latency percentiles of the recent successful loads (injected clock); undefined before one. */
  loadLatency?: LoadLatencyStats | undefined;
  /**
   * Where the source's loads spent their time (waiting for bytes vs decoding), when
   * the executor or the dataset reports it (`ReportsLoadPhases`: `CsvImageDataset`
   * does, a worker pool sums its workers'); undefined otherwise.
   */
  loadPhases?: LoadPhaseStats | undefined;
  /**
   * Clock time from the first read to the latest, in ms: `stallMs / readSpanMs`
   * is the data-stall share. Always set by the engine.
   */
  readSpanMs?: number;
}

/** {@link CachingEngineOptions} checked, with defaults filled in. */
export interface ResolvedEngineOptions<T> {
  length: number;
  cacheSize: number;
  prefetchSize: number;
  numWorkers: number;
  /** `prefetchSize` was `'auto'` (then `prefetchSize` is where the tuner starts). */
  autoPrefetchSize: boolean;
  /** `numWorkers` was `'auto'` (then `numWorkers` is where the tuner starts). */
  autoNumWorkers: boolean;
  evictionPolicy: EvictionPolicy;
  maxBytes: number;
  sizeOf: (value: T) => number;
  executor: Executor<T> | undefined;
  loadTimeoutMs: number;
  clock: Clock;
  planWindow: number;
}

/** The option names of {@link CachingEngineOptions}. */
export const ENGINE_OPTIONS: readonly string[] = [
  'cacheSize',
  'prefetchSize',
  'numWorkers',
  'evictionPolicy',
  'maxBytes',
  'sizeOf',
  'executor',
  'loadTimeoutMs',
  'clock',
  'planWindow',
];

/** Check the engine's arguments (naming the option and the bad value) and fill defaults. */
export function resolveEngineOptions<T>(
  dataset: Dataset<T>,
  options: CachingEngineOptions<T>,
): ResolvedEngineOptions<T> {
  if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
    throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${showValue(options)}`);
  }
  rejectUnknownOptions(options, ENGINE_OPTIONS, 'CachingEngine');
  const autoNumWorkers = options.numWorkers === 'auto';
  const autoPrefetchSize = options.prefetchSize === 'auto';
  const workers: unknown = autoNumWorkers
    ? AUTO_INITIAL_NUM_WORKERS
    : withDefault('numWorkers', options.numWorkers, 2, (_, v) => v);
  const sizeOf = withDefault('sizeOf', options.sizeOf, defaultSizeOf, fn<(value: T) => number>);
  const executor = options.executor;
  if (executor !== undefined && (executor === null || typeof executor.run !== 'function')) {
    throw new TypeError(
      `executor must have a run(index, signal) method, got ${showValue(executor)}`,
    );
  }
  const cacheSize = withDefault('cacheSize', options.cacheSize, DEFAULT_CACHE_SIZE, nonNegativeInt);
  const prefetchSize = autoPrefetchSize
    ? AUTO_INITIAL_PREFETCH_SIZE
    : withDefault('prefetchSize', options.prefetchSize, 10, nonNegativeInt);
  const deepest = autoPrefetchSize ? AUTO_MAX_PREFETCH_SIZE : prefetchSize;
  return {
    length: nonNegativeInt('dataset.length', dataset.length),
    cacheSize,
    prefetchSize,
    numWorkers:
      workers === Number.POSITIVE_INFINITY
        ? Number.POSITIVE_INFINITY
        : positiveInt('numWorkers', workers),
    autoPrefetchSize,
    autoNumWorkers,
    evictionPolicy: withDefault('evictionPolicy', options.evictionPolicy, 'auto', (name, v) =>
      oneOfValues(name, v, ['auto', 'lru', 'belady'] as const),
    ),
    maxBytes: withDefault('maxBytes', options.maxBytes, Number.POSITIVE_INFINITY, positiveFinite),
    sizeOf,
    executor,
    loadTimeoutMs: withDefault('loadTimeoutMs', options.loadTimeoutMs, 30_000, positiveFinite),
    clock: withDefault('clock', options.clock, systemClock, checkClock),
    planWindow: withDefault(
      'planWindow',
      options.planWindow,
      Math.max(1024, 4 * cacheSize, 2 * deepest),
      positiveInt,
    ),
  };
}
