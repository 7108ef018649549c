import { checksum } from '@medfusion/core';
import { type ValueChecksum, XXH64_TAG } from '../ValueChecksum.js';

/**
 * On-disk layout of {@link OpfsStore} (internal).
 *
 * Segment file `segment-<id>.bin`: records appended back to back, each
 * `[magic u32 | flags u16 | keyLen u16 | dataLen u32 | dataSum u32 | headSum u32 | time u32 | key | data]`
 * (little-endian; `headSum` (xxHash32) covers the first 16 bytes and the key, `dataSum`
 * the data; flags 1 = tombstone, 2 = `dataSum` is the low 32 bits of the data's
 * xxHash64, else its xxHash32, see ValueChecksum; 4 = the data is sealed with
 * AES-GCM, `[version u8 | nonce 12 | ciphertext | tag 16]`, see RecordCipher,
 * and `dataSum` covers those sealed bytes; `time` is the write time in whole
 * seconds since the epoch, 0 when unknown (records written before 2026-12-04),
 * which `maxAge` reads as expired). A record is valid only when
 * both sums match, so a torn write is never read back.
 *
 * Index snapshots `index-a.bin` / `index-b.bin` (written alternately):
 * `[magic u32 | byteLength u32 | sum u32 | generation u32 | JSON]`; the valid one with the
 * highest generation wins. `head.bin` holds a write sequence number that
 * every write batch bumps, so other stores on the same directory notice.
 */

/** Size of a record header in bytes. */
export const RECORD_HEADER = 24;
const RECORD_MAGIC = 0x3152464d; // "MFR1"
const SNAPSHOT_MAGIC = 0x3149464d; // "MFI1"
const HEAD_MAGIC = 0x3148464d; // "MFH1"

/** Record flag: the key was deleted. */
export const FLAG_TOMBSTONE = 1;
/** Record flag: `dataSum` is the low 32 bits of the data's xxHash64 (else its xxHash32). */
const FLAG_XXH64 = 2;
/**
 * Record flag: the data is sealed with AES-GCM (encryption at rest). A store
 * reads only records whose flag matches its mode: a plain store never returns
 * sealed bytes, an encrypting one never returns plaintext.
 */
export const FLAG_ENCRYPTED = 4;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Where one entry lives. */
export interface EntryLocation {
  /** Segment id. */
  segment: number;
  /** Byte offset of the record in the segment. */
  offset: number;
  /** UTF-8 length of the key. */
  keyLen: number;
  /** Length of the value. */
  len: number;
  /** Checksum of the value (a {@link ValueChecksum} one: it names its algorithm). */
  sum: number;
  /** Write time in seconds since the epoch (0: unknown). @default 0 */
  time?: number;
}

/** Total size of a record. */
export function recordSize(keyLen: number, dataLen: number): number {
  return RECORD_HEADER + keyLen + dataLen;
}

/** UTF-8 length of `text` (what `TextEncoder` would produce), without encoding it. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Encode one record into `out` at `at` without its checksums (zero): header,
 * key (`keyLen` UTF-8 bytes of `key`) and one copy of `data`. {@link sealRecord}
 * fills the checksums in place before the record is written.
 */
export function encodeRecord(
  out: Uint8Array,
  at: number,
  key: string,
  keyLen: number,
  data: Uint8Array | undefined,
  flags: number,
  time = 0,
): void {
  const dv = new DataView(out.buffer, out.byteOffset + at, RECORD_HEADER);
  dv.setUint32(0, RECORD_MAGIC, true);
  dv.setUint16(4, flags, true);
  dv.setUint16(6, keyLen, true);
  dv.setUint32(8, data?.byteLength ?? 0, true);
  dv.setUint32(12, 0, true);
  dv.setUint32(16, 0, true);
  dv.setUint32(20, time >>> 0, true);
  enc.encodeInto(key, out.subarray(at + RECORD_HEADER, at + RECORD_HEADER + keyLen));
  if (data) out.set(data, at + RECORD_HEADER + keyLen);
}

