import type { Dataset, PlanAware } from '../dataset/Dataset.js';
import type { Executor } from '../dataset/Executor.js';
import { MedFusionError } from '../errors.js';
import type { PersistentStore } from '../persistence/PersistentStore.js';
import {
  type DatasetFingerprint,
  PersistentTierDataset,
  type PersistentTierOptions,
  resolveFingerprint,
  type TieredCachingDataset,
  withDiskTier,
} from '../persistence/PersistentTierDataset.js';
import { func, nonNegativeInt, oneOf, positiveInt } from '../util/validate.js';
import { CachingEngine } from './CachingEngine.js';
import type { CachingEngineOptions, EngineStats } from './engineOptions.js';
import { PrefetchDataset } from './PrefetchDataset.js';

/** The reference's four strategies (the disk tier is chosen by `cacheDir` / `store`). */
export type CacheType = 'lru' | 'prefetch' | 'both' | 'none';

/** Options of {@link createCachedDataset}. */
export interface CreateCachedDatasetOptions<T> extends CachingEngineOptions<T> {
  /**
   * `'lru'`: memory cache, loads on demand. `'prefetch'`: loads ahead, no
   * cache. `'both'`: cache + prefetch (prefetched samples land in the cache).
   * `'none'`: neither (still counts misses and stall time).
   * @default 'lru'
   */
  cacheType?: CacheType;
  /** Samples kept in memory ('lru', 'both'). @default 1000 */
  cacheSize?: number;
  /** Upcoming samples loading or loaded ahead ('prefetch', 'both'). @default 10 */
  prefetchSize?: number;
  /**
   * Most loads at once ('prefetch', 'both'). 'lru' and 'none' load on demand
   * with no limit of their own, like `CachedDataset`. @default 2
   */
  numWorkers?: number;
  /**
   * A disk directory for the persistent tier. Core has no disk: this throws
   * `NO_STORE` here; `@medfusion/web`'s `createCachedDataset` maps it to OPFS.
   */
  cacheDir?: string;
  /**
   * A persistent store for the disk tier: reads go memory → store → source
   * (a `PersistentTierDataset` is built unless `wrapSource` is given) and
   * `getCacheStats()` adds `memoryHits`, `diskHits`, `diskMisses` and `disk`.
   */
  store?: PersistentStore;
  /**
   * Names the data set on disk (key prefix of the disk tier built for
   * `store`); change its version when the data changes.
   * @default derived from the source (its `fingerprint`, or `name` + `version`, else its length)
   * @example { name: 'chest-xray', version: 3 }
   */
  fingerprint?: string | DatasetFingerprint;
  /** Bounds of the disk tier's write-behind queue (see WriteBehindQueueOptions). */
  diskWriteQueue?: PersistentTierOptions<T>['writeQueue'];
  /**
   * The tier hook: wraps the source (the dataset, or the executor when one is
   * given) before the engine reads it, e.g. with a disk tier. Loads then run
   * `wrapSource(source).get` in-thread, at most `numWorkers` at once.
   * @example
   * { store, wrapSource: (src) => new PersistentTierDataset(src, { store }) }
   */
  wrapSource?: (source: Dataset<T>) => Dataset<T>;
}

/** What {@link createCachedDataset} returns: a dataset with cache controls. */
export interface CachingDataset<T> extends Dataset<T>, PlanAware {
  /** Hit rate, size / capacity, prefetch counters, stall time, optimum, bytes. */
  getCacheStats(): EngineStats;
  /** Empty the memory cache and the prefetch buffer (counters are kept). */
  clearCache(): void;
  /** Abort loads in flight and free everything; later gets throw ClosedError. */
  close(): Promise<void>;
}

/** A dataset that loads through an executor (the base a tier wraps when an executor is given). */
function executorSource<T>(length: number, executor: Executor<T>): Dataset<T> {
  return {
    length,
    get: (index: number, opts?: { signal?: AbortSignal }) => {
      const signal = opts?.signal;
      if (signal === undefined) throw new TypeError('executor loads need a signal');
      return executor.run(index, signal);
    },
  };
}

