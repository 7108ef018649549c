import {
  dataSumOf,
  type EntryLocation,
  FLAG_TOMBSTONE,
  recordSize,
  sealRecord,
  segmentName,
  verifyRecord,
} from './opfsFormat.js';
import { type PurgeMatch, purgeMatches, segmentHolds } from './opfsPurge.js';
import type { Segment } from './opfsSegmentIndex.js';
import { OpfsSegmentReads } from './opfsSegmentReads.js';
import { wipePlainRecords } from './opfsWipe.js';
import {
  appendEnd,
  type BatchPlan,
  checkedKeyLength as keyLength,
  packRecords,
  planBatch,
} from './opfsWritePlan.js';

export type { ReadCheck } from './opfsSegmentReads.js';

/**
 * The OPFS store's logic, independent of where it runs and which file API
 * backs it: samples appended to large segment files, an in-memory index of
 * where each key lives (persisted as a snapshot plus recoverable tails),
 * whole-segment LRU eviction, checksums verified on every read. Internal:
 * use {@link OpfsStore}. Its reads are {@link OpfsSegmentReads}', its state and shared parts
 * {@link OpfsEngineBase}'s.
 */
export class OpfsSegmentEngine extends OpfsSegmentReads {
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
    /** Records this batch supersedes or deletes: wiped once the batch is written. */
    const gone: [string, EntryLocation][] = [];
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
          const old = this.index.entries.get(keys[t]!);
          if (old) gone.push([keys[t]!, old]);
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
      // After the head moved: a reader that finds a wiped record re-reads the head, then the new one.
      await this.wipe(gone);
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

  /**
   * Wipe every plain record in the segments (opfsWipe.ts, wipePlainRecords): the host runs it
   * when the directory is opened with an encryption key for the first time. Live ones are
   * dropped and counted in `plainDropped`. `then` runs after, still under the writer lock
   * (the host marks the directory sealed there: two stores opening it at once do not both
   * write the marker, which exclusive handles refuse).
   */
  async wipePlain(then: () => Promise<void>): Promise<void> {
    await this.locked(async () => {
      await this.catchUp();
      const files = await wipePlainRecords(
        [...this.index.segments.values()],
        this.valueChecksum,
        (key, s, at) => {
          const loc = this.index.entries.get(key);
          if (loc?.segment === s.id && loc.offset === at && this.index.drop(key))
            this.counters.plainDropped++;
        },
      );
      if (files.length > 0) {
        for (const f of files) this.commit.wrote(f);
        this.snapshots.markDirty();
        await this.bumpHead();
        this.onChange();
        await this.commit.flush();
      }
      await then();
    });
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
