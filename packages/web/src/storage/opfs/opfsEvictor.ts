import { isQuotaError } from '@medfusion/core';
import { StoreError } from '../storeErrors.js';
import type { EngineCounters, EngineOptions } from './opfsEngineTypes.js';
import type { FileBackend } from './opfsFiles.js';
import { segmentName } from './opfsFormat.js';
import type { GroupCommit } from './opfsGroupCommit.js';
import type { OpfsSegmentIndex, Segment } from './opfsSegmentIndex.js';
import type { OpfsSnapshotWriter } from './opfsSnapshotWriter.js';

/**
 * The segment engine's space keeping: whole-segment LRU eviction under
 * `maxBytes`, and appends that evict once and retry on QuotaExceededError.
 * Built once by {@link OpfsSegmentEngine}. Internal.
 */
export class OpfsEvictor {
  constructor(
    private readonly fs: FileBackend,
    private readonly index: OpfsSegmentIndex,
    private readonly commit: GroupCommit,
    private readonly snapshots: OpfsSnapshotWriter,
    private readonly counters: EngineCounters,
    private readonly opts: EngineOptions,
  ) {}

  /** Evict least recently used segments until `size` more bytes fit in maxBytes. */
  async makeRoom(size: number, keep?: number): Promise<void> {
    while (this.index.diskBytes() + size > this.opts.maxBytes) {
      if (!(await this.evictOne(keep)) && !(await this.evictOne())) return;
    }
  }

  /** Evict the least recently used segment (other than `keep`); false when none. */
  async evictOne(keep?: number): Promise<boolean> {
    const victim = this.index.lruVictim(keep);
    if (!victim) return false;
    this.index.dropSegmentEntries(victim.id);
    this.index.segments.delete(victim.id);
    this.commit.forget(victim.file);
    // Persist an index without the segment before its bytes go away.
    await this.snapshots.write();
    await victim.file.truncate(0).catch(() => {});
    await victim.file.flush().catch(() => {});
    await victim.file.close().catch(() => {});
    await this.fs.remove(segmentName(victim.id));
    this.counters.evictedSegments++;
    return true;
  }

  /** Append `chunk` at the segment's end and flush; on QuotaExceededError evict once and retry. */
  async appendWithQuotaRetry(segment: Segment, chunk: Uint8Array): Promise<unknown | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        if (
          this.opts.quotaBytes !== undefined &&
          this.index.diskBytes() + chunk.length > this.opts.quotaBytes
        ) {
          throw new DOMException('simulated quota exceeded', 'QuotaExceededError');
        }
        await segment.file.write(segment.end, chunk);
        this.commit.wrote(segment.file);
        segment.end += chunk.length;
        return undefined;
      } catch (err) {
        await segment.file.truncate(segment.end).catch(() => {});
        if (!isQuotaError(err))
          return new StoreError(
            'STORE_FAILED',
            `writing ${segmentName(segment.id)} failed: ${String(err)}`,
            { cause: err },
          );
        this.counters.quotaErrors++;
        if (attempt === 0 && (await this.evictOne(segment.id))) continue;
        return new StoreError(
          'QUOTA_EXCEEDED',
          `storage quota exceeded writing ${chunk.length} bytes, even after evicting`,
          { cause: err },
        );
      }
    }
    return new StoreError('QUOTA_EXCEEDED', 'storage quota exceeded');
  }
}
