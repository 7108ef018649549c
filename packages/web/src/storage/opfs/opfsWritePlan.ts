import { StoreError } from '../storeErrors.js';
import {
  type EntryLocation,
  FLAG_TOMBSTONE,
  keyBytes,
  recordSize,
  writeRecord,
} from './opfsFormat.js';

/** One record a write batch will append. Internal. */
export interface PlannedRecord {
  /** Index of the item in the batch. */
  i: number;
  /** The item's key. */
  keyText: string;
  /** UTF-8 bytes of the key. */
  key: Uint8Array;
  /** The value, or undefined for a delete (tombstone). */
  value: Uint8Array | undefined;
  /** Record size on disk. */
  size: number;
}

/**
 * Check a batch of puts (value) and deletes (undefined) and list the
 * records to append: deletes of unknown keys are skipped, a too-long key
 * or an entry larger than `maxBytes` gets its error in `results`. Internal.
 */
export function planWrites(
  items: readonly { key: string; value: Uint8Array | undefined }[],
  maxBytes: number,
  isIndexed: (key: string) => boolean,
): { results: (unknown | undefined)[]; todo: PlannedRecord[] } {
  const results: (unknown | undefined)[] = new Array(items.length).fill(undefined);
  const todo: PlannedRecord[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.value === undefined && !isIndexed(item.key)) continue;
    const kb = keyBytes(item.key);
    if (kb.length > 0xffff) {
      results[i] = new RangeError(`key must be at most 65535 UTF-8 bytes, got ${kb.length}`);
      continue;
    }
    const size = recordSize(kb.length, item.value?.byteLength ?? 0);
    if (size > maxBytes) {
      results[i] = new StoreError(
        'ENTRY_TOO_LARGE',
        `value for key ${JSON.stringify(item.key)} needs ${size} bytes, more than maxBytes ${maxBytes}`,
      );
      continue;
    }
    todo.push({ i, keyText: item.key, key: kb, value: item.value, size });
  }
  return { results, todo };
}

/**
 * End (exclusive) of the append starting at `todo[from]` (records written to
 * one segment file in one write): records are added while they fit in `room`
 * bytes; the first one always goes. Internal.
 */
export function appendEnd(todo: readonly PlannedRecord[], from: number, room: number): number {
  let bytes = 0;
  let j = from;
  while (j < todo.length) {
    const s = todo[j]!.size;
    if (j > from && bytes + s > room) break;
    bytes += s;
    j++;
  }
  return j;
}

/**
 * Encode records `todo[from..to)` back to back into one chunk to append at
 * `fileEnd` of segment file `segmentId`; `locs` says where each key will live
 * (undefined for a delete) once the chunk is flushed. Internal.
 */
export function packAppend(
  todo: readonly PlannedRecord[],
  from: number,
  to: number,
  segmentId: number,
  fileEnd: number,
): { chunk: Uint8Array; locs: { key: string; loc: EntryLocation | undefined }[] } {
  let chunkBytes = 0;
  for (let t = from; t < to; t++) chunkBytes += todo[t]!.size;
  const chunk = new Uint8Array(chunkBytes);
  const locs: { key: string; loc: EntryLocation | undefined }[] = [];
  let at = 0;
  for (let t = from; t < to; t++) {
    const item = todo[t]!;
    const flags = item.value === undefined ? FLAG_TOMBSTONE : 0;
    const sum = writeRecord(chunk, at, item.key, item.value, flags);
    locs.push({
      key: item.keyText,
      loc:
        item.value === undefined
          ? undefined
          : {
              segment: segmentId,
              offset: fileEnd + at,
              keyLen: item.key.length,
              len: item.value.byteLength,
              sum,
            },
    });
    at += item.size;
  }
  return { chunk, locs };
}
