import type {
  CachingDataset,
  Dataset,
  PersistentStore,
  TieredCachedDataset,
} from '@medfusion/core';
import * as core from '@medfusion/core';
import {
  nonEmptyString,
  object,
  positiveFinite,
  showValue,
  withDefault,
} from '@medfusion/core/internal';
import { LmdbStore } from './LmdbStore.js';
import type { LmdbStoreOptions } from './lmdbStoreOptions.js';

/**
 * Options of `@medfusion/node`'s {@link createCachedDataset}: every option of
 * `@medfusion/core`'s, plus `cacheDir` (the seed's `cache_dir`), its budget `maxSizeGB` (the
 * seed's `max_size_gb`), encryption at rest and retention of the {@link LmdbStore} made for it.
 */
export interface CreateCachedDatasetOptions<T>
  extends core.CreateCachedDatasetOptions<T>,
    Pick<LmdbStoreOptions, 'encryptionKey' | 'previousEncryptionKeys' | 'rotation' | 'maxAge'> {
  /**
   * Directory of the disk tier: an {@link LmdbStore} there, which the library opens and
   * `close()` closes. Give either `cacheDir` or `store`.
   * @example './cache/xray'
   */
  cacheDir?: string;
  /**
   * Byte budget of the store made for `cacheDir`, in GiB (2^30 bytes); least recently used
   * samples go first over it.
   * @default 10
   */
  maxSizeGB?: number;
}

const STORE_OPTIONS = [
  'maxSizeGB',
  'encryptionKey',
  'previousEncryptionKeys',
  'rotation',
  'maxAge',
] as const;

/**
 * Build the cached dataset for a strategy (the seed's `create_cached_dataset`) in Node:
 * `@medfusion/core`'s factory, where `cacheDir` also selects the disk tier, an
 * {@link LmdbStore} in that directory (`maxSizeGB`, default 10). Reads go memory → disk →
 * source; the first epoch fills the disk behind the training loop, later epochs and later
 * runs (other processes) read it. The store made for `cacheDir` belongs to the returned
 * dataset (`close()` closes it); a `store` you pass stays yours.
 *
 * @example
 * const ds = createCachedDataset(source, {
 *   cacheType: 'both', cacheSize: 1000, prefetchSize: 10,
 *   cacheDir: './cache', maxSizeGB: 10, fingerprint: { name: 'xray', version: 3 },
 * });
 * await ds.close(); // closes the LMDB store too
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
  const { cacheDir, maxSizeGB, encryptionKey, previousEncryptionKeys, rotation, maxAge, ...rest } =
    options;
  const gb = withDefault('maxSizeGB', maxSizeGB, 10, positiveFinite);
  if (cacheDir === undefined) {
    for (const name of STORE_OPTIONS) {
      if (options[name] !== undefined) {
        throw new TypeError(`${name} applies only with cacheDir, got ${showValue(options[name])}`);
      }
    }
    return core.createCachedDataset(dataset, rest);
  }
  if (rest.store !== undefined) throw new TypeError('give either cacheDir or store, not both');
  if (rest.ownsStore !== undefined) {
    throw new TypeError('ownsStore applies only with store (a cacheDir store is always owned)');
  }
  const store = new LmdbStore({
    dir: nonEmptyString('cacheDir', cacheDir),
    maxBytes: Math.floor(gb * 2 ** 30),
    ...(encryptionKey === undefined ? {} : { encryptionKey }),
    ...(previousEncryptionKeys === undefined ? {} : { previousEncryptionKeys }),
    ...(rotation === undefined ? {} : { rotation }),
    ...(maxAge === undefined ? {} : { maxAge }),
  });
  return core.createCachedDataset(dataset, { ...rest, store, ownsStore: true });
}
