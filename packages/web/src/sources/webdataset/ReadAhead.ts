import type { EpochPlan, ShardLayout, TarSampleEntry } from '@medfusion/core';
import { CachedPlan, index as checkIndex, findInPlan } from '@medfusion/core/internal';
import type { RangeReader } from '../../remote/RangeReader.js';
import { deferred } from './deferred.js';
import { fillSpans, windowCut } from './readAheadChunks.js';
import type { ShardIndexLoader } from './ShardIndexLoader.js';
import type { ShardTable } from './shardManifest.js';
import {
  checkWholeShard,
  coveredRanges,
  cutSample,
  groupByShard,
  needsWholeBytes,
  piecesInOrder,
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
    // Each position of the horizon (`cursor` to `cursor + 4 × lookahead`) is asked of the plan
    // several times as chunks are shaped: remember twice that span (at most 2^18 positions, 4 MB).
    this.plan = new CachedPlan(plan, Math.min(1 << 18, Math.max(64, 8 * this.limits.lookahead)));
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
      const to = windowCut(
        plan,
        this.layout,
        lookahead,
        from,
        Math.min(plan.length, from + lookahead),
      );
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
      fillSpans(this.layout, list, positions, upcoming, (idx) => this.pending.has(idx));
      this.scheduledUntil = Math.max(this.scheduledUntil, to);
      this.schedule(list, positions, upcoming);
    }
    this.evict();
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
    const jobs: Promise<void>[] = [];
    for (const m of planShardReads(sr, this.limits)) {
      const read = needsWholeBytes(sr.shard, m)
        ? this.readWhole(sr, m, slots, upcoming)
        : this.readCut(sr, m, slots, upcoming);
      jobs.push(
        read.catch((error: unknown) => {
          for (const part of m.parts) slots.get(part.index)?.reject(error);
        }),
      );
    }
    await Promise.all(jobs);
  }

  /**
   * Read `m` (a shard to be checked whole) into one buffer, check it, then hand
   * each wanted sample a view of it (`get` copies such samples' members out).
   */
  private async readWhole(
    sr: ShardRanges,
    m: ShardRead,
    slots: Map<number, ReturnType<typeof deferred<Uint8Array>>>,
    upcoming: Map<number, number> | undefined,
  ): Promise<void> {
    const bytes = await this.readRange(sr.shard.reader, m.start, m.end);
    await checkWholeShard(sr.shard, sr.samples, bytes);
    const first = this.layout.start(sr.s);
    for (const part of m.parts) {
      const e = sr.samples[part.index - first] as TarSampleEntry;
      // checkWholeShard checked every header already (the covered samples' below too).
      this.settle(slots.get(part.index), () => cutSample(e, bytes, m.start, false, sr.shard.url));
    }
    if (!upcoming || upcoming.size === 0 || this.signal.aborted) return;
    for (const r of coveredRanges(sr, m, first, upcoming, (idx) => this.pending.has(idx))) {
      const e = sr.samples[r.index - first] as TarSampleEntry;
      this.keep(r.index, upcoming, () => cutSample(e, bytes, m.start, false, sr.shard.url));
    }
  }

  /**
   * Read `m` in one request, each wanted sample (and each sample between them the
   * plan wants soon) straight into a buffer of its own: one copy from the network,
   * and no sample keeps the merged range alive. Headers are checked when the shard
   * asks for it and the read is not of a verified whole shard.
   */
  private async readCut(
    sr: ShardRanges,
    m: ShardRead,
    slots: Map<number, ReturnType<typeof deferred<Uint8Array>>>,
    upcoming: Map<number, number> | undefined,
  ): Promise<void> {
    const first = this.layout.start(sr.s);
    const covered =
      upcoming && upcoming.size > 0
        ? coveredRanges(sr, m, first, upcoming, (idx) => this.pending.has(idx))
        : [];
    const pieces = piecesInOrder(m.parts, covered);
    const buffers = await sr.shard.reader.readPieces(m.start, m.end, pieces, {
      signal: this.signal,
    });
    this.bytesRead += m.end - m.start;
    const checked = sr.shard.checkHeaders === true;
    for (const [k, r] of pieces.entries()) {
      const e = sr.samples[r.index - first] as TarSampleEntry;
      const bytes = buffers[k] as Uint8Array;
      const slot = slots.get(r.index);
      if (slot)
        this.settle(slot, () => cutSample(e, bytes, r.start, checked && !m.whole, sr.shard.url));
      else if (!this.signal.aborted && upcoming) {
        this.keep(r.index, upcoming, () => cutSample(e, bytes, r.start, checked, sr.shard.url));
      }
    }
  }

  /** Resolve `slot` with `cut()`, or reject it with what `cut` threw. */
  private settle(
    slot: ReturnType<typeof deferred<Uint8Array>> | undefined,
    cut: () => Uint8Array,
  ): void {
    if (!slot) return;
    try {
      slot.resolve(cut());
    } catch (error) {
      slot.reject(error);
    }
  }

  /**
   * A merged read also returned the bytes of sample `index`, which the plan needs
   * soon: keep them (unless it is pending by now, or its headers fail) instead of
   * reading them again later.
   */
  private keep(index: number, upcoming: Map<number, number>, cut: () => Uint8Array): void {
    const pos = upcoming.get(index);
    if (pos === undefined || this.pending.has(index)) return;
    let promise: Promise<Uint8Array>;
    try {
      promise = Promise.resolve(cut());
    } catch {
      return;
    }
    this.pending.set(index, { promise, pos });
    this.pendingOrder.push({ index, pos });
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
