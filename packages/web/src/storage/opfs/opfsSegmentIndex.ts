import { untrustedSizeError } from '@medfusion/core/internal';
import type { ValueChecksum } from '../ValueChecksum.js';
import type { FileBackend, OpfsFile } from './opfsFiles.js';
import {
  type EntryLocation,
  FLAG_TOMBSTONE,
  parseHeader,
  RECORD_HEADER,
  recordSize,
  type SnapshotData,
  segmentIdOf,
  segmentName,
  verifyRecord,
} from './opfsFormat.js';

/** A non-negative safe integer: a size, an offset, an id. */
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** One open segment file and what the index knows of it. Internal. */
export interface Segment {
  /** Segment id (its file is `segmentName(id)`). */
  id: number;
  /** The open file. */
  file: OpfsFile;
  /** Bytes of valid records; the next append goes here. */
  end: number;
  /** LRU clock value of the last read or write. */
  lastUsed: number;
}

/**
 * The OPFS store's in-memory index: where each key lives, which segments
 * exist, the live byte count, the LRU clock and the eviction choice. It is
 * rebuilt from a snapshot plus a scan of the segment tails, and written back
 * as a snapshot. Internal: {@link OpfsSegmentEngine} does the file I/O around it.
 */
export class OpfsSegmentIndex {
  /** Open segments by id. */
  readonly segments = new Map<number, Segment>();
  /** Location of every live key. */
  readonly entries = new Map<string, EntryLocation>();
  /** Sum of the live values' lengths. */
  liveBytes = 0;
  /** LRU clock. */
  tick = 0;

  /** @param valueChecksum Checks the values of the records a scan recovers. */
  constructor(private readonly valueChecksum: ValueChecksum) {}

  /** Index `key` at `loc`, replacing any older location. */
  set(key: string, loc: EntryLocation): void {
    const old = this.entries.get(key);
    if (old) this.liveBytes -= old.len;
    this.entries.set(key, loc);
    this.liveBytes += loc.len;
  }

  /** Forget `key`; false when it was not indexed. */
  drop(key: string): boolean {
    const old = this.entries.get(key);
    if (!old) return false;
    this.entries.delete(key);
    this.liveBytes -= old.len;
    return true;
  }

  /** Forget every key stored in segment `id`. */
  dropSegmentEntries(id: number): void {
    for (const [key, loc] of this.entries) if (loc.segment === id) this.drop(key);
  }

  /** Forget every entry and segment (the caller closes the files). */
  clear(): void {
    this.entries.clear();
    this.segments.clear();
    this.liveBytes = 0;
  }

  /** Bytes the segment files take. */
  diskBytes(): number {
    let total = 0;
    for (const s of this.segments.values()) total += s.end;
    return total;
  }

  /** The segment appends go to (the newest), if any. */
  active(): Segment | undefined {
    let best: Segment | undefined;
    for (const s of this.segments.values()) if (!best || s.id > best.id) best = s;
    return best;
  }

  /** Mark `segment` as just used. */
  touch(segment: Segment): void {
    segment.lastUsed = ++this.tick;
  }

  /** Eviction policy: the least recently used segment other than `keep` (oldest id on ties). */
  lruVictim(keep?: number): Segment | undefined {
    let victim: Segment | undefined;
    for (const s of this.segments.values()) {
      if (s.id === keep) continue;
      if (
        !victim ||
        s.lastUsed < victim.lastUsed ||
        (s.lastUsed === victim.lastUsed && s.id < victim.id)
      )
        victim = s;
    }
    return victim;
  }

  /** Apply the valid records of `s` from `s.end` up to `size`; stop at the first torn one. */
  async scan(s: Segment, size: number): Promise<void> {
    let pos = s.end;
    while (pos + RECORD_HEADER <= size) {
      const header = parseHeader(await s.file.read(pos, RECORD_HEADER));
      if (!header) break;
      const total = recordSize(header.keyLen, header.dataLen);
      if (pos + total > size) break;
      const rec = verifyRecord(await s.file.read(pos, total), this.valueChecksum);
      if (!rec) break;
      if (rec.header.flags & FLAG_TOMBSTONE) this.drop(rec.key);
      else {
        this.set(rec.key, {
          segment: s.id,
          offset: pos,
          keyLen: header.keyLen,
          len: header.dataLen,
          sum: header.dataSum,
          time: header.time,
        });
      }
      pos += total;
    }
    s.end = pos;
  }

