import type { EpochPlan, ShardLayout, TarSampleEntry } from '@medfusion/core';
import { index as checkIndex, findInPlan } from '@medfusion/core/internal';
import type { RangeReader } from '../../remote/RangeReader.js';
import { deferred } from './deferred.js';
import type { ShardIndexLoader } from './ShardIndexLoader.js';
import type { ShardTable } from './shardManifest.js';
import {
  checkWholeShard,
  cutSample,
  groupByShard,
  planShardReads,
  rangesOfShard,
  type ShardRanges,
  type ShardRead,
  shardRanges,
} from './shardReads.js';
import type { SampleRange } from './webDatasetOptions.js';

/** Bytes of one sample, read ahead, with the plan position it was read for. */
interface Pending {
  promise: Promise<Uint8Array>;
  pos: number;
}

/** How far ahead and how wide the merged reads go. */
export interface ReadAheadLimits {
  /** Samples of the plan read ahead. */
  lookahead: number;
  /** Largest gap of unwanted bytes read through to merge two samples. */
  maxGap: number;
  /** Largest merged request, in bytes. */
  maxRequestBytes: number;
  /**
   * Read a shard whole (one request, its sha256 checked when the manifest gives one)
   * when a read wants at least this share of its samples and it fits `maxRequestBytes`.
   */
  wholeShare: number;
}

/** A merged request: one byte range of one shard covering several samples. */
export interface MergedRequest {
  /** Shard URL. */
  url: string;
  /** First byte. */
  start: number;
  /** One past the last byte. */
  end: number;
  /** The samples it covers. */
  parts: SampleRange[];
}

/**
 * Read-ahead scheduling over the plan: follows the plan cursor as samples are
 * taken, reads the next `lookahead` samples in whole chunks as merged range
 * requests (one per run of near samples in a shard), keeps bytes a merged read
 * covered anyway when the plan needs them soon, and drops what the cursor has
 * passed by `lookahead`.
 */
export class ReadAhead {
  /** Bytes received for sample data. */
  bytesRead = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly pendingOrder: { index: number; pos: number }[] = [];
  /** First entry of `pendingOrder` not yet evicted (the array is cut when half is passed). */
  private orderHead = 0;
  private plan: EpochPlan | undefined;
  private cursor = 0;
  private scheduledUntil = 0;

  /**
   * @param shards the shard table (readers and loaded indices of touched shards)
   * @param layout global index ↔ (shard, local index)
   * @param indices loads shard indices on demand
   * @param limits window and merge limits
   * @param signal aborts every read (the source's close)
   */
  constructor(
    private readonly shards: ShardTable,
    private readonly layout: ShardLayout,
    private readonly indices: ShardIndexLoader,
    private readonly limits: ReadAheadLimits,
    private readonly signal: AbortSignal,
  ) {}

  /** Follow a new plan (already validated) from its start. */
  setPlan(plan: EpochPlan): void {
    this.plan = plan;
    this.cursor = 0;
    this.scheduledUntil = 0;
  }

  /**
   * The bytes of sample `index`: read ahead, or read now. Moves the plan cursor to it.
   * A read made for this call alone is aborted by `signal` (its request and origin slot
   * freed); a merged read ahead serves other samples too and runs on.
   */
  take(index: number, signal?: AbortSignal): Promise<Uint8Array> {
    this.advance(index);
    const hit = this.pending.get(index);
    if (hit) {
      this.pending.delete(index);
      return hit.promise;
    }
    return this.fetchOne(index, signal ? AbortSignal.any([this.signal, signal]) : this.signal);
  }

  /** Start reading `indices` (not yet pending) in merged requests. */
  prefetch(indices: ArrayLike<number>): void {
    const list: number[] = [];
    for (let i = 0; i < indices.length; i++) {
      const idx = indices[i] as number;
      checkIndex(idx, this.layout.length, `indices[${i}]`);
      if (!this.pending.has(idx)) list.push(idx);
    }
    this.schedule(list, this.cursor + this.limits.lookahead);
  }

  /** The merged requests that reading `indices` takes. */
  async requestsFor(indices: number[], signal?: AbortSignal): Promise<MergedRequest[]> {
    const wanted = await this.sampleRanges(indices, signal);
    const out: MergedRequest[] = [];
    for (const sr of wanted) {
      for (const m of planShardReads(sr, this.limits)) {
        out.push({ url: sr.shard.url, start: m.start, end: m.end, parts: m.parts });
      }
    }
    return out;
  }

  /** Drop every byte read ahead. */
  clear(): void {
    this.pending.clear();
    this.pendingOrder.length = 0;
    this.orderHead = 0;
  }

