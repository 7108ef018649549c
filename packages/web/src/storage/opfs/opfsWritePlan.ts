import { StoreError } from '../storeErrors.js';
import {
  encodeRecord,
  FLAG_TOMBSTONE,
  packedRecordSize,
  RECORD_HEADER,
  utf8Length,
} from './opfsFormat.js';

/** One put (value) or delete (undefined) to pack. Internal. */
export interface PackItem {
  key: string;
  /** UTF-8 length of the key (from {@link checkedKeyLength}). */
  keyLen: number;
  value: Uint8Array | undefined;
  /** Flags of a value's record (FLAG_ENCRYPTED when it is sealed). @default 0 */
  flags?: number;
}

/** UTF-8 length of `key`; a RangeError past the 65535 bytes a record header holds. Internal. */
export function checkedKeyLength(key: string): number {
  const n = utf8Length(key);
  if (n > 0xffff) throw new RangeError(`key must be at most 65535 UTF-8 bytes, got ${n}`);
  return n;
}

/** Smallest batch buffer; larger ones are the next power of two, so buffers get reused. */
const MIN_BATCH_BUFFER = 2 ** 20;

/**
 * Pack a write batch into one buffer (the page does this, then transfers the
 * buffer to the worker, which sends it back for reuse): the records back to
 * back, each value copied once, checksums left for the worker (which seals
 * each record in place, see sealRecord, right before writing it). Uses `spare` when it is large
 * enough, else a new buffer (with `reusable`, sized up to a power of two of
 * at least 1 MiB so later batches fit); returns a view of exactly the batch.
 * `time` (seconds since the epoch) is every record's write time.
 * Internal.
 */
export function packRecords(
  items: readonly PackItem[],
  spare?: ArrayBuffer,
  reusable = false,
  time = 0,
): Uint8Array {
  let total = 0;
  for (const it of items) total += RECORD_HEADER + it.keyLen + (it.value?.byteLength ?? 0);
  const buffer =
    spare && spare.byteLength >= total
      ? spare
      : new ArrayBuffer(
          reusable
            ? Math.max(MIN_BATCH_BUFFER, 2 ** Math.ceil(Math.log2(Math.max(1, total))))
            : total,
        );
  const out = new Uint8Array(buffer, 0, total);
  let at = 0;
  for (const it of items) {
    const flags = it.value === undefined ? FLAG_TOMBSTONE : (it.flags ?? 0);
    encodeRecord(out, at, it.key, it.keyLen, it.value, flags, time);
    at += RECORD_HEADER + it.keyLen + (it.value?.byteLength ?? 0);
  }
  return out;
}

/** A packed batch as the worker sees it: where each record starts and ends, and its error. Internal. */
export interface BatchPlan {
  /** Offset of record i in the batch buffer. */
  starts: number[];
  /** End (exclusive) of record i. */
  ends: number[];
  /** An error for a record that must not be written (too large), else undefined. */
  results: (unknown | undefined)[];
}

/**
 * List the records of the packed batch `bytes` (not sealed yet); a record
 * larger than `maxBytes` gets its ENTRY_TOO_LARGE error and is left out.
 * `keys` names the records in order. Internal.
 */
export function planBatch(bytes: Uint8Array, keys: readonly string[], maxBytes: number): BatchPlan {
  const starts: number[] = new Array(keys.length);
  const ends: number[] = new Array(keys.length);
  const results: (unknown | undefined)[] = new Array(keys.length).fill(undefined);
  let at = 0;
  for (let i = 0; i < keys.length; i++) {
    const size = packedRecordSize(bytes, at);
    if (size < 0) {
      throw new StoreError('STORE_FAILED', `write batch is malformed at record ${i} (byte ${at})`);
    }
    starts[i] = at;
    ends[i] = at + size;
    if (size > maxBytes) {
      results[i] = new StoreError(
        'ENTRY_TOO_LARGE',
        `value for key ${JSON.stringify(keys[i])} needs ${size} bytes, more than maxBytes ${maxBytes}`,
      );
    }
    at += size;
  }
  if (at !== bytes.length) {
    throw new StoreError('STORE_FAILED', `write batch has ${bytes.length - at} stray bytes`);
  }
  return { starts, ends, results };
}

/**
 * End (exclusive) of the append starting at record `from` (records written
 * to one segment file in one write, contiguous in the batch buffer): records
 * are added while they fit in `room` bytes and carry no error; the first one
 * always goes. Internal.
 */
export function appendEnd(plan: BatchPlan, from: number, room: number): number {
  let j = from + 1;
  while (
    j < plan.starts.length &&
    plan.results[j] === undefined &&
    plan.ends[j]! - plan.starts[from]! <= room
  ) {
    j++;
  }
  return j;
}