/**
 * Build the cached dataset for a strategy (the reference's
 * `create_cached_dataset`). See docs/prefetch.md for the decision guide.
 *
 * @example
 * // Python: create_cached_dataset(ds, cache_type="both", cache_size=1000, prefetch_size=10)
 * const cached = createCachedDataset(ds, { cacheType: 'both', cacheSize: 1000, prefetchSize: 10 });
 * const loader = new DataLoader(cached, { batchSize: 32, shuffle: true }); // sets the plan
 * for await (const batch of loader) train(batch);
 * console.log(formatCacheReport(cached.getCacheStats()));
 */
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: CreateCachedDatasetOptions<T> & { store: PersistentStore; wrapSource?: undefined },
): TieredCachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options?: CreateCachedDatasetOptions<T>,
): CachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: CreateCachedDatasetOptions<T> = {},
): CachingDataset<T> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const cacheType = oneOf('cacheType', options.cacheType ?? 'lru', [
    'lru',
    'prefetch',
    'both',
    'none',
  ]);
  const cacheSize = nonNegativeInt('cacheSize', options.cacheSize ?? 1000);
  const prefetchSize = nonNegativeInt('prefetchSize', options.prefetchSize ?? 10);
  const numWorkers = positiveInt('numWorkers', options.numWorkers ?? 2);
  if (options.wrapSource !== undefined) func('wrapSource', options.wrapSource);
  if (options.cacheDir !== undefined && options.wrapSource === undefined) {
    throw new MedFusionError(
      'NO_STORE',
      `cacheDir ${JSON.stringify(options.cacheDir)} needs @medfusion/web's createCachedDataset ` +
        '(OPFS / IndexedDB); @medfusion/core has no disk',
    );
  }
  if (options.store !== undefined && options.wrapSource === undefined) {
    // Three tiers: memory (this engine) → disk (PersistentTierDataset) → source.
    const { store, fingerprint, diskWriteQueue, ...rest } = options;
    let tier: PersistentTierDataset<T> | undefined;
    const built = createCachedDataset(dataset, {
      ...rest,
      store,
      wrapSource: (src) => {
        tier = new PersistentTierDataset(src, {
          store,
          ...(fingerprint === undefined
            ? { fingerprint: resolveFingerprint(undefined, dataset) }
            : { fingerprint }),
          ...(diskWriteQueue === undefined ? {} : { writeQueue: diskWriteQueue }),
        });
        return tier;
      },
    });
    return withDiskTier(built, tier!);
  }
  if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
    throw new TypeError(`dataset must be a Dataset (length + get), got ${String(dataset)}`);
  }
  const {
    cacheType: _t,
    cacheDir: _d,
    store: _s,
    fingerprint: _f,
    diskWriteQueue: _q,
    wrapSource,
    executor,
    ...engineOptions
  } = options;
  let source = dataset;
  let sourceExecutor = executor;
  if (wrapSource !== undefined) {
    const base = executor !== undefined ? executorSource(dataset.length, executor) : dataset;
    source = wrapSource(base);
    if (source === null || typeof source !== 'object' || typeof source.get !== 'function') {
      throw new TypeError(`wrapSource must return a Dataset, got ${String(source)}`);
    }
    if (source.length !== dataset.length) {
      throw new RangeError(
        `wrapSource must keep the length ${dataset.length}, got ${String(source.length)}`,
      );
    }
    sourceExecutor = undefined; // the engine runs the wrapped source in-thread
  }
  const common = { ...engineOptions, executor: sourceExecutor };
  switch (cacheType) {
    case 'none':
      return new CachingEngine(source, {
        ...common,
        cacheSize: 0,
        prefetchSize: 0,
        numWorkers: Number.POSITIVE_INFINITY,
      });
    case 'lru':
      return new CachingEngine(source, {
        ...common,
        cacheSize,
        prefetchSize: 0,
        numWorkers: Number.POSITIVE_INFINITY,
      });
    case 'prefetch':
      return new PrefetchDataset(source, { ...common, prefetchSize, numWorkers });
    case 'both':
      return new CachingEngine(source, { ...common, cacheSize, prefetchSize, numWorkers });
  }
}