  /** Move the plan cursor to `index` and keep the window `lookahead` samples ahead. */
  private advance(index: number): void {
    const plan = this.plan;
    if (!plan) return;
    const lookahead = this.limits.lookahead;
    const pos = findInPlan(plan, index, this.cursor, this.cursor + lookahead * 4);
    if (pos < 0) return;
    this.cursor = pos + 1;
    if (pos >= this.scheduledUntil - lookahead / 2) {
      // Whole chunks of `lookahead` plan positions, so a chunk that matches a
      // shuffle window reads each of its shards' ranges once.
      const from = Math.max(this.scheduledUntil, pos);
      const to = this.windowCut(plan, from, Math.min(plan.length, from + lookahead));
      const list: number[] = [];
      const positions: number[] = [];
      const seen = new Set<number>();
      for (let p = from; p < to; p++) {
        const idx = plan.indexAt(p);
        if (this.pending.has(idx) || seen.has(idx)) continue;
        seen.add(idx);
        list.push(idx);
        positions.push(p);
      }
      // Samples a little further in the plan: kept when a merged read covers them anyway.
      const upcoming = new Map<number, number>();
      const horizonEnd = Math.min(plan.length, to + 3 * lookahead);
      for (let p = to; p < horizonEnd; p++) {
        const idx = plan.indexAt(p);
        if (!seen.has(idx) && !upcoming.has(idx)) upcoming.set(idx, p);
      }
      this.fillSpans(list, positions, upcoming);
      this.scheduledUntil = Math.max(this.scheduledUntil, to);
      this.schedule(list, positions, upcoming);
    }
    this.evict();
  }

  /**
   * Where the chunk `[from, to)` should end: before its last positions when they
   * are all in shards that no earlier position of the chunk reads (the start of
   * the next shuffle window of a shard-aware order, or the next shard of a
   * sequential one), so the next chunk starts there and reads that window's
   * shards whole (with {@link fillSpans}) instead of a few scattered samples of
   * each. The cut keeps at least half the chunk.
   */
  private windowCut(plan: EpochPlan, from: number, to: number): number {
    const keep = from + Math.ceil(this.limits.lookahead / 2);
    if (to - from < 2 || to >= plan.length) return to;
    const first = new Map<number, number>();
    for (let p = from; p < to; p++) {
      const s = this.layout.shardOf(plan.indexAt(p));
      if (!first.has(s)) first.set(s, p);
    }
    // The smallest q such that every position in [q, to) reads a shard first read at or after q.
    let cut = to;
    let minFirst = Number.POSITIVE_INFINITY;
    for (let q = to - 1; q >= keep; q--) {
      minFirst = Math.min(minFirst, first.get(this.layout.shardOf(plan.indexAt(q))) as number);
      if (minFirst >= q) cut = q;
    }
    return cut;
  }

  /**
   * Move into the chunk (`list`, `positions`) the `upcoming` samples that lie,
   * in archive order, between the first and the last sample the chunk reads in
   * their shard. A shard-aware shuffle reads a window's shards in random order,
   * so a chunk's samples are scattered over each shard: read alone, the gaps
   * between them split the merged reads into many, the samples in those gaps come
   * back later as small reads of their own, and a chunk that reaches a few
   * positions into the next window reads each of them alone. Read with the chunk,
   * the gaps close and each shard of a window is read in about one request. The
   * memory bound stays the plan horizon (`4 × lookahead` positions), as for
   * bytes a merged read covers anyway; nothing past the chunk's span in a shard
   * is added, so a sequential plan reads as before.
   */
  private fillSpans(list: number[], positions: number[], upcoming: Map<number, number>): void {
    if (list.length === 0 || upcoming.size === 0) return;
    const layout = this.layout;
    const spans = new Map<number, { lo: number; hi: number }>();
    for (const idx of list) {
      const s = layout.shardOf(idx);
      const local = layout.localIndex(idx);
      const span = spans.get(s);
      if (!span) spans.set(s, { lo: local, hi: local });
      else {
        if (local < span.lo) span.lo = local;
        if (local > span.hi) span.hi = local;
      }
    }
    for (const [idx, pos] of upcoming) {
      if (this.pending.has(idx)) continue;
      const span = spans.get(layout.shardOf(idx));
      if (!span) continue;
      const local = layout.localIndex(idx);
      if (local < span.lo || local > span.hi) continue;
      list.push(idx);
      positions.push(pos);
      upcoming.delete(idx);
    }
  }

  private evict(): void {
    const horizon = this.cursor - this.limits.lookahead;
    const order = this.pendingOrder;
    let head = this.orderHead;
    while (head < order.length && (order[head] as { pos: number }).pos < horizon) {
      const { index, pos } = order[head++] as { index: number; pos: number };
      if (this.pending.get(index)?.pos === pos) this.pending.delete(index);
    }
    // Not shift() per entry: that moves the whole array each time (O(lookahead) per sample).
    if (head > 1024 && head * 2 > order.length) {
      order.splice(0, head);
      head = 0;
    }
    this.orderHead = head;
  }

  /** Register deferred bytes for `list` now, then read them in merged requests. */
  private schedule(
    list: number[],
    positions: number[] | number,
    upcoming?: Map<number, number>,
  ): void {
    if (list.length === 0) return;
    const slots = new Map<number, ReturnType<typeof deferred<Uint8Array>>>();
    for (const [k, idx] of list.entries()) {
      // Each entry is dropped once the cursor is `lookahead` past its plan position.
      const pos = typeof positions === 'number' ? positions : (positions[k] as number);
      const d = deferred<Uint8Array>();
      slots.set(idx, d);
      this.pending.set(idx, { promise: d.promise, pos });
      this.pendingOrder.push({ index: idx, pos });
    }
    // Each shard on its own: its reads start once its index is loaded, not all of them.
    for (const [s, idxs] of groupByShard(list, this.layout)) {
      void this.readShard(s, idxs, slots, upcoming);
    }
  }

