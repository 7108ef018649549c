import type { StoreUsage } from '@medfusion/core';

/** Options of {@link IdbStore}. */
export interface IdbStoreOptions {
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
}

/** Usage of an {@link IdbStore}. */
export interface IdbStoreUsage extends StoreUsage {
  /** Entries evicted to stay under maxBytes or after a quota error. */
  evictions: number;
  /**
   * Entries dropped as corrupt, never returned: a value failing its length or checksum, or a
   * damaged meta record (`null`; a length, checksum, chunk count or sequence number that is not
   * a non-negative integer; a length over `maxBytes`), which is skipped when the store opens and
   * removed with its chunks.
   */
  corruptDropped: number;
  /** QuotaExceededError seen since open. */
  quotaErrors: number;
}
