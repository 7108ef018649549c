import type { Dataset } from '../dataset/Dataset.js';
import { MedFusionError } from '../errors.js';
import type { PersistentStore } from '../persistence/PersistentStore.js';
import { nonNegativeInt, oneOfValues, positiveInt, showValue } from '../util/validate.js';
import { DEFAULT_CACHE_SIZE } from './CacheStats.js';
import type { CachingDataset } from './CachingDataset.js';
import { CachingEngine } from './CachingEngine.js';
import { PrefetchDataset } from './PrefetchDataset.js';
import { TieredCachedDataset, type TieredCachedDatasetOptions } from './TieredCachedDataset.js';

/** The reference's four strategies (the disk tier is chosen by `store`). */
export type CacheType = 'lru' | 'prefetch' | 'both' | 'none';

/** Options of {@link createCachedDataset}. */
export interface CreateCachedDatasetOptions<T>
  extends Omit<TieredCachedDatasetOptions<T>, 'store'> {
  /**
   * `'lru'`: memory cache, loads on demand. `'prefetch'`: loads ahead, no
   * cache. `'both'`: cache + prefetch (prefetched samples land in the cache).
   * `'none'`: neither (still counts misses and stall time).
   * @default 'lru'
   */
  cacheType?: CacheType;
  /** Samples kept in memory ('lru', 'both'; the others keep none). @default 1000 */
  cacheSize?: number;
  /**
   * Upcoming samples loading or loaded ahead ('prefetch', 'both'). `'auto'`
   * tunes the depth while running (docs/autotune.md); a number means exactly
   * that depth (the reference's `prefetch_size=10`).
   * @default 'auto'
   */
  prefetchSize?: number | 'auto';
  /**
   * Most loads at once ('prefetch', 'both'). `'auto'` tunes it while running
   * from the measured load latency, the consumer's rate and the data stall
   * (docs/autotune.md); a number means exactly that many (the reference's
   * `num_workers=2`). 'lru' and 'none' load on demand with no limit of their
   * own, like `CachedDataset`.
   * @default 'auto'
   */
  numWorkers?: number | 'auto';
  /**
   * A persistent store for the disk tier: reads go memory → store → source,
   * and the result is a {@link TieredCachedDataset} (its `getCacheStats()`
   * adds `memoryHits`, `diskHits`, `diskMisses` and `disk`). The store stays
   * yours: `close()` leaves it open unless `ownsStore` is true. In a browser,
   * `@medfusion/web`'s `createCachedDataset` also takes `cacheDir`.
   * @default undefined (memory only)
   */
  store?: PersistentStore;
}

/** The engine options of a strategy: what it caches, prefetches and runs at once. */
function strategy(
  cacheType: CacheType,
  cacheSize: number,
  prefetchSize: number | 'auto',
  numWorkers: number | 'auto',
): { cacheSize: number; prefetchSize: number | 'auto'; numWorkers: number | 'auto' } {
  const onDemand = Number.POSITIVE_INFINITY;
  switch (cacheType) {
    case 'none':
      return { cacheSize: 0, prefetchSize: 0, numWorkers: onDemand };
    case 'lru':
      return { cacheSize, prefetchSize: 0, numWorkers: onDemand };
    case 'prefetch':
      return { cacheSize: 0, prefetchSize, numWorkers };
    case 'both':
      return { cacheSize, prefetchSize, numWorkers };
  }
}

/**
 * Build the cached dataset for a strategy (the reference's
 * `create_cached_dataset`). Platform-neutral: the disk tier takes any
 * `PersistentStore` as `store`; browser apps import the same function from
 * `@medfusion/web`, which also maps `cacheDir` to OPFS / IndexedDB. See
 * docs/prefetch.md for the decision guide.
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
  options: CreateCachedDatasetOptions<T> & { store: PersistentStore },
): TieredCachedDataset<T>;
/**
 * Without a `store`: memory only, a {@link CachingDataset} for the strategy in
 * `cacheType` (see the overload above for the options and an example).
 */
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options?: CreateCachedDatasetOptions<T>,
): CachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: CreateCachedDatasetOptions<T> = {},
): CachingDataset<T> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${showValue(options)}`);
  }
  const {
    cacheType = 'lru',
    cacheSize = DEFAULT_CACHE_SIZE,
    prefetchSize = 'auto',
    numWorkers = 'auto',
    store,
    ...rest
  } = options;
  const loads = strategy(
    oneOfValues('cacheType', cacheType, ['lru', 'prefetch', 'both', 'none']),
    nonNegativeInt('cacheSize', cacheSize),
    prefetchSize === 'auto' ? prefetchSize : nonNegativeInt('prefetchSize', prefetchSize),
    numWorkers === 'auto' ? numWorkers : positiveInt('numWorkers', numWorkers),
  );
  const cacheDir = (options as { cacheDir?: unknown }).cacheDir;
  if (cacheDir !== undefined) {
    // Not in the type: a plain-JS caller who expected the browser's factory.
    throw new MedFusionError(
      'NO_STORE',
      `cacheDir ${JSON.stringify(cacheDir)} needs @medfusion/web's createCachedDataset ` +
        '(OPFS / IndexedDB); @medfusion/core has no disk',
    );
  }
  if (store !== undefined) return new TieredCachedDataset(dataset, { ...rest, ...loads, store });
  const { ownsStore, fingerprint, diskWriteQueue, ...engineOptions } = rest;
  for (const [name, value] of Object.entries({ ownsStore, fingerprint, diskWriteQueue })) {
    if (value !== undefined) {
      throw new TypeError(`${name} applies only with store, got ${showValue(value)}`);
    }
  }
  if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
    throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
  }
  if (cacheType === 'prefetch') return new PrefetchDataset(dataset, { ...engineOptions, ...loads });
  return new CachingEngine(dataset, { ...engineOptions, ...loads });
}