/**
 * Size of the encoded record at `at` of `buf`, or -1 when no whole record
 * starts there (wrong magic, or it runs past the end).
 */
export function packedRecordSize(buf: Uint8Array, at: number): number {
  if (at + RECORD_HEADER > buf.length) return -1;
  const dv = new DataView(buf.buffer, buf.byteOffset + at, RECORD_HEADER);
  if (dv.getUint32(0, true) !== RECORD_MAGIC) return -1;
  const size = recordSize(dv.getUint16(6, true), dv.getUint32(8, true));
  return at + size > buf.length ? -1 : size;
}

/**
 * Compute the checksums of the encoded record at `at` of `buf` (the data's
 * with `valueChecksum`, which sets the xxHash64 flag when it is that) and store them in
 * its header (in place: no copy). Returns the record's size, or -1 when no
 * whole record starts there.
 */
export function sealRecord(buf: Uint8Array, at: number, valueChecksum: ValueChecksum): number {
  const size = packedRecordSize(buf, at);
  if (size < 0) return -1;
  const dv = new DataView(buf.buffer, buf.byteOffset + at, RECORD_HEADER);
  const keyLen = dv.getUint16(6, true);
  const sum = valueChecksum.of(buf.subarray(at + RECORD_HEADER + keyLen, at + size));
  const flags = dv.getUint16(4, true) & ~FLAG_XXH64;
  dv.setUint16(4, sum >= XXH64_TAG ? flags | FLAG_XXH64 : flags, true);
  dv.setUint32(12, sum % XXH64_TAG, true);
  const key = buf.subarray(at + RECORD_HEADER, at + RECORD_HEADER + keyLen);
  dv.setUint32(16, headSum(buf.subarray(at, at + 16), key), true);
  return size;
}

/** Scratch for {@link headSum}: the header's first 16 bytes followed by the key, reused. */
let headScratch = new Uint8Array(16 + 256);

function headSum(first16: Uint8Array, key: Uint8Array): number {
  const n = 16 + key.length;
  if (headScratch.length < n) headScratch = new Uint8Array(Math.max(n, headScratch.length * 2));
  headScratch.set(first16, 0);
  headScratch.set(key, 16);
  return checksum(headScratch.subarray(0, n));
}

/** A record header as parsed by {@link parseHeader}. */
export interface RecordHeader {
  /** Flags (tombstone, xxHash64). */
  flags: number;
  /** Key length. */
  keyLen: number;
  /** Data length. */
  dataLen: number;
  /** Data checksum, naming its algorithm as a {@link ValueChecksum} one does. */
  dataSum: number;
  /** Header checksum. */
  headSum: number;
  /** Write time in seconds since the epoch (0: unknown). */
  time: number;
}

/** Parse the 24-byte header at the start of `bytes`, or undefined when the magic is wrong. */
export function parseHeader(bytes: Uint8Array): RecordHeader | undefined {
  if (bytes.length < RECORD_HEADER) return undefined;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, RECORD_HEADER);
  if (dv.getUint32(0, true) !== RECORD_MAGIC) return undefined;
  return {
    flags: dv.getUint16(4, true),
    keyLen: dv.getUint16(6, true),
    dataLen: dv.getUint32(8, true),
    dataSum: dataSumOf(dv),
    headSum: dv.getUint32(16, true),
    time: dv.getUint32(20, true),
  };
}

/** The data checksum of the record header `dv` views, naming its algorithm (see ValueChecksum). */
export function dataSumOf(dv: DataView): number {
  return dv.getUint32(12, true) + (dv.getUint16(4, true) & FLAG_XXH64 ? XXH64_TAG : 0);
}

/**
 * Check a whole record read from disk (its data with `valueChecksum`); returns its key
 * and data (views into `bytes`) when the magic, both checksums and the
 * lengths agree.
 */
