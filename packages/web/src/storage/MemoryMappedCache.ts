import { decodeSample, encodeSample, type PersistentStore, type TypedArray } from '@medfusion/core';
import {
  badType,
  checkStoreKey,
  optionsBag,
  positiveFinite,
  withDefault,
} from '@medfusion/core/internal';
import { OpfsStore } from './opfs/OpfsStore.js';
import { DEFAULT_CACHE_DIR_MAX_BYTES, storeForCacheDir } from './storeForCacheDir.js';

/** A typed array `MemoryMappedCache` stores (any kind but DataView, 64-bit integers included). */
export type CachedTypedArray = TypedArray | BigInt64Array | BigUint64Array;

/** Options of {@link MemoryMappedCache}, named after the reference's `cache_dir` / `max_size_gb`. */
export interface MemoryMappedCacheOptions {
  /**
   * Directory (OPFS) or database-name suffix (IndexedDB) of the cache; the
   * same `cacheDir` as `createCachedDataset`'s maps to the same store (see
   * `storeForCacheDir`).
   * @default 'cache'
   */
  cacheDir?: string;
  /**
   * Size budget in gigabytes (2^30 bytes); least recently used data goes first.
   * @default 10
   */
  maxSizeGB?: number;
  /**
   * Storage: `'auto'` is OPFS where it exists, else IndexedDB.
   * @default 'auto'
   */
  backend?: 'auto' | 'opfs' | 'idb';
}

/** What {@link MemoryMappedCache.stats} reports. */
export interface MemoryMappedCacheStats {
  /** Entries stored. */
  entries: number;
  /** Bytes stored. */
  bytes: number;
  /** Byte budget (maxSizeGB × 2^30). */
  maxBytes: number;
  /** `get`s that found the key since this object was made. */
  hits: number;
  /** `get`s that did not. */
  misses: number;
  /** `put`s since this object was made. */
  puts: number;
  /** `'opfs'` or `'idb'`. */
  backend: 'opfs' | 'idb';
}

/**
 * The reference's `MemoryMappedCache` for the browser: a disk cache of typed
 * arrays that survives reloads and holds little in memory. Backed by
 * {@link OpfsStore} (IndexedDB through {@link IdbStore} where OPFS is
 * missing: the store `storeForCacheDir` maps `cacheDir` to, so the
 * factory's disk tier and this cache on one `cacheDir` share one store);
 * `get` returns the same typed-array type with the same values.
 *
 * @example
 * const cache = new MemoryMappedCache({ cacheDir: 'cache', maxSizeGB: 10 });
 * await cache.put('scan-17', new Float32Array([0.1, 0.2]));
 * const back = await cache.get('scan-17'); // Float32Array [0.1, 0.2]
 */
export class MemoryMappedCache {
  /** The directory (or database suffix). */
  readonly cacheDir: string;
  /** Byte budget. */
  readonly maxBytes: number;
  /** The storage in use. */
  readonly backend: 'opfs' | 'idb';
  private readonly store: PersistentStore;
  private counters = { hits: 0, misses: 0, puts: 0 };

  constructor(options: MemoryMappedCacheOptions = {}) {
    optionsBag('options', options);
    const cacheDir = withDefault('cacheDir', options.cacheDir, 'cache', (name, v) =>
      checkStoreKey(v, name),
    );
    const gb = withDefault(
      'maxSizeGB',
      options.maxSizeGB,
      DEFAULT_CACHE_DIR_MAX_BYTES / 2 ** 30,
      positiveFinite,
    );
    this.cacheDir = cacheDir;
    this.maxBytes = Math.max(1, Math.floor(gb * 2 ** 30));
    this.store = storeForCacheDir(cacheDir, {
      maxBytes: this.maxBytes,
      ...(options.backend === undefined ? {} : { backend: options.backend }),
    });
    this.backend = this.store instanceof OpfsStore ? 'opfs' : 'idb';
  }

  /** Store `value` (any typed array) under `key`. */
  async put(key: string, value: CachedTypedArray): Promise<void> {
    checkStoreKey(key);
    if (!ArrayBuffer.isView(value) || value instanceof DataView) {
      throw badType('value', 'a typed array', value);
    }
    this.counters.puts++;
    await this.store.put(key, encodeSample(value));
  }

  /** The typed array stored under `key` (same type, same values), or undefined. */
  async get(key: string): Promise<CachedTypedArray | undefined> {
    checkStoreKey(key);
    const bytes = await this.store.get(key);
    if (bytes !== undefined) {
      try {
        const v = decodeSample(bytes);
        if (ArrayBuffer.isView(v)) {
          this.counters.hits++;
          return v as CachedTypedArray;
        }
      } catch {
        // not ours or damaged: a miss
      }
      await this.store.delete(key).catch(() => {});
    }
    this.counters.misses++;
    return undefined;
  }

  /** Whether `key` is cached. */
  has(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.store.has(key);
  }

  /** Remove `key`; true when it was cached. */
  delete(key: string): Promise<boolean> {
    checkStoreKey(key);
    return this.store.delete(key);
  }

  /** Remove everything. */
  clear(): Promise<void> {
    return this.store.clear();
  }

  /** Entries, bytes, hits, misses, puts and the backend. */
  async stats(): Promise<MemoryMappedCacheStats> {
    const u = await this.store.usage();
    return {
      entries: u.entries,
      bytes: u.bytes,
      maxBytes: this.maxBytes,
      ...this.counters,
      backend: this.backend,
    };
  }

  /** Release the store (its index is persisted first). */
  async close(): Promise<void> {
    await this.store.close?.();
  }
}
