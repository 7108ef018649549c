/**
 * Statistics of a `CachedDataset` (the reference's `get_cache_stats()`), and
 * the part every caching engine's stats share; `clearCache()` resets none of
 * the counters.
 */
export interface CacheStats {
  /** Accesses served from memory. */
  hits: number;
  /** Accesses not served from memory (they started a load or joined one in flight). */
  misses: number;
  /** `hits / (hits + misses)`; 0 before any access. */
  hitRate: number;
  /** Samples held in memory now. */
  size: number;
  /** The `cacheSize` option. */
  capacity: number;
  /** Samples pushed out of memory by `cacheSize` or `maxBytes`. */
  evictions: number;
  /** Bytes held in memory now (see `defaultSizeOf`). */
  bytes: number;
  /** The `maxBytes` option, `undefined` when unset. */
  maxBytes: number | undefined;
  /** Loads started on the wrapped dataset (misses minus those that joined a load in flight). */
  loads: number;
  /** Loads in flight now. */
  inFlight: number;
  /** Loaded samples not kept because they were larger than `maxBytes`. */
  rejected: number;
}

/** The reference's `cache_size=1000`: the one default of every `cacheSize` option. */
export const DEFAULT_CACHE_SIZE = 1000;
