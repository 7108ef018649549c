import { isQuotaError } from '@medfusion/core';
import { StoreError } from '../storeErrors.js';
import { type ValueChecksum, XXH64_TAG } from '../ValueChecksum.js';
import type { EngineCounters, EngineOptions, EngineUsage, WriterLock } from './opfsEngineTypes.js';
import { OpfsEvictor } from './opfsEvictor.js';
import type { FileBackend, OpfsFile } from './opfsFiles.js';
import {
  dataSumOf,
  decodeHead,
  type EntryLocation,
  encodeHead,
  FLAG_ENCRYPTED,
  FLAG_TOMBSTONE,
  isLegacySegmentName,
  recordSize,
  sealRecord,
  segmentIdOf,
  segmentName,
  verifyEntry,
  verifyEntryHeader,
  verifyRecord,
} from './opfsFormat.js';
import { GroupCommit } from './opfsGroupCommit.js';
import { type PurgeMatch, purgeMatches, segmentHolds } from './opfsPurge.js';
import { OpfsSegmentIndex, type Segment } from './opfsSegmentIndex.js';
import { readNewestSnapshot } from './opfsSnapshotFiles.js';
import { OpfsSnapshotWriter } from './opfsSnapshotWriter.js';
import {
  appendEnd,
  type BatchPlan,
  checkedKeyLength as keyLength,
  packRecords,
  planBatch,
} from './opfsWritePlan.js';

/**
 * Who checks the values of a read batch: all here, or the caller (all, or only
 * the xxHash32 ones). Internal.
 */
export type ReadCheck = 'here' | 'caller' | 'caller-xxh32';

/** Marks a read the sync fast path leaves to the async one. */
const SLOW_PATH = Symbol('slow path');
/** Marks an intact plain record read by an encrypting engine. */
const PLAIN = Symbol('plain record');

/**
 * The OPFS store's logic, independent of where it runs and which file API
 * backs it: samples appended to large segment files, an in-memory index of
 * where each key lives (persisted as a snapshot plus recoverable tails),
 * whole-segment LRU eviction, checksums verified on every read. Internal:
 * use {@link OpfsStore}.
 */
export class OpfsSegmentEngine {
  private readonly index: OpfsSegmentIndex;
  private head: OpfsFile | undefined;
  private seq = 0;
  private next = 1;
  private readonly counters: EngineCounters = {
    evictedSegments: 0,
    corruptDropped: 0,
    quotaErrors: 0,
    plainDropped: 0,
  };
  /** The record flags this engine reads (its mode: FLAG_ENCRYPTED or 0). */
  private readonly flags: number;
  private stale = false;
  /** The lock's `taken` count when this engine last wrote `head.bin` (-1: not under this hold). */
  private headTaken = -1;
  private readonly commit: GroupCommit;
  private readonly snapshots: OpfsSnapshotWriter;
  private readonly evictor: OpfsEvictor;
  /** The buffer reads with `reuse` go into (see {@link readEach}). */
  private scratch = new Uint8Array(0);

  /**
   * Records written before this time (seconds since the epoch) are expired:
   * read as misses until a purge deletes them. Set by the host from the
   * page's clock (`maxAge`); 0: none.
   */
  minTime = 0;

  /** Another store on the directory changed it: re-check the head before the next read. */
  markStale(): void {
    this.stale = true;
  }

  constructor(
    private readonly fs: FileBackend,
    private readonly opts: EngineOptions,
    private readonly lock: WriterLock,
    /** Seals the values written and checks those read. */
    private readonly valueChecksum: ValueChecksum,
    /** Called after this engine changed the directory (the host tells other stores). */
    private readonly onChange: () => void = () => {},
  ) {
    this.flags = opts.encrypted ? FLAG_ENCRYPTED : 0;
    this.index = new OpfsSegmentIndex(valueChecksum);
    this.commit = new GroupCommit(
      opts.flushDelayMs,
      () => {
        this.locked(async () => this.commit.commitAside()).catch(() => {});
      },
      (err) => {
        if (isQuotaError(err)) this.counters.quotaErrors++;
      },
    );
    this.snapshots = new OpfsSnapshotWriter(
      fs,
      this.index,
      this.commit,
      opts.snapshotDelayMs,
      () => this.next,
      () => {
        this.locked(() => this.snapshots.write()).catch(() => {});
      },
    );
    this.evictor = new OpfsEvictor(
      fs,
      this.index,
      this.commit,
      this.snapshots,
      this.counters,
      opts,
    );
  }

