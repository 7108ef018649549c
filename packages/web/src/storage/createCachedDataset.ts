import type {
  CachingDataset,
  Dataset,
  PersistentStore,
  TieredCachedDataset,
} from '@medfusion/core';
// core's factory, called by its namespace: @medfusion/web exports only this file's createCachedDataset
import * as core from '@medfusion/core';
import { bool, object, positiveBytes, showValue, withDefault } from '@medfusion/core/internal';
import {
  checkEncryptionOptions,
  type EncryptionOptions,
  pickEncryptionOptions,
} from './encryption/encryptionOptions.js';
import { checkRetentionOptions } from './retention/retentionOptions.js';
import { storeForCacheDir } from './storeForCacheDir.js';

/**
 * Options of `@medfusion/web`'s {@link createCachedDataset}: every option of
 * `@medfusion/core`'s, plus `cacheDir` (the reference's `cache_dir`) and the
 * budget, persistence, encryption at rest (`encryptionKey`,
 * `previousEncryptionKeys`, `rotation`) and retention (`maxAge`) of the store
 * made for it.
 */
export interface CreateCachedDatasetOptions<T>
  extends core.CreateCachedDatasetOptions<T>,
    EncryptionOptions {
  /**
   * Directory of the disk tier: the store `storeForCacheDir` maps it to (an
   * OPFS directory, or the IndexedDB database `medfusion:<cacheDir>` where
   * OPFS is missing). The library opens that store and `close()` closes it.
   * Give either `cacheDir` or `store`.
   * @example 'medfusion/xray'
   */
  cacheDir?: string;
  /**
   * Byte budget of the store made for `cacheDir`.
   * @default 10737418240 (10 GiB, as `MemoryMappedCache`'s `maxSizeGB: 10`)
   */
  cacheMaxBytes?: number;
  /**
   * Ask `navigator.storage.persist()` for the store made for `cacheDir`.
   * @default false
   */
  persist?: boolean;
  /**
   * Longest time a sample stays in the store made for `cacheDir`, in
   * milliseconds from its write (`OpfsStoreOptions.maxAge`, on the wall
   * clock): older ones are misses, reloaded from the source, and are deleted
   * for real when the store opens and periodically.
   * @default undefined (kept until evicted or forgotten)
   */
  maxAge?: number;
}

/**
 * Build the cached dataset for a strategy (the reference's
 * `create_cached_dataset`) in the browser: `@medfusion/core`'s factory, where
 * `cacheDir` also selects the disk tier (OPFS, IndexedDB where OPFS is
 * missing). Reads go memory → disk → source; the first epoch fills the disk
 * behind the training loop, later epochs and later visits read it, also
 * offline. The store made for `cacheDir` belongs to the returned dataset
 * (`close()` closes it); a `store` you pass stays yours.
 *
 * @example
 * const ds = createCachedDataset(source, {
 *   cacheType: 'both', cacheSize: 1000, prefetchSize: 16,
 *   cacheDir: 'medfusion/xray', fingerprint: { name: 'xray', version: 3 },
 * });
 * // after an epoch: ds.getCacheStats() → { memoryHits, diskHits, diskMisses, … }
 * await ds.close(); // closes the OPFS store too
 */
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: CreateCachedDatasetOptions<T> & ({ cacheDir: string } | { store: PersistentStore }),
): TieredCachedDataset<T>;
/**
 * Without `cacheDir` or `store`: memory only, exactly `@medfusion/core`'s
 * `createCachedDataset` (see the overload above for the options and an example).
 */
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options?: CreateCachedDatasetOptions<T>,
): CachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: CreateCachedDatasetOptions<T> = {},
): CachingDataset<T> {
  object('options', options);
  const {
    cacheDir,
    cacheMaxBytes,
    persist,
    encryptionKey,
    previousEncryptionKeys,
    rotation,
    maxAge,
    ...rest
  } = options;
  const encryption = pickEncryptionOptions({ encryptionKey, previousEncryptionKeys, rotation });
  if (cacheDir === undefined) {
    // each value is checked first: a bad one is refused as bad whether or not it applies
    withDefault('cacheMaxBytes', cacheMaxBytes, undefined, positiveBytes);
    withDefault('persist', persist, undefined, bool);
    checkRetentionOptions({ ...(maxAge === undefined ? {} : { maxAge }) });
    checkEncryptionOptions(encryption);
    for (const [name, value] of Object.entries({ cacheMaxBytes, persist, maxAge })) {
      if (value !== undefined) {
        throw new TypeError(`${name} applies only with cacheDir, got ${showValue(value)}`);
      }
    }
    for (const [name, value] of Object.entries(encryption)) {
      throw new TypeError(
        `${name} applies only with cacheDir (give a store its own encryptionKey instead), got ${showValue(value)}`,
      );
    }
    return core.createCachedDataset(dataset, rest);
  }
  if (rest.store !== undefined) throw new TypeError('give either cacheDir or store, not both');
  if (rest.ownsStore !== undefined) {
    throw new TypeError('ownsStore applies only with store (a cacheDir store is always owned)');
  }
  const store = storeForCacheDir(cacheDir, {
    ...(cacheMaxBytes === undefined
      ? {}
      : { maxBytes: positiveBytes('cacheMaxBytes', cacheMaxBytes) }),
    ...(persist === undefined ? {} : { persist }),
    ...(maxAge === undefined ? {} : { maxAge }),
    ...encryption,
  });
  try {
    return core.createCachedDataset(dataset, { ...rest, store, ownsStore: true });
  } catch (err) {
    void store.close?.();
    throw err;
  }
}
