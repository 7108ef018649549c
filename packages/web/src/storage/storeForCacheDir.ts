import type { PersistentStore } from '@medfusion/core';
import {
  bool,
  checkStoreKey,
  object,
  oneOfValues,
  positiveBytes,
  withDefault,
} from '@medfusion/core/internal';
import {
  checkEncryptionOptions,
  type EncryptionOptions,
  pickEncryptionOptions,
} from './encryption/encryptionOptions.js';
import { IdbStore } from './IdbStore.js';
import { OpfsStore } from './opfs/OpfsStore.js';
import { checkRetentionOptions, type RetentionOptions } from './retention/retentionOptions.js';

/** The byte budget of a `cacheDir` store when none is given: the reference's `max_size_gb=10`. */
export const DEFAULT_CACHE_DIR_MAX_BYTES = 10 * 2 ** 30;

/** Options of {@link storeForCacheDir}. */
export interface CacheDirStoreOptions extends EncryptionOptions, RetentionOptions {
  /**
   * Byte budget of the store; least recently used data goes first over it.
   * The browser's quota for the origin may be smaller: then writes fail with
   * `QUOTA_EXCEEDED` (the disk tier stops writing and says so in its stats).
   * @default 10737418240 (10 GiB, the reference's `max_size_gb=10`)
   */
  maxBytes?: number;
  /**
   * Ask `navigator.storage.persist()` (OPFS only).
   * @default false
   */
  persist?: boolean;
  /**
   * Storage: `'auto'` is OPFS where it exists, else IndexedDB.
   * @default 'auto'
   */
  backend?: 'auto' | 'opfs' | 'idb';
  /**
   * Seal values with xxHash64 in WebAssembly where the page allows it, else
   * with xxHash32 (see `OpfsStoreOptions.webAssembly`).
   * @default true
   */
  webAssembly?: boolean;
}

/**
 * The one mapping from a `cacheDir` to a store, used by `createCachedDataset`
 * and `MemoryMappedCache` alike: an {@link OpfsStore} on the OPFS directory
 * `cacheDir`, or, where OPFS is missing, an {@link IdbStore} on the IndexedDB
 * database `medfusion:<cacheDir>`. The caller owns the store it gets (close it).
 *
 * @example
 * const store = storeForCacheDir('medfusion/xray'); // OpfsStore, 10 GiB budget
 */
export function storeForCacheDir(
  cacheDir: string,
  options: CacheDirStoreOptions = {},
): PersistentStore {
  checkStoreKey(cacheDir, 'cacheDir');
  object('options', options);
  const maxBytes = withDefault(
    'maxBytes',
    options.maxBytes,
    DEFAULT_CACHE_DIR_MAX_BYTES,
    positiveBytes,
  );
  const backend = withDefault('backend', options.backend, 'auto', (name, v) =>
    oneOfValues(name, v, ['auto', 'opfs', 'idb'] as const),
  );
  const webAssembly = withDefault('webAssembly', options.webAssembly, true, bool);
  const persist = withDefault('persist', options.persist, false, bool);
  // Checked here, before a store is chosen: the same error whichever store it would be.
  checkEncryptionOptions(options);
  checkRetentionOptions(options);
  // Checked by the store's constructor (TypeError naming the option).
  const encryption = {
    ...pickEncryptionOptions(options),
    ...(options.maxAge === undefined ? {} : { maxAge: options.maxAge }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
  if (backend === 'opfs' || (backend === 'auto' && OpfsStore.isSupported())) {
    return new OpfsStore({
      dir: cacheDir,
      maxBytes,
      persist,
      webAssembly,
      ...encryption,
    });
  }
  return new IdbStore({ name: `medfusion:${cacheDir}`, maxBytes, webAssembly, ...encryption });
}
