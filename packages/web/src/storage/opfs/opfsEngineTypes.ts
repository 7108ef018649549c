import type { StoreUsage } from '@medfusion/core';

/** Settings of the segment engine (validated by OpfsStore). Internal. */
export interface EngineOptions {
  /** Byte budget for segment data. */
  maxBytes: number;
  /** Target segment size. */
  segmentBytes: number;
  /** Simulated origin quota in bytes (tests), or undefined. */
  quotaBytes?: number;
  /** Delay before a changed index is snapshotted. */
  snapshotDelayMs: number;
  /**
   * Longest wait between writing a batch and flushing it (the group commit);
   * 0 flushes every batch before its puts resolve.
   */
  flushDelayMs: number;
  /**
   * The records this engine reads: sealed ones (FLAG_ENCRYPTED) when the
   * store has an encryption key, else plain ones; the others are dropped.
   */
  encrypted: boolean;
}

/** Usage as the engine reports it. */
export interface EngineUsage extends StoreUsage {
  /** Bytes the segment files take (records, headers, superseded records). */
  diskBytes: number;
  /** Number of segment files. */
  segments: number;
  /** Whether sync handles or the async API back the store. */
  backend: 'sync' | 'async';
  /**
   * The checksum new entries are sealed with: `'xxh64'` (WebAssembly) unless
   * the store was opened with `webAssembly: false` or the page refuses
   * WebAssembly, then `'xxh32'`.
   */
  checksumAlgorithm: 'xxh64' | 'xxh32';
  /** Segments evicted since open. */
  evictedSegments: number;
  /**
   * Entries dropped because their bytes failed verification (or could not be
   * checked here: an xxHash64 entry where WebAssembly is off).
   */
  corruptDropped: number;
  /**
   * Plain records a store given `encryptionKey` found: dropped and read as
   * misses, never returned.
   */
  plainDropped: number;
  /** QuotaExceededError seen since open. */
  quotaErrors: number;
  /**
   * Group commits since open: flushes of the segments written since the
   * previous one (see `flushDelayMs`); puts issued together share one.
   */
  flushes: number;
  /**
   * Of those, the timed ones (`flushDelayMs` > 0) whose fsync ran on the OPFS
   * worker's flush thread while writes went on; 0 where that thread cannot
   * start (the async file API, no nested workers): there they block writes.
   */
  flushesAside: number;
}

/** The directory's writer lock, held as a lease (see WriterLease). */
export interface WriterLock {
  /** Run `fn` holding the lock; it stays held until {@link release}. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Let go once the runs queued so far finished. */
  release(): Promise<void>;
  /**
   * How many times the lock was taken so far: the same count at two runs
   * means it was held all along in between, so no other writer wrote.
   */
  readonly taken: number;
}

/** The engine's event counters, shared with the part that evicts. Internal. */
export interface EngineCounters {
  evictedSegments: number;
  corruptDropped: number;
  quotaErrors: number;
  /** Plain records an encrypting engine found and dropped. */
  plainDropped: number;
}