export function verifyRecord(
  bytes: Uint8Array,
  valueChecksum: ValueChecksum,
): { header: RecordHeader; key: string; data: Uint8Array } | undefined {
  const header = parseHeader(bytes);
  if (!header) return undefined;
  const size = recordSize(header.keyLen, header.dataLen);
  if (bytes.length < size) return undefined;
  const key = bytes.subarray(RECORD_HEADER, RECORD_HEADER + header.keyLen);
  if (headSum(bytes.subarray(0, 16), key) !== header.headSum) return undefined;
  const data = bytes.subarray(RECORD_HEADER + header.keyLen, size);
  if (!valueChecksum.matches(data, header.dataSum)) return undefined;
  return { header, key: dec.decode(key), data };
}

/**
 * The value of a record read for `key` at `loc`: undefined unless the
 * record is valid (magic, both checksums, lengths; the data's checked with
 * `valueChecksum`) and is a live entry of that key with the indexed length and checksum.
 */
export function verifyEntry(
  bytes: Uint8Array,
  key: string,
  loc: EntryLocation,
  valueChecksum: ValueChecksum,
  flags = 0,
): Uint8Array | undefined {
  const data = verifyEntryHeader(bytes, key, loc, flags);
  return data && valueChecksum.matches(data, loc.sum) ? data : undefined;
}

/**
 * {@link verifyEntry} but for the value's checksum: the value (a view into
 * `bytes`) when the record's header, its header checksum and its key match
 * the live entry `loc` of `key`, whose value checksum it carries; the caller
 * must then find `loc.sum` in the value before it trusts a byte of it.
 * `flags` is the store's mode, 0 or {@link FLAG_ENCRYPTED}: a record of the
 * other mode does not verify.
 */
export function verifyEntryHeader(
  bytes: Uint8Array,
  key: string,
  loc: EntryLocation,
  flags = 0,
): Uint8Array | undefined {
  const header = parseHeader(bytes);
  if (!header) return undefined;
  if (
    (header.flags & ~FLAG_XXH64) !== flags ||
    header.keyLen !== loc.keyLen ||
    header.dataLen !== loc.len ||
    header.dataSum !== loc.sum
  ) {
    return undefined;
  }
  const size = recordSize(header.keyLen, header.dataLen);
  if (bytes.length < size) return undefined;
  const keyBytes = bytes.subarray(RECORD_HEADER, RECORD_HEADER + header.keyLen);
  if (headSum(bytes.subarray(0, 16), keyBytes) !== header.headSum) return undefined;
  if (!sameKey(keyBytes, key)) return undefined;
  return bytes.subarray(RECORD_HEADER + header.keyLen, size);
}

/**
 * Whether `head` (a record's header and key, read at `loc`) is the record of `key` that `loc`
 * indexes: magic, lengths, value checksum, header checksum and key agree, whatever its flags.
 */
export function recordHeadMatches(head: Uint8Array, key: string, loc: EntryLocation): boolean {
  const h = parseHeader(head);
  if (!h || h.keyLen !== loc.keyLen || h.dataLen !== loc.len || h.dataSum !== loc.sum) return false;
  if (head.length < RECORD_HEADER + h.keyLen) return false;
  const keyBytes = head.subarray(RECORD_HEADER, RECORD_HEADER + h.keyLen);
  return headSum(head.subarray(0, 16), keyBytes) === h.headSum && sameKey(keyBytes, key);
}

/** Whether the UTF-8 bytes `bytes` spell `key` (ASCII compared in place, the rest decoded). */
function sameKey(bytes: Uint8Array, key: string): boolean {
  if (bytes.length === key.length) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0x80) {
        ascii = false;
        break;
      }
      if (bytes[i] !== c) return false;
    }
    if (ascii) return true;
  }
  return dec.decode(bytes) === key;
}

/** Persisted index state. */
export interface SnapshotData {
  /** Generation; the higher valid one wins. */
  gen: number;
  /** Next segment id to use. */
  next: number;
  /** LRU clock. */
  tick: number;
  /** `[id, end, lastUsed]` per segment: the snapshot covers bytes [0, end). */
  segments: [number, number, number][];
  /** `[key, segment, offset, keyLen, len, sum, time]` per entry (time: since 2026-12-04). */
  entries: [string, number, number, number, number, number, number?][];
}

