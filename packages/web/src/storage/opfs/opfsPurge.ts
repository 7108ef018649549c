import { parseHeader, RECORD_HEADER, recordSize } from './opfsFormat.js';
import type { Segment } from './opfsSegmentIndex.js';

const dec = new TextDecoder();

/** Which records {@link OpfsSegmentEngine.purge} deletes: by key prefix, by age, or both. Internal. */
export interface PurgeMatch {
  /** Keys starting with this go (a data set: `<fingerprint>/`). */
  prefix?: string;
  /** Records written before this time (seconds since the epoch) go; 0: none by age. */
  minTime: number;
}

/** Whether a record of `key` written at `time` matches. Internal. */
export function purgeMatches(m: PurgeMatch, key: string, time: number): boolean {
  return (m.prefix !== undefined && key.startsWith(m.prefix)) || time < m.minTime;
}

/**
 * Whether segment `s` holds any record (live, superseded or a tombstone) that
 * matches `m` in its valid bytes [0, end): a segment that does must go
 * whole, so no byte of a forgotten or expired value stays on disk. Reads
 * each record's header and key only (by age only: the first record's header
 * alone when it is young enough). Internal.
 */
export async function segmentHolds(s: Segment, m: PurgeMatch): Promise<boolean> {
  let pos = 0;
  while (pos + RECORD_HEADER <= s.end) {
    const head = await s.file.read(pos, RECORD_HEADER);
    const h = parseHeader(head);
    if (!h) return true; // unreadable within the valid bytes: rewrite it to be sure
    // By age only: records are appended in time order, so a segment whose first record
    // is young enough holds no old one (the periodic sweep reads one header per segment).
    if (pos === 0 && m.prefix === undefined && h.time >= m.minTime) return false;
    const key = dec.decode(await s.file.read(pos + RECORD_HEADER, h.keyLen));
    if (purgeMatches(m, key, h.time)) return true;
    pos += recordSize(h.keyLen, h.dataLen);
  }
  return false;
}
