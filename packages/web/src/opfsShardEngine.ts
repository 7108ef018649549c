import type { StoreUsage } from '@medfusion/core';
import type { FileBackend, ShardFile } from './opfsFiles.js';
import {
  decodeHead,
  type EntryLocation,
  encodeHead,
  FLAG_TOMBSTONE,
  keyBytes,
  parseHeader,
  RECORD_HEADER,
  recordSize,
  shardIdOf,
  shardName,
  verifyRecord,
  writeRecord,
} from './opfsFormat.js';
import { readNewestSnapshot, writeSnapshotFile } from './opfsSnapshotFiles.js';
import { isQuotaError, StoreError } from './storeErrors.js';

/** Settings of the shard engine (validated by OpfsStore). Internal. */
export interface EngineOptions {
  /** Byte budget for shard data. */
  maxBytes: number;
  /** Target shard size. */
  shardBytes: number;
  /** Simulated origin quota in bytes (tests), or undefined. */
  quotaBytes?: number;
  /** Delay before a changed index is snapshotted. */
  snapshotDelayMs: number;
}

/** Usage as the engine reports it. */
export interface EngineUsage extends StoreUsage {
  /** Bytes the shard files take (records, headers, superseded records). */
  diskBytes: number;
  /** Number of shard files. */
  shards: number;
  /** Whether sync handles or the async API back the store. */
  backend: 'sync' | 'async';
  /** Shards evicted since open. */
  evictedShards: number;
  /** Entries dropped because their bytes failed verification. */
  corruptDropped: number;
  /** QuotaExceededError seen since open. */
  quotaErrors: number;
}

interface Shard {
  id: number;
  file: ShardFile;
  end: number;
  lastUsed: number;
}

/** Runs `fn` under the directory's writer lock. */
export type LockFn = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * The OPFS store's logic, independent of where it runs and which file API
 * backs it: samples appended to large shard files, an in-memory index of
 * where each key lives (persisted as a snapshot plus recoverable tails),
 * whole-shard LRU eviction, checksums verified on every read. Internal:
 * use {@link OpfsStore}.
 */
export class OpfsShardEngine {
  private readonly shards = new Map<number, Shard>();
  private readonly entries = new Map<string, EntryLocation>();
  private head: ShardFile | undefined;
  private seq = 0;
  private next = 1;
  private tick = 0;
  private snapGen = 0;
  private dirty = false;
  private snapTimer: ReturnType<typeof setTimeout> | undefined;
  private liveBytes = 0;
  private counters = { evictedShards: 0, corruptDropped: 0, quotaErrors: 0 };
  private stale = false;
  /** Called after this engine changed the directory (the host tells other stores). */
  onChange: () => void = () => {};

  /** Another store on the directory changed it: re-check the head before the next read. */
  markStale(): void {
    this.stale = true;
  }

  constructor(
    private readonly fs: FileBackend,
    private readonly opts: EngineOptions,
    private readonly lock: LockFn,
  ) {}

  private diskBytes(): number {
    let total = 0;
    for (const s of this.shards.values()) total += s.end;
    return total;
  }

  /** Load the newest valid snapshot, then recover every record written after it. */
  async open(): Promise<void> {
    const headFile = await this.fs.open('head.bin', true);
    this.head = headFile;
    const best = await readNewestSnapshot(this.fs);
    const names = await this.fs.list();
    const onDisk = new Set(names.map(shardIdOf).filter((id): id is number => id !== undefined));
    if (best) {
      this.snapGen = best.gen;
      this.next = best.next;
      this.tick = best.tick;
      for (const [id, end, lastUsed] of best.shards) {
        if (!onDisk.has(id)) continue;
        const file = await this.fs.open(shardName(id), false);
        if (file) this.shards.set(id, { id, file, end, lastUsed });
      }
      for (const [key, shard, offset, keyLen, len, sum] of best.entries) {
        if (this.shards.has(shard)) this.setEntry(key, { shard, offset, keyLen, len, sum });
      }
    }
    await this.catchUp(names);
    const head = decodeHead((await headFile?.read(0, 16)) ?? new Uint8Array(0));
    this.seq = head.seq;
    this.next = Math.max(this.next, head.next);
  }

  private setEntry(key: string, loc: EntryLocation): void {
    const old = this.entries.get(key);
    if (old) this.liveBytes -= old.len;
    this.entries.set(key, loc);
    this.liveBytes += loc.len;
  }

