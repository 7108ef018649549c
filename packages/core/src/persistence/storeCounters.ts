// The event counters a disk store keeps from its open and reports in its `usage()`: one shape,
// made in one place, for web's IdbStore and node's LmdbStore (OpfsStore's engine and its
// sealing layer count theirs in two parts, see opfsEngineTypes.ts and opfsSealing.ts).
import type { EncryptionUsage } from './sealedFormat.js';

/** A disk store's event counters since it opened. Internal. */
export interface StoreCounters extends EncryptionUsage {
  /** Entries evicted to stay under the byte budget (or after a quota error). */
  evictions: number;
  /** Entries dropped because their bytes failed their check: read as misses. */
  corruptDropped: number;
  /** Writes refused for lack of space. */
  quotaErrors: number;
  /** Entries deleted because they were older than `maxAge`. */
  expired: number;
}

/** Fresh counters, every one 0. */
export function storeCounters(): StoreCounters {
  return {
    evictions: 0,
    corruptDropped: 0,
    quotaErrors: 0,
    expired: 0,
    undecryptable: 0,
    reencrypted: 0,
    previousKeyDropped: 0,
    plainDropped: 0,
  };
}
