import { defaultSizeOf } from '../cache/sizeOf.js';
import type { Dataset, GetOptions, PlanAware } from '../dataset/Dataset.js';
import { isPlanAware } from '../dataset/Dataset.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import {
  bool,
  positiveFinite,
  positiveInt,
  rejectUnknownOptions,
  showValue,
} from '../util/validate.js';
import { type CacheStats, DEFAULT_CACHE_SIZE } from './CacheStats.js';
import { CachingEngine } from './CachingEngine.js';
import type { CachingEngineOptions } from './engineOptions.js';
import { HELD_LOADS, LOAD_POLICY, type LoadPolicy } from './loadPolicy.js';

export type { CacheStats } from './CacheStats.js';

/** Options of {@link CachedDataset} (the `cache_*` arguments of MedFusion's `CachedDataset`). */
export interface CachedDatasetOptions {
  /**
   * Maximum number of samples kept in memory; a positive integer.
   * @default 1000
   */
  cacheSize?: number;
  /**
   * Maximum bytes kept in memory, measured with `defaultSizeOf` (the
   * byteLength of the typed arrays / ArrayBuffers in a sample); a finite
   * positive number. A sample larger than this is served but not kept.
   * @default undefined (only `cacheSize` limits the cache)
   */
  maxBytes?: number;
  /**
   * Keep samples whose `image` part is present. With `false`, a sample shaped
   * `{ image, tabular, label }` that has an image is never held in memory:
   * each access loads it again and counts a miss (memory traded for loads).
   * @default true
   */
  cacheImages?: boolean;
  /**
   * Keep samples whose `tabular` part is present; like `cacheImages` for the
   * `tabular` part.
   * @default true
   */
  cacheTabular?: boolean;
}

const KNOWN_OPTIONS: readonly string[] = ['cacheSize', 'maxBytes', 'cacheImages', 'cacheTabular'];

/** Whether a sample may be held: false when it carries a part the options keep out of memory. */
function admitsParts<T>(
  keepImages: boolean,
  keepTabular: boolean,
): ((sample: T) => boolean) | undefined {
  if (keepImages && keepTabular) return undefined;
  return (sample) => {
    if (sample === null || typeof sample !== 'object') return true;
    const parts = sample as { image?: unknown; tabular?: unknown };
    if (!keepImages && parts.image !== undefined && parts.image !== null) return false;
    if (!keepTabular && parts.tabular !== undefined && parts.tabular !== null) return false;
    return true;
  };
}

/**
 * A {@link Dataset} that keeps recently used samples in memory (least
 * recently used evicted first): MedFusion's `CachedDataset`.
 *
 * - Hits are returned synchronously; misses return the wrapped dataset's result.
 * - Concurrent `get(i)` calls for one index share one load (single-flight). A
 *   failed load is not cached and its error reaches every waiting caller.
 * - `get(i, { signal })`: aborting rejects that caller at once with the
 *   signal's reason; the shared load itself is aborted (through the signal
 *   handed to the wrapped dataset) only when every caller waiting for it has
 *   aborted. A load started without a signal is never aborted.
 * - `setPlan(order)` is forwarded when the wrapped dataset is {@link PlanAware}.
 *
 * A configuration of the caching engine ({@link CachingEngine}: its LRU
 * eviction, no prefetch, no limit on loads at once, no timeout) with the
 * reference's semantics: the wrapped dataset's own answers and errors, and the
 * loads of callers who all left are aborted.
 *
 * @example
 * // Python: CachedDataset(dataset, cache_size=1000); dataset.get_cache_stats()
 * const cached = new CachedDataset(dataset, { cacheSize: 1000 });
 * const sample = await cached.get(42);
 * const { hitRate, size, capacity } = cached.getCacheStats();
 */
export class CachedDataset<T> implements Dataset<T>, PlanAware {
  /** Number of samples (that of the wrapped dataset). */
  readonly length: number;
  private readonly inner: Dataset<T>;
  private readonly engine: CachingEngine<T>;

  constructor(dataset: Dataset<T>, options: CachedDatasetOptions = {}) {
    if (
      dataset === null ||
      typeof dataset !== 'object' ||
      typeof dataset.get !== 'function' ||
      typeof dataset.length !== 'number'
    ) {
      throw new TypeError(
        `dataset must be a Dataset (an object with length and get), got ${showValue(dataset)}`,
      );
    }
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'CachedDataset');
    const {
      cacheSize = DEFAULT_CACHE_SIZE,
      maxBytes,
      cacheImages = true,
      cacheTabular = true,
    } = options;
    positiveInt('cacheSize', cacheSize);
    if (maxBytes !== undefined) positiveFinite('maxBytes', maxBytes);
    const policy: LoadPolicy<T> = {
      ...HELD_LOADS,
      admits: admitsParts<T>(bool('cacheImages', cacheImages), bool('cacheTabular', cacheTabular)),
    };
    const engineOptions: CachingEngineOptions<T> & { [LOAD_POLICY]: LoadPolicy<T> } = {
      cacheSize,
      ...(maxBytes === undefined ? {} : { maxBytes }),
      evictionPolicy: 'lru',
      prefetchSize: 0,
      numWorkers: Number.POSITIVE_INFINITY,
      sizeOf: defaultSizeOf,
      [LOAD_POLICY]: policy,
    };
    this.inner = dataset;
    this.engine = new CachingEngine(dataset, engineOptions);
    this.length = this.engine.length;
  }

  /**
   * Sample `index`: from memory when held (synchronously), else loaded from
   * the wrapped dataset (sharing a load already in flight). Throws RangeError
   * for an index that is not an integer in [0, length).
   */
  get(index: number, opts?: GetOptions): T | Promise<T> {
    return this.engine.get(index, opts);
  }

  /**
   * Forward the epoch's access order to the wrapped dataset when it is
   * {@link PlanAware}. The cache itself evicts by recency and prefetches
   * nothing, so it has no use for the plan (`createCachedDataset` builds the
   * plan-aware configurations).
   */
  setPlan(order: PlanInput): void {
    if (isPlanAware(this.inner)) this.inner.setPlan(order);
  }

  /** A snapshot of the cache statistics. */
  getCacheStats(): CacheStats {
    const s = this.engine.getCacheStats();
    return {
      hits: s.hits,
      misses: s.misses,
      hitRate: s.hitRate,
      size: s.size,
      capacity: s.capacity,
      evictions: s.evictions,
      bytes: s.bytes,
      maxBytes: s.maxBytes,
      loads: s.loads,
      inFlight: s.inFlight,
      rejected: s.rejected,
    };
  }

  /** Drop every sample held in memory. Counters and loads in flight are left alone. */
  clearCache(): void {
    this.engine.clearCache();
  }
}
