import type { StoreUsage } from '@medfusion/core';
import type { EncryptionOptions, EncryptionUsage } from './encryption/encryptionOptions.js';
import type { RetentionOptions } from './retention/retentionOptions.js';

/** Options of {@link IdbStore}. */
export interface IdbStoreOptions extends EncryptionOptions, RetentionOptions {
  /** IndexedDB database name. @example 'medfusion-xray' */
  name: string;
  /**
   * Byte budget of stored values; over it the least recently used entries go.
   * @default 1073741824 (1 GiB)
   */
  maxBytes?: number;
  /**
   * Values larger than this are split into records of this size.
   * @default 1048576 (1 MiB)
   */
  chunkBytes?: number;
  /**
   * Pretend the origin's quota is this many bytes (testing the quota path).
   * @default undefined (the browser's own quota)
   */
  quotaBytes?: number;
  /**
   * Seal values with xxHash64 in WebAssembly (hash-wasm) where the page
   * allows it, else with the JavaScript xxHash32; `false` never compiles
   * WebAssembly. An entry keeps the checksum it was written with; one this
   * store cannot check is dropped as corrupt, never returned unchecked (as
   * `OpfsStoreOptions.webAssembly`). See `usage().checksumAlgorithm`.
   * @default true
   */
  webAssembly?: boolean;
}

/** Usage of an {@link IdbStore}. */
export interface IdbStoreUsage extends StoreUsage, EncryptionUsage {
  /** Entries evicted to stay under maxBytes or after a quota error. */
  evictions: number;
  /**
   * Entries dropped as corrupt, never returned: a value failing its length or checksum (or
   * sealed with xxHash64 where this store cannot compute it), or a
   * damaged meta record (`null`; a length, checksum, chunk count or sequence number that is not
   * a non-negative integer; a length over `maxBytes`), which is skipped when the store opens and
   * removed with its chunks.
   */
  corruptDropped: number;
  /** QuotaExceededError seen since open. */
  quotaErrors: number;
  /** Records deleted because they were older than `maxAge` (on open, by a sweep or a read). */
  expired: number;
  /**
   * The checksum new entries are sealed with: `'xxh64'` (WebAssembly) unless
   * the store was opened with `webAssembly: false` or the page refuses
   * WebAssembly, then `'xxh32'`.
   */
  checksumAlgorithm: 'xxh64' | 'xxh32';
}
