import type { ValueChecksum } from '../ValueChecksum.js';
import type { OpfsFile } from './opfsFiles.js';
import {
  type EntryLocation,
  encodeRecord,
  FLAG_ENCRYPTED,
  FLAG_TOMBSTONE,
  parseHeader,
  RECORD_HEADER,
  recordHeadMatches,
  recordSize,
  sealRecord,
} from './opfsFormat.js';
import type { Segment } from './opfsSegmentIndex.js';

/**
 * Secure delete of the OPFS store (docs/persistence.md, "Deleted bytes"): the bytes of a
 * record that is deleted, overwritten, dropped (plain under a key, undecryptable, rotated
 * away) or superseded are overwritten in place, in its segment, by a *wiped record*: a
 * tombstone of the same length whose key and data are zero bytes, with valid checksums, so
 * a scan of the segment steps over it as over any tombstone (it names no key) and nothing
 * of the value stays in the file. Segments that go whole (eviction, forget, expiry, clear)
 * are truncated and removed instead. The caller holds the writer lock and adds the file to
 * the group commit. Internal.
 */

/** A wiped record of a record with `keyLen` key bytes and `dataLen` data bytes. */
export function wipedRecord(keyLen: number, dataLen: number, vc: ValueChecksum): Uint8Array {
  const out = new Uint8Array(recordSize(keyLen, dataLen));
  const zeros = out.subarray(RECORD_HEADER + keyLen);
  encodeRecord(out, 0, '', keyLen, zeros, FLAG_TOMBSTONE, 0);
  sealRecord(out, 0, vc);
  return out;
}

/**
 * Overwrite the record of `key` at `loc` in `file` with a wiped record, after checking that
 * the header and key there are that record's (an index entry from a snapshot is untrusted:
 * never write over another record's bytes). Returns whether it wiped.
 */
export async function wipeRecordOf(
  file: OpfsFile,
  key: string,
  loc: EntryLocation,
  vc: ValueChecksum,
): Promise<boolean> {
  const head = await file.read(loc.offset, RECORD_HEADER + loc.keyLen);
  if (!recordHeadMatches(head, key, loc)) return false;
  await file.write(loc.offset, wipedRecord(loc.keyLen, loc.len, vc));
  return true;
}

/**
 * Wipe every plain data record (live or superseded) in the valid bytes of `segments`: run
 * when a store opens a directory with an encryption key for the first time, so plaintext
 * written before encryption was turned on does not stay in the files. `dropped(key, s, at)`
 * is told of each, so the index can forget a live one. Returns the files written.
 */
export async function wipePlainRecords(
  segments: Iterable<Segment>,
  vc: ValueChecksum,
  dropped: (key: string, segment: Segment, offset: number) => void,
): Promise<OpfsFile[]> {
  const written: OpfsFile[] = [];
  const dec = new TextDecoder();
  for (const s of segments) {
    let pos = 0;
    let wrote = false;
    while (pos + RECORD_HEADER <= s.end) {
      const h = parseHeader(await s.file.read(pos, RECORD_HEADER));
      if (!h) break;
      const size = recordSize(h.keyLen, h.dataLen);
      if (!(h.flags & (FLAG_ENCRYPTED | FLAG_TOMBSTONE)) && h.dataLen > 0) {
        const key = dec.decode(await s.file.read(pos + RECORD_HEADER, h.keyLen));
        await s.file.write(pos, wipedRecord(h.keyLen, h.dataLen, vc));
        wrote = true;
        dropped(key, s, pos);
      }
      pos += size;
    }
    if (wrote) written.push(s.file);
  }
  return written;
}
