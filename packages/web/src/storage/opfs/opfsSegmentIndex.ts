import type { ShardFile } from './opfsFiles.js';
import {
  type EntryLocation,
  FLAG_TOMBSTONE,
  parseHeader,
  RECORD_HEADER,
  recordSize,
  type SnapshotData,
  verifyRecord,
} from './opfsFormat.js';

/** One open shard file and what the index knows of it. Internal. */
export interface Shard {
  /** Shard id (its file is `shardName(id)`). */
  id: number;
  /** The open file. */
  file: ShardFile;
  /** Bytes of valid records; the next append goes here. */
  end: number;
  /** LRU clock value of the last read or write. */
  lastUsed: number;
}

/**
 * The OPFS store's in-memory index: where each key lives, which shards
 * exist, the live byte count, the LRU clock and the eviction choice. It is
 * rebuilt from a snapshot plus a scan of the shard tails, and written back
 * as a snapshot. Internal: {@link OpfsShardEngine} does the file I/O around it.
 */
export class OpfsShardIndex {
  /** Open shards by id. */
  readonly shards = new Map<number, Shard>();
  /** Location of every live key. */
  readonly entries = new Map<string, EntryLocation>();
  /** Sum of the live values' lengths. */
  liveBytes = 0;
  /** LRU clock. */
  tick = 0;

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

  /** Forget every key stored in shard `id`. */
  dropShardEntries(id: number): void {
    for (const [key, loc] of this.entries) if (loc.shard === id) this.drop(key);
  }

  /** Forget every entry and shard (the caller closes the files). */
  clear(): void {
    this.entries.clear();
    this.shards.clear();
    this.liveBytes = 0;
  }

  /** Bytes the shard files take. */
  diskBytes(): number {
    let total = 0;
    for (const s of this.shards.values()) total += s.end;
    return total;
  }

  /** The shard appends go to (the newest), if any. */
  active(): Shard | undefined {
    let best: Shard | undefined;
    for (const s of this.shards.values()) if (!best || s.id > best.id) best = s;
    return best;
  }

  /** Mark `shard` as just used. */
  touch(shard: Shard): void {
    shard.lastUsed = ++this.tick;
  }

  /** Eviction policy: the least recently used shard other than `keep` (oldest id on ties). */
  lruVictim(keep?: number): Shard | undefined {
    let victim: Shard | undefined;
    for (const s of this.shards.values()) {
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
  async scan(s: Shard, size: number): Promise<void> {
    let pos = s.end;
    while (pos + RECORD_HEADER <= size) {
      const header = parseHeader(await s.file.read(pos, RECORD_HEADER));
      if (!header) break;
      const total = recordSize(header.keyLen, header.dataLen);
      if (pos + total > size) break;
      const rec = verifyRecord(await s.file.read(pos, total));
      if (!rec) break;
      if (rec.header.flags & FLAG_TOMBSTONE) this.drop(rec.key);
      else {
        this.set(rec.key, {
          shard: s.id,
          offset: pos,
          keyLen: header.keyLen,
          len: header.dataLen,
          sum: header.dataSum,
        });
      }
      pos += total;
    }
    s.end = pos;
  }

  /** Take the shards (those `open` finds) and entries of a snapshot. */
  async load(
    snap: SnapshotData,
    open: (id: number) => Promise<ShardFile | undefined>,
  ): Promise<void> {
    this.tick = snap.tick;
    for (const [id, end, lastUsed] of snap.shards) {
      const file = await open(id);
      if (file) this.shards.set(id, { id, file, end, lastUsed });
    }
    for (const [key, shard, offset, keyLen, len, sum] of snap.entries) {
      if (this.shards.has(shard)) this.set(key, { shard, offset, keyLen, len, sum });
    }
  }

  /** The index as a snapshot of generation `gen`. */
  snapshot(gen: number, next: number): SnapshotData {
    return {
      gen,
      next,
      tick: this.tick,
      shards: [...this.shards.values()].map((s) => [s.id, s.end, s.lastUsed]),
      entries: [...this.entries].map(([key, l]) => [
        key,
        l.shard,
        l.offset,
        l.keyLen,
        l.len,
        l.sum,
      ]),
    };
  }
}
