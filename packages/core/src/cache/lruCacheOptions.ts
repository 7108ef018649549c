/**
 * Why {@link LRUCacheOptions.onEvict} was called:
 * - `'evict'`: pushed out to respect `capacity` or `maxBytes`, or removed by
 *   {@link LRUCache.evict} / {@link LRUCache.evictOne};
 * - `'set'`: its value was replaced by `set` with a different value for the same key
 *   (also when the new value was rejected as too large: the old one is dropped);
 * - `'delete'`: removed by {@link LRUCache.delete};
 * - `'clear'`: removed by {@link LRUCache.clear};
 * - `'tooLarge'`: the value passed to `set` is larger than `maxBytes` and was never stored.
 */
export type EvictReason = 'evict' | 'set' | 'delete' | 'clear' | 'tooLarge';

/** Options of {@link LRUCache}. */
export interface LRUCacheOptions<K, V> {
  /**
   * Maximum number of entries; a positive integer (at most 2^32 - 2). Storage
   * grows on demand up to it, so a large capacity costs nothing until used.
   */
  capacity: number;
  /**
   * Maximum total size of the values, in bytes (as measured by `sizeOf`); a
   * finite positive number. A value larger than this is not stored.
   * @default undefined (no byte limit)
   */
  maxBytes?: number;
  /**
   * Measures one value in bytes; must return a finite number ≥ 0 and must not
   * modify the cache. Called once per `set`. When neither `sizeOf` nor `maxBytes` is given, sizes are not
   * measured and `stats().bytes` stays 0.
   * @default defaultSizeOf when maxBytes is set (sums the byteLength of typed arrays / ArrayBuffers)
   */
  sizeOf?: (value: V, key: K) => number;
  /**
   * Called after an entry left the cache (the cache is already consistent), and
   * for a value rejected as too large (`'tooLarge'`), so owners can free
   * resources such as GPU buffers. Not called when `set` stores the very same
   * value again. If it throws, the operation still completes and the first
   * error is rethrown at its end. It must not modify the cache.
   * @default undefined
   */
  onEvict?: (key: K, value: V, reason: EvictReason) => void;
}

/** Counters and gauges of an {@link LRUCache}; `clear()` resets none of the counters. */
export interface LRUCacheStats {
  /** `get` calls that found their key. */
  hits: number;
  /** `get` calls that did not find their key (`has` and `peek` are not counted). */
  misses: number;
  /** `set` calls that stored a value. */
  sets: number;
  /** Entries pushed out by capacity or byte pressure, or by `evict` / `evictOne`. */
  evictions: number;
  /** `set` calls whose value was larger than `maxBytes` and was therefore not stored. */
  rejected: number;
  /** Entries held now. */
  size: number;
  /** The `capacity` option. */
  capacity: number;
  /** Total size of the values held now, in bytes (0 when sizes are not measured). */
  bytes: number;
  /** The `maxBytes` option, `undefined` when there is no byte limit. */
  maxBytes: number | undefined;
}
