import { isQuotaError } from '@medfusion/core';
import { StoreError } from '../storeErrors.js';
import type { ValueChecksum } from '../ValueChecksum.js';
import type { EngineCounters, EngineOptions, EngineUsage, WriterLock } from './opfsEngineTypes.js';
import { OpfsEvictor } from './opfsEvictor.js';
import type { FileBackend, OpfsFile } from './opfsFiles.js';
import {
  decodeHead,
  type EntryLocation,
  encodeHead,
  FLAG_ENCRYPTED,
  isLegacySegmentName,
  segmentIdOf,
  segmentName,
} from './opfsFormat.js';
import { GroupCommit } from './opfsGroupCommit.js';
import { OpfsSegmentIndex, type Segment } from './opfsSegmentIndex.js';
import { readNewestSnapshot } from './opfsSnapshotFiles.js';
import { OpfsSnapshotWriter } from './opfsSnapshotWriter.js';
import { wipeRecordOf } from './opfsWipe.js';

/**
 * The state of the OPFS segment engine and what every part of it shares: the index and the
 * segment files, the directory head (`head.bin`) and catching up with other stores, the writer
 * lock, the group commit, snapshots and eviction, and secure delete (wiped records). The reads
 * ({@link OpfsSegmentReads}) and the writes ({@link OpfsSegmentEngine}) build on it. Internal.
 */
export abstract class OpfsEngineBase {
  protected readonly index: OpfsSegmentIndex;

  protected head: OpfsFile | undefined;

  protected seq = 0;

  protected next = 1;

  protected readonly counters: EngineCounters = {
    evictedSegments: 0,
    corruptDropped: 0,
    quotaErrors: 0,
    plainDropped: 0,
  };

  /** The record flags this engine reads (its mode: FLAG_ENCRYPTED or 0). */
  protected readonly flags: number;

  protected stale = false;

  /** The lock's `taken` count when this engine last wrote `head.bin` (-1: not under this hold). */
  protected headTaken = -1;

  protected readonly commit: GroupCommit;

  protected readonly snapshots: OpfsSnapshotWriter;

  protected readonly evictor: OpfsEvictor;

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
    protected readonly fs: FileBackend,
    protected readonly opts: EngineOptions,
    protected readonly lock: WriterLock,
    /** Seals the values written and checks those read. */
    protected readonly valueChecksum: ValueChecksum,
    readonly onChange: () => void = () => {},
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
  protected async catchUp(names?: string[]): Promise<void> {
    const maxId = await this.index.catchUp(this.fs, names ?? (await this.fs.list()));
    this.next = Math.max(this.next, maxId + 1);
  }

  /** Re-sync with disk when another store wrote since we last looked. */
  protected async refreshIfChanged(): Promise<boolean> {
    if (!this.head) return false;
    const head = decodeHead(await this.head.read(0, 16));
    if (head.seq === this.seq) return false;
    await this.catchUp();
    this.seq = head.seq;
    this.next = Math.max(this.next, head.next);
    return true;
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
   * Overwrite the records in `gone` (superseded or deleted) in their segments with wiped
   * records (opfsWipe.ts), holding the writer lock; a record whose segment went meanwhile
   * went with it. A write that fails leaves the record to its segment's eviction: the index
   * no longer names it, so it is never read.
   */
  protected async wipe(gone: readonly [string, EntryLocation][]): Promise<void> {
    for (const [key, loc] of gone) {
      const segment = this.index.segments.get(loc.segment);
      if (!segment) continue;
      try {
        if (await wipeRecordOf(segment.file, key, loc, this.valueChecksum)) {
          this.commit.wrote(segment.file);
        }
      } catch {
        // left for its segment's eviction
      }
    }
  }

  /**
   * Drop `key`, found unusable at `loc` (corrupt, or plain under a key), from the index now,
   * and wipe its record behind the read, under the writer lock. True when it was indexed.
   */
  protected discard(key: string, loc: EntryLocation): boolean {
    const had = this.index.drop(key);
    this.snapshots.markDirty();
    void this.locked(async () => {
      await this.wipe([[key, loc]]);
      if (!this.commit.schedule()) await this.commit.flush();
    }).catch(() => {});
    return had;
  }

  /**
   * Run `fn` under the writer lock; let go of it afterwards unless a group
   * commit is pending (then the commit lets go).
   */
  protected async locked<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.lock.run(fn);
    } finally {
      if (!this.commit.pending) void this.lock.release();
    }
  }

  protected async newSegment(): Promise<Segment> {
    const id = this.next++;
    const file = await this.fs.open(segmentName(id), true);
    if (!file) throw new StoreError('STORE_FAILED', `could not create ${segmentName(id)}`);
    await file.truncate(0);
    const s: Segment = { id, file, end: 0, lastUsed: ++this.index.tick };
    this.index.segments.set(id, s);
    return s;
  }

  /** Bump the write sequence in `head.bin` (the caller holds the lock and tells others after). */
  protected async bumpHead(): Promise<void> {
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
}
