/** What a persistent store holds per key: raw bytes. */
export type StoreValue = Uint8Array;

/** Space a store uses, as reported by {@link PersistentStore.usage}. */
export interface StoreUsage {
  /** Bytes of payload currently stored. */
  bytes: number;
  /** Number of entries. */
  entries: number;
  /** The store's byte budget, when it has one. */
  maxBytes?: number;
}

/**
 * A key → bytes store that outlives the page: OPFS and IndexedDB in
 * `@medfusion/web`, {@link MemoryStore} for tests and Node. The disk tier of
 * `createCachedDataset` uses one. Implementations verify what they read and
 * return `undefined` rather than corrupt bytes.
 */
export interface PersistentStore {
  /**
   * The bytes stored under `key`, or undefined when absent (or found corrupt).
   * The caller owns them: the store keeps no reference and never changes them
   * (the disk tier decodes samples as views of them).
   */
  get(key: string): Promise<StoreValue | undefined>;
  /** Store `value` under `key`, replacing any previous value. */
  put(key: string, value: StoreValue): Promise<void>;
  /** Remove `key`; true when it was present. */
  delete(key: string): Promise<boolean>;
  /** Whether `key` is present. */
  has(key: string): Promise<boolean>;
  /** Every key currently stored. */
  keys(): Promise<string[]>;
  /** Remove everything. */
  clear(): Promise<void>;
  /** Bytes and entries in use. */
  usage(): Promise<StoreUsage>;
  /** Release handles and workers. Optional. */
  close?(): Promise<void>;
}
