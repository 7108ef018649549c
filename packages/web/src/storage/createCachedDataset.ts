import {
  type CachingDataset,
  type CreateCachedDatasetOptions,
  createCachedDataset as createCoreCachedDataset,
  type Dataset,
  type PersistentStore,
  type TieredCachingDataset,
} from '@medfusion/core';
import { IdbStore } from './IdbStore.js';
import { OpfsStore } from './opfs/OpfsStore.js';
import { checkMaxBytes, checkStoreKey } from './storeValidate.js';

/** Options of the web {@link createCachedDataset}: core's, plus where `cacheDir` lives. */
export interface WebCachedDatasetOptions<T> extends CreateCachedDatasetOptions<T> {
  /**
   * Directory of the disk tier: an {@link OpfsStore} on this OPFS directory,
   * or an {@link IdbStore} named `medfusion:<cacheDir>` where OPFS is missing.
   * The store is closed with the dataset.
   * @example 'medfusion/xray'
   */
  cacheDir?: string;
  /**
   * Byte budget of the store made for `cacheDir`.
   * @default 1073741824 (1 GiB)
   */
  cacheMaxBytes?: number;
  /**
   * Ask `navigator.storage.persist()` for the store made for `cacheDir`.
   * @default false
   */
  persist?: boolean;
}

/** The store `cacheDir` maps to: OPFS where it exists, else IndexedDB. */
export function storeForCacheDir(
  cacheDir: string,
  options: { maxBytes?: number; persist?: boolean } = {},
): PersistentStore {
  checkStoreKey(cacheDir, 'cacheDir');
  const maxBytes = checkMaxBytes('cacheMaxBytes', options.maxBytes ?? 2 ** 30);
  if (OpfsStore.isSupported()) {
    return new OpfsStore({ dir: cacheDir, maxBytes, persist: options.persist ?? false });
  }
  return new IdbStore({ name: `medfusion:${cacheDir}`, maxBytes });
}

/**
 * `createCachedDataset` for the browser: core's factory, where `cacheDir`
 * selects the disk tier (OPFS, IndexedDB where OPFS is missing). Reads go
 * memory → disk → source; the first epoch fills the disk behind the
 * training loop, later epochs and later visits read it, also offline.
 *
 * @example
 * const ds = createCachedDataset(source, {
 *   cacheType: 'both', cacheSize: 1000, prefetchSize: 16,
 *   cacheDir: 'medfusion/xray', fingerprint: { name: 'xray', version: 3 },
 * });
 * // after an epoch: ds.getCacheStats() → { memoryHits, diskHits, diskMisses, … }
 */
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: WebCachedDatasetOptions<T> & { cacheDir: string },
): TieredCachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: WebCachedDatasetOptions<T> & { store: PersistentStore },
): TieredCachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options?: WebCachedDatasetOptions<T>,
): CachingDataset<T>;
export function createCachedDataset<T>(
  dataset: Dataset<T>,
  options: WebCachedDatasetOptions<T> = {},
): CachingDataset<T> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${String(options)}`);
  }
  const { cacheDir, cacheMaxBytes, persist, ...rest } = options;
  if (cacheDir === undefined) return createCoreCachedDataset(dataset, rest);
  if (rest.store !== undefined) {
    throw new TypeError('give either cacheDir or store, not both');
  }
  const store = storeForCacheDir(cacheDir, {
    ...(cacheMaxBytes === undefined ? {} : { maxBytes: cacheMaxBytes }),
    ...(persist === undefined ? {} : { persist }),
  });
  let ds: CachingDataset<T>;
  try {
    ds = createCoreCachedDataset(dataset, { ...rest, store });
  } catch (err) {
    void store.close?.();
    throw err;
  }
  const close = ds.close.bind(ds);
  ds.close = async () => {
    try {
      await close();
    } finally {
      await store.close?.();
    }
  };
  return ds;
}