/** Size of a snapshot file's header: magic, JSON length, JSON checksum, generation. */
export const SNAPSHOT_HEADER = 16;

/** Serialize a snapshot with its header and checksum. */
export function encodeSnapshot(s: SnapshotData): Uint8Array {
  const json = enc.encode(JSON.stringify(s));
  const out = new Uint8Array(SNAPSHOT_HEADER + json.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, SNAPSHOT_MAGIC, true);
  dv.setUint32(4, json.length, true);
  dv.setUint32(8, checksum(json), true);
  dv.setUint32(12, s.gen >>> 0, true);
  out.set(json, SNAPSHOT_HEADER);
  return out;
}

/** The generation in a snapshot header (first 16 bytes), or -1 when it is not one. */
export function peekSnapshotGen(header: Uint8Array): number {
  if (header.length < SNAPSHOT_HEADER) return -1;
  const dv = new DataView(header.buffer, header.byteOffset, SNAPSHOT_HEADER);
  return dv.getUint32(0, true) === SNAPSHOT_MAGIC ? dv.getUint32(12, true) : -1;
}

/** Parse a snapshot file; undefined when torn, corrupt or foreign. */
export function decodeSnapshot(bytes: Uint8Array): SnapshotData | undefined {
  if (bytes.length < SNAPSHOT_HEADER) return undefined;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== SNAPSHOT_MAGIC) return undefined;
  const len = dv.getUint32(4, true);
  if (bytes.length < SNAPSHOT_HEADER + len) return undefined;
  const json = bytes.subarray(SNAPSHOT_HEADER, SNAPSHOT_HEADER + len);
  if (checksum(json) !== dv.getUint32(8, true)) return undefined;
  try {
    const s = JSON.parse(dec.decode(json)) as SnapshotData;
    if (typeof s.gen !== 'number' || !Array.isArray(s.segments) || !Array.isArray(s.entries)) {
      return undefined;
    }
    return s;
  } catch {
    return undefined;
  }
}

/** Contents of `head.bin`. */
export interface HeadData {
  /** Bumped by every write batch. */
  seq: number;
  /** Next segment id to use. */
  next: number;
}

/** Serialize `head.bin`. */
export function encodeHead(h: HeadData): Uint8Array {
  const out = new Uint8Array(16);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, HEAD_MAGIC, true);
  dv.setUint32(4, h.seq >>> 0, true);
  dv.setUint32(8, h.next >>> 0, true);
  dv.setUint32(12, checksum(out.subarray(0, 12)), true);
  return out;
}

/** Parse `head.bin`; a missing or torn head reads as seq 0. */
export function decodeHead(bytes: Uint8Array): HeadData {
  if (bytes.length < 16) return { seq: 0, next: 1 };
  const dv = new DataView(bytes.buffer, bytes.byteOffset, 16);
  if (dv.getUint32(0, true) !== HEAD_MAGIC) return { seq: 0, next: 1 };
  if (checksum(bytes.subarray(0, 12)) !== dv.getUint32(12, true)) return { seq: 0, next: 1 };
  return { seq: dv.getUint32(4, true), next: dv.getUint32(8, true) };
}

/** File name of segment `id`. */
export function segmentName(id: number): string {
  return `segment-${String(id).padStart(8, '0')}.bin`;
}

/**
 * True for a segment file of the first on-disk format (`shard-<id>.bin`, with
 * snapshots that listed `shards`). The engine removes them on open: they are
 * a cache, and left alone they would hold quota outside `maxBytes`.
 */
export function isLegacySegmentName(name: string): boolean {
  return /^shard-\d{8}\.bin$/.test(name);
}

/** Segment id of a file name, or undefined for other files. */
export function segmentIdOf(name: string): number | undefined {
  const m = /^segment-(\d{8})\.bin$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
