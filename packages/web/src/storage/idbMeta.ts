import type { DBSchema } from 'idb';
import { XXH64_TAG } from './ValueChecksum.js';

/** The meta record IdbStore keeps per key (web-internal). */
export interface Meta {
  /** Length of the value in bytes. */
  len: number;
  /**
   * Checksum of the value (a ValueChecksum one: it names its algorithm); 0 on a sealed value
   * (`enc: 1`), which its GCM tag authenticates (records written before 2026-12-04 carry one).
   */
  sum: number;
  /** Number of chunk records. */
  chunks: number;
  /** Write sequence number (least recently used first). */
  seq: number;
  /** 1 when the value is sealed with AES-GCM (see RecordCipher); absent on plain records. */
  enc?: 1;
  /** Write time (the store's clock, ms since the epoch); absent on records written before. */
  at?: number;
}

/**
 * Whether a meta record read back is whole: non-negative integers, at least one chunk, and
 * a length no larger than `maxBytes` (put never writes a larger one). A damaged record is
 * skipped, never trusted: its length would enter the byte count.
 */
export function isMeta(m: unknown, maxBytes: number): m is Meta {
  if (m === null || typeof m !== 'object') return false;
  const { len, sum, chunks, seq, enc, at } = m as Record<string, unknown>;
  const count = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
  return (
    count(len) &&
    len <= maxBytes &&
    count(sum) &&
    sum < 2 * XXH64_TAG &&
    count(chunks) &&
    chunks >= 1 &&
    chunks <= Math.max(1, len) &&
    count(seq) &&
    (enc === undefined || enc === 1) &&
    (at === undefined || Number.isFinite(at))
  );
}

/** The database layout: one meta record per key, its chunks under [key, index] (web-internal). */
export interface IdbSchema extends DBSchema {
  meta: { key: string; value: Meta };
  data: { key: [string, number]; value: Uint8Array };
}

/** Every chunk record of `key`. */
export function chunkRange(key: string): IDBKeyRange {
  return IDBKeyRange.bound([key, 0], [key, Number.MAX_SAFE_INTEGER]);
}