  /** Read the samples `idxs` of shard `s` into their `slots`. */
  private async readShard(
    s: number,
    idxs: number[],
    slots: Map<number, ReturnType<typeof deferred<Uint8Array>>>,
    upcoming: Map<number, number> | undefined,
  ): Promise<void> {
    let sr: ShardRanges;
    try {
      sr = await rangesOfShard(s, idxs, this.layout, this.shards, this.indices, this.signal);
    } catch (error) {
      for (const idx of idxs) slots.get(idx)?.reject(error);
      return;
    }
    // Samples with nothing to read (only empty members).
    if (sr.ranges.length < idxs.length) {
      const withBytes = new Set<number>();
      for (const r of sr.ranges) withBytes.add(r.index);
      for (const idx of idxs) if (!withBytes.has(idx)) slots.get(idx)?.resolve(new Uint8Array(0));
    }
    if (sr.ranges.length === 0) return;
    const checked = sr.shard.checkHeaders === true;
    const first = this.layout.start(s);
    const jobs: Promise<void>[] = [];
    for (const m of planShardReads(sr, this.limits)) {
      jobs.push(
        this.readRange(sr.shard.reader, m.start, m.end)
          .then(async (bytes) => {
            if (m.whole) await checkWholeShard(sr.shard, sr.samples, bytes);
            for (const part of m.parts) {
              const slot = slots.get(part.index);
              if (!slot) continue;
              try {
                const e = sr.samples[part.index - first] as TarSampleEntry;
                // A whole read had every header checked by checkWholeShard already.
                slot.resolve(cutSample(e, bytes, m.start, checked && !m.whole, sr.shard.url));
              } catch (error) {
                slot.reject(error);
              }
            }
            if (upcoming && upcoming.size > 0) this.keepCovered(sr, m, bytes, upcoming);
          })
          .catch((error: unknown) => {
            for (const part of m.parts) slots.get(part.index)?.reject(error);
          }),
      );
    }
    await Promise.all(jobs);
  }

  /**
   * A merged read also returned the bytes of samples between the wanted ones;
   * keep those the plan needs soon (`upcoming`: index → plan position) instead
   * of reading them again later.
   */
  private keepCovered(
    sr: ShardRanges,
    m: { start: number; end: number },
    bytes: Uint8Array,
    upcoming: Map<number, number>,
  ): void {
    if (this.signal.aborted) return;
    const samples = sr.samples;
    const checked = sr.shard.checkHeaders === true;
    const first = this.layout.start(sr.s);
    // Samples are in archive order: binary search the first starting at or after m.start.
    let lo = 0;
    let hi = samples.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((samples[mid] as TarSampleEntry).start < m.start) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < samples.length; k++) {
      const e = samples[k] as TarSampleEntry;
      if (e.start >= m.end) break;
      if (e.end > m.end || e.end <= e.start) continue;
      const idx = first + k;
      const pos = upcoming.get(idx);
      if (pos === undefined || this.pending.has(idx)) continue;
      let promise: Promise<Uint8Array>;
      try {
        // A checked sample whose headers lie before m.start is left to be read again.
        promise = Promise.resolve(cutSample(e, bytes, m.start, checked, sr.shard.url));
      } catch {
        continue;
      }
      this.pending.set(idx, { promise, pos });
      this.pendingOrder.push({ index: idx, pos });
    }
  }

  private async readRange(
    reader: RangeReader,
    start: number,
    end: number,
    signal = this.signal,
  ): Promise<Uint8Array> {
    const bytes = await reader.read(start, end, { signal });
    this.bytesRead += bytes.length;
    return bytes;
  }

  private async fetchOne(index: number, signal: AbortSignal): Promise<Uint8Array> {
    const wanted = await this.sampleRanges([index], signal);
    for (const sr of wanted) {
      // One sample: a range of its own, unless the shard must be read whole first.
      const whole = planShardReads(sr, { ...this.limits, wholeShare: 2 })[0] as ShardRead;
      const r = whole.whole ? whole : (sr.ranges[0] as SampleRange);
      const bytes = await this.readRange(sr.shard.reader, r.start, r.end, signal);
      if (whole.whole) await checkWholeShard(sr.shard, sr.samples, bytes);
      const e = sr.samples[index - this.layout.start(sr.s)] as TarSampleEntry;
      return cutSample(e, bytes, r.start, sr.shard.checkHeaders === true, sr.shard.url);
    }
    return new Uint8Array(0);
  }

  /** Byte ranges of `indices`, by shard (samples with no bytes left out). */
  private sampleRanges(indices: number[], signal: AbortSignal | undefined): Promise<ShardRanges[]> {
    return shardRanges(indices, this.layout, this.shards, this.indices, signal);
  }
}