  private dropEntry(key: string): boolean {
    const old = this.entries.get(key);
    if (!old) return false;
    this.entries.delete(key);
    this.liveBytes -= old.len;
    return true;
  }

  private dropShardEntries(id: number): void {
    for (const [key, loc] of this.entries) if (loc.shard === id) this.dropEntry(key);
  }

  /**
   * Bring the in-memory index up to what is on disk: new shards, tails
   * appended by other stores, shards evicted elsewhere. Records are applied
   * in (shard id, offset) order, so later writes win.
   */
  private async catchUp(names?: string[]): Promise<void> {
    const list = names ?? (await this.fs.list());
    const ids = list
      .map(shardIdOf)
      .filter((id): id is number => id !== undefined)
      .sort((a, b) => a - b);
    const present = new Set(ids);
    for (const [id, s] of this.shards) {
      if (!present.has(id)) {
        this.dropShardEntries(id);
        await s.file.close().catch(() => {});
        this.shards.delete(id);
      }
    }
    for (const id of ids) {
      let s = this.shards.get(id);
      if (!s) {
        const file = await this.fs.open(shardName(id), false);
        if (!file) continue;
        s = { id, file, end: 0, lastUsed: 0 };
        this.shards.set(id, s);
      }
      const size = await s.file.size();
      if (size < s.end) {
        // Evicted (truncated) by another store, or damaged: forget and rescan.
        this.dropShardEntries(id);
        s.end = 0;
      }
      if (size > s.end) await this.scan(s, size);
      this.next = Math.max(this.next, id + 1);
    }
  }