  /** Load the newest valid snapshot, then recover every record written after it. */
  async open(): Promise<void> {
    const headFile = await this.fs.open('head.bin', true);
    this.head = headFile;
    const best = await readNewestSnapshot(this.fs);
    const names = await this.fs.list();
    for (const name of names) if (isLegacySegmentName(name)) await this.fs.remove(name);
    const onDisk = new Set(names.map(segmentIdOf).filter((id): id is number => id !== undefined));
    if (best) {
      this.snapshots.resume(best.gen);
      this.next = best.next;
      const skipped = await this.index.load(best, async (id) =>
        onDisk.has(id) ? this.fs.open(segmentName(id), false) : undefined,
      );
      // Entries the snapshot placed past their segment: dropped, and the snapshot rewritten.
      if (skipped > 0) {
        this.counters.corruptDropped += skipped;
        this.snapshots.markDirty();
      }
    }
    await this.catchUp(names);
    const head = decodeHead((await headFile?.read(0, 16)) ?? new Uint8Array(0));
    this.seq = head.seq;
    this.next = Math.max(this.next, head.next);
  }

  /** Bring the index up to what is on disk (see {@link OpfsSegmentIndex.catchUp}). */
  private async catchUp(names?: string[]): Promise<void> {
    const maxId = await this.index.catchUp(this.fs, names ?? (await this.fs.list()));
    this.next = Math.max(this.next, maxId + 1);
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
    let loc = this.index.entries.get(key);
    if (!loc && (await this.refreshIfChanged())) loc = this.index.entries.get(key);
    if (!loc || (loc.time ?? 0) < this.minTime) return undefined;
    let data = await this.readVerified(key, loc);
    if (!data && (await this.refreshIfChanged())) {
      loc = this.index.entries.get(key);
      if (!loc) return undefined;
      data = await this.readVerified(key, loc);
    }
    if (data === PLAIN) {
      // Plaintext where the app asked for encryption: a miss, never returned.
      if (this.index.drop(key)) this.counters.plainDropped++;
      this.snapshots.markDirty();
      return undefined;
    }
    if (!data) {
      // Corrupt or torn: a miss, and the entry is gone for good.
      if (this.index.drop(key)) this.counters.corruptDropped++;
      this.snapshots.markDirty();
      return undefined;
    }
    const segment = this.index.segments.get(loc.segment);
    if (segment) this.index.touch(segment);
    return data;
  }

  /**
   * Serve a batch of reads. Indexed keys in sync-handle segments are read and
   * verified with no await (one after the other, in this task); anything
   * else (a miss, a stale view, a failed check, the async file API) takes
   * {@link get}, which re-syncs with disk and drops a corrupt entry.
   */
  async getMany(keys: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    const out: (Uint8Array | undefined)[] = new Array(keys.length);
    await this.readEach(keys, 'here', (i, value) => {
      out[i] = value;
    });
    return out;
  }