  /**
   * Bring the index up to what is on disk (`names`: the directory's files):
   * new segments, tails appended by other stores, segments evicted elsewhere.
   * Records are applied in (segment id, offset) order, so later writes win.
   * Returns the highest segment id seen (0 when none).
   */
  async catchUp(fs: FileBackend, names: readonly string[]): Promise<number> {
    const ids = names
      .map(segmentIdOf)
      .filter((id): id is number => id !== undefined)
      .sort((a, b) => a - b);
    const present = new Set(ids);
    for (const [id, s] of this.segments) {
      if (!present.has(id)) {
        this.dropSegmentEntries(id);
        await s.file.close().catch(() => {});
        this.segments.delete(id);
      }
    }
    let maxId = 0;
    for (const id of ids) {
      let s = this.segments.get(id);
      maxId = Math.max(maxId, id);
      if (!s) {
        const file = await fs.open(segmentName(id), false);
        if (!file) continue;
        if ((await file.size()) === 0) {
          // Empty: emptied by a forget or an eviction whose removal a handle
          // blocked, or just created by another store. Holding no handle on
          // it lets it go; a later catch-up looks again.
          await file.close().catch(() => {});
          continue;
        }
        s = { id, file, end: 0, lastUsed: 0 };
        this.segments.set(id, s);
      }
      const size = await s.file.size();
      if (size < s.end) {
        // Evicted (truncated) by another store, or damaged: forget and rescan.
        this.dropSegmentEntries(id);
        if (size === 0) {
          // Emptied by another store's eviction, forget or clear, whose removal
          // our open handle blocked: let go of it and remove the empty file.
          await s.file.close().catch(() => {});
          this.segments.delete(id);
          await fs.remove(segmentName(id)).catch(() => {});
          continue;
        }
        s.end = 0;
      }
      if (size > s.end) await this.scan(s, size);
    }
    return maxId;
  }

  /**
   * Take the segments (those `open` finds) and entries of a snapshot. A snapshot is
   * untrusted (its checksum only catches torn writes): an entry whose record would reach
   * past its segment's end or its file's real size, or whose fields are not sizes, is
   * skipped, so no read is ever sized by it. Returns the number of entries skipped.
   */
  async load(
    snap: SnapshotData,
    open: (id: number) => Promise<OpfsFile | undefined>,
  ): Promise<number> {
    this.tick = Number.isSafeInteger(snap.tick) ? snap.tick : 0;
    const ends = new Map<number, number>();
    for (const seg of snap.segments) {
      if (!Array.isArray(seg)) continue;
      const [id, end, lastUsed] = seg;
      if (!isCount(id) || this.segments.has(id)) continue;
      const file = await open(id);
      if (!file) continue;
      // A bad `end` reads as 0: catchUp then rescans the whole segment.
      const known = isCount(end) ? end : 0;
      this.segments.set(id, { id, file, end: known, lastUsed: isCount(lastUsed) ? lastUsed : 0 });
      ends.set(id, Math.min(known, await file.size()));
    }
    let skipped = 0;
    for (const entry of snap.entries) {
      const [key, segment, offset, keyLen, len, sum, time] = Array.isArray(entry) ? entry : [];
      const end = ends.get(segment as number);
      const bad =
        typeof key !== 'string' ||
        end === undefined ||
        ![offset, keyLen, len, sum].every(isCount) ||
        untrustedSizeError(
          `OPFS index entry ${JSON.stringify(key)}`,
          (offset as number) + recordSize(keyLen as number, len as number),
          { actual: end, actualName: `the end of segment ${segment}` },
        ) !== undefined;
      if (bad) {
        if (typeof key === 'string' && end !== undefined) skipped++;
        continue;
      }
      this.set(key, {
        segment,
        offset,
        keyLen,
        len,
        sum,
        time: isCount(time) ? time : 0,
      } as EntryLocation);
    }
    return skipped;
  }

  /** The index as a snapshot of generation `gen`. */
  snapshot(gen: number, next: number): SnapshotData {
    return {
      gen,
      next,
      tick: this.tick,
      segments: [...this.segments.values()].map((s) => [s.id, s.end, s.lastUsed]),
      entries: [...this.entries].map(([key, l]) => [
        key,
        l.segment,
        l.offset,
        l.keyLen,
        l.len,
        l.sum,
        l.time ?? 0,
      ]),
    };
  }
}