  /** Apply the valid records of `s` from `s.end` up to `size`; stop at the first torn one. */
  private async scan(s: Shard, size: number): Promise<void> {
    let pos = s.end;
    while (pos + RECORD_HEADER <= size) {
      const header = parseHeader(await s.file.read(pos, RECORD_HEADER));
      if (!header) break;
      const total = recordSize(header.keyLen, header.dataLen);
      if (pos + total > size) break;
      const rec = verifyRecord(await s.file.read(pos, total));
      if (!rec) break;
      if (rec.header.flags & FLAG_TOMBSTONE) this.dropEntry(rec.key);
      else {
        this.setEntry(rec.key, {
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

  /** Re-sync with disk when another store wrote since we last looked. */
  private async refreshIfChanged(): Promise<boolean> {
    if (!this.head) return false;
    const head = decodeHead(await this.head.read(0, 16));
    if (head.seq === this.seq) return false;
    await this.catchUp();
    this.seq = head.seq;
    this.next = Math.max(this.next, head.next);
    return true;
  }

  /** The bytes under `key`, verified; undefined when absent or corrupt. */
  async get(key: string): Promise<Uint8Array | undefined> {
    // Another store (tab) announced a write: re-read the head (one small read) first.
    if (this.stale) {
      this.stale = false;
      await this.refreshIfChanged();
    }
    let loc = this.entries.get(key);
    if (!loc && (await this.refreshIfChanged())) loc = this.entries.get(key);
    if (!loc) return undefined;
    let data = await this.readVerified(key, loc);
    if (!data && (await this.refreshIfChanged())) {
      loc = this.entries.get(key);
      if (!loc) return undefined;
      data = await this.readVerified(key, loc);
    }
    if (!data) {
      // Corrupt or torn: a miss, and the entry is gone for good.
      if (this.dropEntry(key)) this.counters.corruptDropped++;
      this.markDirty();
      return undefined;
    }
    const shard = this.shards.get(loc.shard);
    if (shard) shard.lastUsed = ++this.tick;
    return data;
  }

  private async readVerified(key: string, loc: EntryLocation): Promise<Uint8Array | undefined> {
    const shard = this.shards.get(loc.shard);
    if (!shard) return undefined;
    let bytes: Uint8Array;
    try {
      bytes = await shard.file.read(loc.offset, recordSize(loc.keyLen, loc.len));
    } catch {
      return undefined;
    }
    const rec = verifyRecord(bytes);
    if (
      !rec ||
      rec.key !== key ||
      rec.header.flags !== 0 ||
      rec.header.dataLen !== loc.len ||
      rec.header.dataSum !== loc.sum
    ) {
      return undefined;
    }
    return rec.data;
  }

  /** Whether `key` is indexed. */
  async has(key: string): Promise<boolean> {
    if (this.entries.has(key)) return true;
    return (await this.refreshIfChanged()) && this.entries.has(key);
  }

  /** Every indexed key. */
  async keys(): Promise<string[]> {
    await this.refreshIfChanged();
    return [...this.entries.keys()];
  }

  /**
   * Append a batch of puts (value) and deletes (undefined) under the writer
   * lock, flush them, and only then index them. Returns one error (or
   * undefined) per item.
   */
  writeBatch(
    items: { key: string; value: Uint8Array | undefined }[],
  ): Promise<(unknown | undefined)[]> {
    return this.lock(async () => {
      await this.refreshIfChanged();
      const results: (unknown | undefined)[] = new Array(items.length).fill(undefined);
      const todo: { i: number; key: Uint8Array; value: Uint8Array | undefined; size: number }[] =
        [];
      for (let i = 0; i < items.length; i++) {
        const item = items[i]!;
        if (item.value === undefined && !this.entries.has(item.key)) continue;
        const kb = keyBytes(item.key);
        if (kb.length > 0xffff) {
          results[i] = new RangeError(`key must be at most 65535 UTF-8 bytes, got ${kb.length}`);
          continue;
        }
        const size = recordSize(kb.length, item.value?.byteLength ?? 0);
        if (size > this.opts.maxBytes) {
          results[i] = new StoreError(
            'ENTRY_TOO_LARGE',
            `value for key ${JSON.stringify(item.key)} needs ${size} bytes, more than maxBytes ${this.opts.maxBytes}`,
          );
          continue;
        }
        todo.push({ i, key: kb, value: item.value, size });
      }
      let k = 0;
      while (k < todo.length) {
        // Fill one shard segment.
        let shard = this.activeShard();
        const first = todo[k]!;
        if (!shard || (shard.end > 0 && shard.end + first.size > this.opts.shardBytes)) {
          await this.makeRoom(first.size);
          shard = await this.newShard();
        } else {
          await this.makeRoom(first.size, shard.id);
          if (!this.shards.has(shard.id)) shard = await this.newShard();
        }
        let segBytes = 0;
        let j = k;
        while (j < todo.length) {
          const s = todo[j]!.size;
          if (
            j > k &&
            (shard.end + segBytes + s > this.opts.shardBytes ||
              this.diskBytes() + segBytes + s > this.opts.maxBytes)
          )
            break;
          segBytes += s;
          j++;
        }
        const seg = new Uint8Array(segBytes);
        const locs: { key: string; loc: EntryLocation | undefined }[] = [];
        let at = 0;
        for (let t = k; t < j; t++) {
          const item = todo[t]!;
          const flags = item.value === undefined ? FLAG_TOMBSTONE : 0;
          const sum = writeRecord(seg, at, item.key, item.value, flags);
          locs.push({
            key: items[item.i]!.key,
            loc:
              item.value === undefined
                ? undefined
                : {
                    shard: shard.id,
                    offset: shard.end + at,
                    keyLen: item.key.length,
                    len: item.value.byteLength,
                    sum,
                  },
          });
          at += item.size;
        }
        const err = await this.appendWithQuotaRetry(shard, seg);
        if (err !== undefined) {
          for (let t = k; t < todo.length; t++) results[todo[t]!.i] = err;
          break;
        }
        for (const { key, loc } of locs) {
          if (loc) this.setEntry(key, loc);
          else this.dropEntry(key);
        }
        shard.lastUsed = ++this.tick;
        k = j;
      }
      await this.bumpHead();
      this.markDirty();
      return results;
    });
  }

  private activeShard(): Shard | undefined {
    let best: Shard | undefined;
    for (const s of this.shards.values()) if (!best || s.id > best.id) best = s;
    return best;
  }

  private async newShard(): Promise<Shard> {
    const id = this.next++;
    const file = await this.fs.open(shardName(id), true);
    if (!file) throw new StoreError('STORE_FAILED', `could not create ${shardName(id)}`);
    await file.truncate(0);
    const s: Shard = { id, file, end: 0, lastUsed: ++this.tick };
    this.shards.set(id, s);
    return s;
  }

  /** Evict least recently used shards until `size` more bytes fit in maxBytes. */
  private async makeRoom(size: number, keep?: number): Promise<void> {
    while (this.diskBytes() + size > this.opts.maxBytes) {
      if (!(await this.evictOne(keep)) && !(await this.evictOne())) return;
    }
  }

  /** Evict the least recently used shard (other than `keep`); false when none. */
  private async evictOne(keep?: number): Promise<boolean> {
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
    if (!victim) return false;
    this.dropShardEntries(victim.id);
    this.shards.delete(victim.id);
    // Persist an index without the shard before its bytes go away.
    await this.writeSnapshot();
    await victim.file.truncate(0).catch(() => {});
    await victim.file.flush().catch(() => {});
    await victim.file.close().catch(() => {});
    await this.fs.remove(shardName(victim.id));
    this.counters.evictedShards++;
    return true;
  }

  /** Append `seg` at the shard's end and flush; on QuotaExceededError evict once and retry. */
  private async appendWithQuotaRetry(shard: Shard, seg: Uint8Array): Promise<unknown | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (
          this.opts.quotaBytes !== undefined &&
          this.diskBytes() + seg.length > this.opts.quotaBytes
        ) {
          throw new DOMException('simulated quota exceeded', 'QuotaExceededError');
        }
        await shard.file.write(shard.end, seg);
        await shard.file.flush();
        shard.end += seg.length;
        return undefined;
      } catch (err) {
        await shard.file.truncate(shard.end).catch(() => {});
        if (!isQuotaError(err))
          return new StoreError(
            'STORE_FAILED',
            `writing ${shardName(shard.id)} failed: ${String(err)}`,
            { cause: err },
          );
        this.counters.quotaErrors++;
        if (attempt === 0 && (await this.evictOne(shard.id))) continue;
        return new StoreError(
          'QUOTA_EXCEEDED',
          `storage quota exceeded writing ${seg.length} bytes, even after evicting`,
          { cause: err },
        );
      }
    }
    return new StoreError('QUOTA_EXCEEDED', 'storage quota exceeded');
  }

  private async bumpHead(): Promise<void> {
    if (!this.head) return;
    const head = decodeHead(await this.head.read(0, 16));
    this.seq = Math.max(head.seq, this.seq) + 1;
    this.next = Math.max(this.next, head.next);
    await this.head.write(0, encodeHead({ seq: this.seq, next: this.next }));
    await this.head.flush();
    this.onChange();
  }

  private markDirty(): void {
    this.dirty = true;
    if (this.snapTimer === undefined) {
      this.snapTimer = setTimeout(() => {
        this.snapTimer = undefined;
        this.lock(() => this.writeSnapshot()).catch(() => {});
      }, this.opts.snapshotDelayMs);
    }
  }

  /** Write the index to the older of the two snapshot files (caller holds the lock). */
  private async writeSnapshot(): Promise<void> {
    if (this.snapTimer !== undefined) {
      clearTimeout(this.snapTimer);
      this.snapTimer = undefined;
    }
    this.snapGen = await writeSnapshotFile(this.fs, this.snapGen, (gen) => ({
      gen,
      next: this.next,
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
    }));
    this.dirty = false;
  }

  /** Persist the index now if it changed. */
  async persistIndex(): Promise<void> {
    if (this.dirty) await this.lock(() => this.writeSnapshot());
  }

  /** Remove every shard and entry. */
  clear(): Promise<void> {
    return this.lock(async () => {
      await this.catchUp();
      this.entries.clear();
      this.liveBytes = 0;
      for (const s of this.shards.values()) {
        await s.file.truncate(0).catch(() => {});
        await s.file.close().catch(() => {});
        await this.fs.remove(shardName(s.id));
      }
      this.shards.clear();
      await this.writeSnapshot();
      await this.bumpHead();
    });
  }

  /** Bytes, entries and shard figures. */
  async usage(): Promise<EngineUsage> {
    await this.refreshIfChanged();
    return {
      bytes: this.liveBytes,
      entries: this.entries.size,
      maxBytes: this.opts.maxBytes,
      diskBytes: this.diskBytes(),
      shards: this.shards.size,
      backend: this.fs.kind,
      ...this.counters,
    };
  }

  /** Persist the index and release every handle. */
  async close(): Promise<void> {
    await this.persistIndex().catch(() => {});
    if (this.snapTimer !== undefined) clearTimeout(this.snapTimer);
    for (const s of this.shards.values()) await s.file.close().catch(() => {});
    this.shards.clear();
    await this.head?.close().catch(() => {});
    this.head = undefined;
  }
}