  /**
   * Serve a batch of reads like {@link getMany}, handing each value to `each`
   * as soon as it is read. With `check` `'caller'`, a value read on the sync
   * fast path comes with the checksum its bytes must have (`sum`), which the
   * caller checks before trusting them (on its own thread, while this one
   * reads on); `'caller-xxh32'` does so only for xxHash32 checksums (a caller
   * without WebAssembly); every other value is verified here and comes with
   * `sum` -1.
   */
  async readEach(
    keys: readonly string[],
    check: ReadCheck,
    each: (i: number, value: Uint8Array | undefined, sum: number) => void,
    /**
     * Read the fast path's values into one reused buffer instead of a fresh
     * one each: a value is then a view that the next read overwrites, so
     * `each` must be done with it (or have copied it) when it returns. For a
     * caller that copies anyway (WebCrypto copies what it decrypts): a fresh
     * 150 KB buffer costs a worker its zeroing and page faults.
     */
    reuse = false,
  ): Promise<void> {
    // One 16-byte read per batch: a write by another store (tab) is seen at
    // once, even before its broadcast arrives.
    if (!this.stale && this.head?.readSync) {
      try {
        if (decodeHead(this.head.readSync(0, 16)).seq !== this.seq) this.stale = true;
      } catch {
        this.stale = true;
      }
    }
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const loc = this.stale ? undefined : this.index.entries.get(key);
      if (loc && (loc.time ?? 0) < this.minTime) {
        each(i, undefined, -1); // expired: a miss (a purge deletes it)
        continue;
      }
      const verifyData =
        check === 'here' || (check === 'caller-xxh32' && loc !== undefined && loc.sum >= XXH64_TAG);
      const fast = loc ? this.getSync(key, loc, verifyData, reuse) : SLOW_PATH;
      if (fast === SLOW_PATH) each(i, await this.get(key), -1);
      else each(i, fast, verifyData ? -1 : loc!.sum);
    }
  }

  /**
   * A read of the indexed entry `loc` without await, verified (the value's
   * checksum only when `verifyData`), or SLOW_PATH when {@link get} must decide.
   */
  private getSync(
    key: string,
    loc: EntryLocation,
    verifyData: boolean,
    reuse = false,
  ): Uint8Array | typeof SLOW_PATH {
    const segment = this.index.segments.get(loc.segment);
    if (!segment?.file.readSync) return SLOW_PATH;
    let bytes: Uint8Array;
    try {
      const size = recordSize(loc.keyLen, loc.len);
      if (reuse && this.scratch.length < size) {
        this.scratch = new Uint8Array(2 ** Math.ceil(Math.log2(size)));
      }
      bytes = segment.file.readSync(loc.offset, size, reuse ? this.scratch : undefined);
    } catch {
      return SLOW_PATH;
    }
    const data = verifyData
      ? verifyEntry(bytes, key, loc, this.valueChecksum, this.flags)
      : verifyEntryHeader(bytes, key, loc, this.flags);
    if (!data) return SLOW_PATH;
    this.index.touch(segment);
    return data;
  }

  /** The verified value at `loc`; PLAIN for an intact plain record where this engine encrypts. */
  private async readVerified(
    key: string,
    loc: EntryLocation,
  ): Promise<Uint8Array | undefined | typeof PLAIN> {
    const segment = this.index.segments.get(loc.segment);
    if (!segment) return undefined;
    try {
      const bytes = await segment.file.read(loc.offset, recordSize(loc.keyLen, loc.len));
      const data = verifyEntry(bytes, key, loc, this.valueChecksum, this.flags);
      if (data || !this.flags) return data;
      return verifyEntry(bytes, key, loc, this.valueChecksum, 0) ? PLAIN : undefined;
    } catch {
      return undefined;
    }
  }

  /** Where `key` lives now, as indexed (a new object whenever the key is written). */
  entryOf(key: string): EntryLocation | undefined {
    return this.index.entries.get(key);
  }

  /** Whether `key` is indexed. */
  async has(key: string): Promise<boolean> {
    if (this.index.entries.has(key)) return true;
    return (await this.refreshIfChanged()) && this.index.entries.has(key);
  }

  /** Every indexed key. */
  async keys(): Promise<string[]> {
    await this.refreshIfChanged();
    return [...this.index.entries.keys()];
  }

  /**
   * Append a packed batch (see packRecords; each record is sealed here, in
   * place, right before it is written) under the writer lock, then index it;
   * `keys` names its records. The bytes are written with one sequential
   * write per segment touched and are readable at once, by this store,
   * another one or a reloaded page; the flush that makes them survive an OS
   * crash follows within `flushDelayMs`, once for everything written
   * meanwhile (at once when it is 0). Returns one error (or undefined) per
   * record.
   */
  async writeBatch(bytes: Uint8Array, keys: readonly string[]): Promise<(unknown | undefined)[]> {
    const plan = planBatch(bytes, keys, this.opts.maxBytes);
    return this.locked(() => this.appendLocked(bytes, keys, plan));
  }

  /** {@link writeBatch}'s body, holding the writer lock. */
  private async appendLocked(
    bytes: Uint8Array,
    keys: readonly string[],
    plan: BatchPlan,
  ): Promise<(unknown | undefined)[]> {
    const { results, starts, ends } = plan;
    {
      // Held since this engine's last write: no other store wrote meanwhile.
      if (this.headTaken !== this.lock.taken) await this.refreshIfChanged();
      let k = 0;
      while (k < keys.length && results[k] !== undefined) k++;
      while (k < keys.length) {
        // Fill one append to the active segment.
        let segment = this.index.active();
        const firstSize = ends[k]! - starts[k]!;
        if (!segment || (segment.end > 0 && segment.end + firstSize > this.opts.segmentBytes)) {
          await this.evictor.makeRoom(firstSize);
          segment = await this.newSegment();
        } else {
          await this.evictor.makeRoom(firstSize, segment.id);
          if (!this.index.segments.has(segment.id)) segment = await this.newSegment();
        }
        const room = Math.min(
          this.opts.segmentBytes - segment.end,
          this.opts.maxBytes - this.index.diskBytes(),
        );
        const j = appendEnd(plan, k, room);
        for (let t = k; t < j; t++) sealRecord(bytes, starts[t]!, this.valueChecksum);
        const base = segment.end - starts[k]!;
        // A view into the batch buffer: no copy on the way to the disk.
        const err = await this.evictor.appendWithQuotaRetry(
          segment,
          bytes.subarray(starts[k]!, ends[j - 1]!),
        );
        if (err !== undefined) {
          for (let t = k; t < keys.length; t++) results[t] ??= err;
          break;
        }
        for (let t = k; t < j; t++) {
          const at = starts[t]!;
          const dv = new DataView(bytes.buffer, bytes.byteOffset + at, 24);
          if (dv.getUint16(4, true) & FLAG_TOMBSTONE) this.index.drop(keys[t]!);
          else {
            this.index.set(keys[t]!, {
              segment: segment.id,
              offset: base + at,
              keyLen: dv.getUint16(6, true),
              len: dv.getUint32(8, true),
              sum: dataSumOf(dv),
              time: dv.getUint32(20, true),
            });
          }
        }
        this.index.touch(segment);
        k = j;
        while (k < keys.length && results[k] !== undefined) k++;
      }
      await this.bumpHead();
      this.onChange();
      this.snapshots.markDirty();
      if (!this.commit.schedule()) await this.commit.flush();
      return results;
    }
  }

  /**
   * Delete for real every record that `m` matches (a data set's keys, or
   * records older than `m.minTime`): each segment holding one, live or
   * superseded, is removed whole after the live records of others in it are
   * appended again (verified, as they were: sealed ones stay sealed).
   * Returns how many live entries went.
   */
  async purge(m: PurgeMatch): Promise<number> {
    return this.locked(async () => {
      await this.catchUp();
      const doomed: Segment[] = [];
      for (const s of this.index.segments.values()) if (await segmentHolds(s, m)) doomed.push(s);
      let removed = 0;
      for (const [key, loc] of [...this.index.entries]) {
        if (purgeMatches(m, key, loc.time ?? 0) && this.index.drop(key)) removed++;
      }
      if (doomed.length === 0) return removed;
      // The others' live records in those segments, checked before they are written again.
      const ids = new Set(doomed.map((s) => s.id));
      const keep: Uint8Array[] = [];
      const keepKeys: string[] = [];
      for (const [key, loc] of this.index.entries) {
        if (!ids.has(loc.segment)) continue;
        const s = this.index.segments.get(loc.segment)!;
        const bytes = await s.file
          .read(loc.offset, recordSize(loc.keyLen, loc.len))
          .catch(() => undefined);
        const rec = bytes && verifyRecord(bytes, this.valueChecksum);
        if (rec && rec.key === key) {
          keep.push(bytes);
          keepKeys.push(key);
        }
      }
      await this.commit.idle();
      for (const s of doomed) {
        this.index.dropSegmentEntries(s.id);
        this.index.segments.delete(s.id);
        this.commit.forget(s.file);
      }
      // Persist an index without them before their bytes go away.
      await this.snapshots.write();
      for (const s of doomed) {
        await s.file.truncate(0).catch(() => {});
        await s.file.flush().catch(() => {});
        await s.file.close().catch(() => {});
        await this.fs.remove(segmentName(s.id));
      }
      if (keep.length > 0) {
        let total = 0;
        for (const b of keep) total += b.length;
        const batch = new Uint8Array(total);
        let at = 0;
        for (const b of keep) {
          batch.set(b, at);
          at += b.length;
        }
        await this.appendLocked(batch, keepKeys, planBatch(batch, keepKeys, this.opts.maxBytes));
      } else {
        await this.bumpHead();
        this.onChange();
        this.snapshots.markDirty();
      }
      return removed;
    });
  }

  /** Write one tombstone for `key` (when indexed); true when it was. */
  async deleteKey(key: string): Promise<boolean> {
    if (!(await this.has(key))) return false;
    const [err] = await this.writeBatch(
      packRecords([{ key, keyLen: keyLength(key), value: undefined }]),
      [key],
    );
    if (err) throw err;
    return true;
  }

  /** Make everything written so far durable (the flush of the group commit, now). */
  async flush(): Promise<void> {
    this.commit.cancel();
    await this.locked(async () => {
      await this.commit.flush();
      // a timed commit that failed on the flush thread since the last flush()
      this.commit.throwFailure();
    });
  }

  /**
   * Run `fn` under the writer lock; let go of it afterwards unless a group
   * commit is pending (then the commit lets go).
   */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.lock.run(fn);
    } finally {
      if (!this.commit.pending) void this.lock.release();
    }
  }

  private async newSegment(): Promise<Segment> {
    const id = this.next++;
    const file = await this.fs.open(segmentName(id), true);
    if (!file) throw new StoreError('STORE_FAILED', `could not create ${segmentName(id)}`);
    await file.truncate(0);
    const s: Segment = { id, file, end: 0, lastUsed: ++this.index.tick };
    this.index.segments.set(id, s);
    return s;
  }

  /** Bump the write sequence in `head.bin` (the caller holds the lock and tells others after). */
  private async bumpHead(): Promise<void> {
    if (!this.head) return;
    // Read it first unless this engine wrote it last under the same hold of the lock.
    if (this.headTaken !== this.lock.taken) {
      const head = decodeHead(await this.head.read(0, 16));
      this.seq = Math.max(head.seq, this.seq);
      this.next = Math.max(this.next, head.next);
    }
    this.seq++;
    await this.head.write(0, encodeHead({ seq: this.seq, next: this.next }));
    this.headTaken = this.lock.taken;
    // Not flushed: other stores read it through the OS at once, and recovery after an OS
    // crash needs none of it (segments and snapshots carry the entries, the segment files
    // on disk the next id), so the group commit pays one fsync, not two.
  }

  /** Persist the index now if it changed. */
  async persistIndex(): Promise<void> {
    if (this.snapshots.dirty) await this.locked(() => this.snapshots.write());
  }

  /** Remove every segment and entry. */
  clear(): Promise<void> {
    return this.locked(async () => {
      await this.catchUp();
      // The flush thread lets go of the files before they are removed.
      await this.commit.idle();
      for (const s of this.index.segments.values()) this.commit.forget(s.file);
      for (const s of this.index.segments.values()) {
        await s.file.truncate(0).catch(() => {});
        await s.file.close().catch(() => {});
        await this.fs.remove(segmentName(s.id));
      }
      this.index.clear();
      await this.snapshots.write();
      await this.bumpHead();
      this.onChange();
    });
  }

  /** Bytes, entries and segment figures. */
  async usage(): Promise<EngineUsage> {
    await this.refreshIfChanged();
    return {
      bytes: this.index.liveBytes,
      entries: this.index.entries.size,
      maxBytes: this.opts.maxBytes,
      diskBytes: this.index.diskBytes(),
      segments: this.index.segments.size,
      backend: this.fs.kind,
      checksumAlgorithm: this.valueChecksum.algorithm,
      ...this.counters,
      flushes: this.commit.count,
      flushesAside: this.commit.asideCount,
    };
  }

  /** Persist the index and release every handle. */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    await this.persistIndex().catch(() => {});
    this.snapshots.cancel();
    await this.lock.release();
    for (const s of this.index.segments.values()) await s.file.close().catch(() => {});
    this.index.segments.clear();
    await this.head?.close().catch(() => {});
    this.head = undefined;
  }
}
