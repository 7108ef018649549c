import { bool, nonNegativeInt, positiveInt, showValue, withDefault } from '../util/validate.js';
import { type EpochPlan, iteratePlan } from './EpochPlan.js';
import { IndexPermutation } from './IndexPermutation.js';
import { ShardLayout } from './ShardLayout.js';
import { SpanInterleave } from './SpanInterleave.js';

/** Options of {@link ShardOrder} and `shardPlan`. */
export interface ShardPlanOptions {
  /**
   * Samples per shard, in shard order. Sample indices are numbered shard by
   * shard: shard 0 holds `[0, shardSizes[0])`, shard 1 the next ones, and so on
   * (the numbering `WebDatasetSource` uses).
   */
  shardSizes: readonly number[];
  /**
   * Seed of the shuffle; the same seed and epoch always give the same order.
   * @default 0
   */
  seed?: number;
  /**
   * Epoch number, mixed into the seed so every epoch has a fresh order.
   * @default 0
   */
  epoch?: number;
  /**
   * How many shards are read at once: the plan takes the shuffled shards
   * `windowShards` at a time and shuffles the samples of those shards
   * together. At most this many shards are ever started and not finished.
   * @default 4
   */
  windowShards?: number;
  /**
   * `false` keeps shard and sample order (sequential reading).
   * @default true
   */
  shuffle?: boolean;
  /**
   * Cut the epoch into this many spans before windowing: the shards, in their
   * shuffled order, are laid end to end and cut into `spans` runs of equal
   * sample count (a shard at a cut gives its first samples to one span and the
   * rest to the next); each span is windowed and shuffled on its own, and the
   * order reads the spans round-robin (position `q` is in span `q mod spans`
   * while all are equal). With `rank` / `worldSize` on a DataLoader, a rank
   * then reads whole spans, so it fetches about `1 / worldSize` of the shards'
   * bytes, when `worldSize` divides `spans`: pick a multiple of every
   * `worldSize` a run may resume at (12 fits 1, 2, 3, 4, 6, 12), and keep it
   * across resumes (it shapes the epoch's order). `1` is the order of 0.2.
   * @default 1
   */
  spans?: number;
}

/** One shard window's layout, recomputed when another window is asked for. */
class WindowCache {
  window = -1;
  /** Shards of the window, in plan order. */
  readonly shards: Float64Array;
  /** First sample (inside its shard) of each shard's piece in the window. */
  readonly lo: Float64Array;
  /** `cum[k]`: samples of the window's shards before the k-th. */
  readonly cum: Float64Array;
  perm: IndexPermutation | undefined;
  constructor(windowShards: number) {
    this.shards = new Float64Array(windowShards);
    this.lo = new Float64Array(windowShards);
    this.cum = new Float64Array(windowShards + 1);
  }
}

/**
 * A shard-aware epoch order as a function: the shards in a seeded order
 * (`IndexPermutation(shardCount, seed, epoch)`), taken `windowShards` at a
 * time; the samples of window `w` (numbered shard after shard, in that
 * order) in the order of `IndexPermutation(windowSize, seed, epoch, w + 1)`.
 * Random enough for SGD, yet at most `windowShards` shards are in flight.
 * Position → index and index → position cost O(windowShards) Philox
 * evaluations; memory is O(number of windows) numbers (window starts,
 * computed as the plan is read), besides the layout's offsets. Stable across
 * versions from 0.2 on.
 *
 * @example
 * const plan = new ShardOrder({ shardSizes: source.shardSizes, seed: 7, epoch, windowShards: 4 });
 * source.setPlan(plan);
 * plan.indexAt(0); // first sample read
 */
export class ShardOrder implements EpochPlan {
  /** Total number of samples. */
  readonly length: number;
  /** Where each sample lives. */
  readonly layout: ShardLayout;
  /** The seed. */
  readonly seed: number;
  /** The epoch. */
  readonly epoch: number;
  /** Shards read at once. */
  readonly windowShards: number;
  /** Whether shards and samples are shuffled. */
  readonly shuffle: boolean;
  /** Spans the epoch is cut into (see {@link ShardPlanOptions.spans}). */
  readonly spans: number;
  private readonly shardPerm: IndexPermutation | undefined;
  /** `starts[w]`: first position of window w, spans laid end to end (known up to `known`). */
  private readonly starts: Float64Array;
  /** Place (in the shard order) and first sample in that shard of each span; `spans + 1` entries. */
  private readonly spanPlace: Float64Array;
  private readonly spanFrom: Float64Array;
  /** First window of each span; `spans + 1` entries. */
  private readonly winFirst: Float64Array;
  /** The round-robin over the spans (more than one span only). */
  private readonly interleave: SpanInterleave | undefined;
  private known = 0;
  private readonly forward: WindowCache;
  private readonly backward: WindowCache;

  constructor(options: ShardPlanOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object with shardSizes, got ${showValue(options)}`);
    }
    this.layout = new ShardLayout(options.shardSizes);
    this.length = this.layout.length;
    this.seed = withDefault('seed', options.seed, 0, nonNegativeInt);
    this.epoch = withDefault('epoch', options.epoch, 0, nonNegativeInt);
    this.windowShards = withDefault('windowShards', options.windowShards, 4, positiveInt);
    this.shuffle = withDefault('shuffle', options.shuffle, true, bool);
    const shards = this.layout.shardCount;
    this.spans = withDefault('spans', options.spans, 1, positiveInt);
    this.shardPerm = this.shuffle ? new IndexPermutation(shards, this.seed, this.epoch) : undefined;
    const c = this.spans;
    this.spanPlace = new Float64Array(c + 1);
    this.spanFrom = new Float64Array(c + 1);
    this.spanPlace[c] = shards;
    if (c > 1) this.cutSpans();
    this.winFirst = new Float64Array(c + 1);
    for (let g = 0; g < c; g++) {
      this.winFirst[g + 1] =
        this.winFirst[g]! + Math.ceil((this.pieceEnd(g) - this.spanPlace[g]!) / this.windowShards);
    }
    this.starts = new Float64Array(this.winFirst[c]! + 1);
    this.forward = new WindowCache(this.windowShards);
    this.backward = new WindowCache(this.windowShards);
    if (c > 1) {
      this.extend(this.windowCount);
      const lengths = new Float64Array(c);
      for (let g = 0; g < c; g++) lengths[g] = this.spanStart(g + 1) - this.spanStart(g);
      this.interleave = new SpanInterleave(lengths);
    }
  }

  /** Number of shard windows. */
  get windowCount(): number {
    return this.starts.length - 1;
  }

  /** First position of span `g` with the spans laid end to end. */
  private spanStart(g: number): number {
    return Math.floor((g * this.length) / this.spans);
  }

  /** Find each span's first place and sample: one pass over the shard order. */
  private cutSpans(): void {
    const shards = this.layout.shardCount;
    let g = 1;
    let before = 0;
    for (let k = 0; k < shards && g < this.spans; k++) {
      const size = this.layout.size(this.shardAt(k));
      while (g < this.spans && this.spanStart(g) < before + size) {
        this.spanPlace[g] = k;
        this.spanFrom[g] = this.spanStart(g) - before;
        g++;
      }
      before += size;
    }
    for (; g < this.spans; g++) this.spanPlace[g] = shards;
  }

  /** One past the last place holding samples of span `g`. */
  private pieceEnd(g: number): number {
    return this.spanPlace[g + 1]! + (this.spanFrom[g + 1]! > 0 ? 1 : 0);
  }

  /** The span of window `w`. */
  private spanOfWindow(w: number): number {
    let lo = 0;
    let hi = this.spans - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.winFirst[mid]! <= w) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** First place of window `w` (its span is `g`). */
  private firstPlace(w: number, g: number): number {
    return this.spanPlace[g]! + (w - this.winFirst[g]!) * this.windowShards;
  }

  /** Samples `[lo, hi)` of the shard at place `k` that belong to span `g` (lo in `pieceLo`). */
  private pieceLo = 0;
  private pieceHi(g: number, k: number, shard: number): number {
    this.pieceLo = k === this.spanPlace[g] ? this.spanFrom[g]! : 0;
    return k === this.spanPlace[g + 1] && this.spanFrom[g + 1]! > 0
      ? this.spanFrom[g + 1]!
      : this.layout.size(shard);
  }

  /** The shard at place `k` of the shard order. */
  private shardAt(k: number): number {
    return this.shardPerm === undefined ? k : this.shardPerm.indexAt(k);
  }

  /** Make `starts[0..w]` known. */
  private extend(w: number): void {
    const ws = this.windowShards;
    while (this.known < w) {
      const v = this.known;
      const g = this.spanOfWindow(v);
      const first = this.firstPlace(v, g);
      let size = 0;
      for (let k = first; k < Math.min(this.pieceEnd(g), first + ws); k++) {
        const hi = this.pieceHi(g, k, this.shardAt(k));
        size += hi - this.pieceLo;
      }
      this.starts[v + 1] = this.starts[v]! + size;
      this.known++;
    }
  }

  private load(cache: WindowCache, w: number): WindowCache {
    if (cache.window === w) return cache;
    const ws = this.windowShards;
    const g = this.spanOfWindow(w);
    const first = this.firstPlace(w, g);
    const count = Math.min(this.pieceEnd(g), first + ws) - first;
    cache.cum[0] = 0;
    for (let k = 0; k < count; k++) {
      const s = this.shardAt(first + k);
      const hi = this.pieceHi(g, first + k, s);
      cache.shards[k] = s;
      cache.lo[k] = this.pieceLo;
      cache.cum[k + 1] = cache.cum[k]! + hi - this.pieceLo;
    }
    for (let k = count; k < ws; k++) cache.cum[k + 1] = cache.cum[count]!;
    cache.perm = this.shuffle
      ? new IndexPermutation(cache.cum[count]!, this.seed, this.epoch, w + 1)
      : undefined;
    cache.window = w;
    return cache;
  }

  /** The window holding `position`: binary search over the window starts. */
  private windowOf(position: number): number {
    const last = this.windowCount - 1;
    // windows are read in order: extend the known starts as far as needed
    while (this.known <= last && this.starts[this.known]! <= position) this.extend(this.known + 1);
    let lo = 0;
    let hi = Math.min(last, this.known - 1);
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      if (this.starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The index read at `position` (in [0, length)). */
  indexAt(position: number): number {
    const il = this.interleave;
    if (il !== undefined) position = this.spanStart(il.locate(position)) + il.offset;
    const w = this.windowOf(position);
    const win = this.load(this.forward, w);
    const local = position - this.starts[w]!;
    const j = win.perm === undefined ? local : win.perm.indexAt(local);
    let k = 0;
    while (win.cum[k + 1]! <= j) k++;
    return this.layout.start(win.shards[k]!) + win.lo[k]! + (j - win.cum[k]!);
  }

  /** The position at which `index` (in [0, length)) is read. */
  positionOf(index: number): number {
    if (!(index >= 0 && index < this.length)) return -1;
    const s = this.layout.shardOf(index);
    const k = this.shardPerm === undefined ? s : this.shardPerm.positionOf(s);
    const inShard = index - this.layout.start(s);
    const g = this.spanOf(k, inShard);
    const w = this.winFirst[g]! + Math.floor((k - this.spanPlace[g]!) / this.windowShards);
    this.extend(w);
    const win = this.load(this.backward, w);
    const slot = k - this.firstPlace(w, g);
    const j = win.cum[slot]! + (inShard - win.lo[slot]!);
    const local = win.perm === undefined ? j : win.perm.positionOf(j);
    const p = this.starts[w]! + local;
    const il = this.interleave;
    return il === undefined ? p : il.positionOf(g, p - this.spanStart(g));
  }

  /** The span holding sample `inShard` of the shard at place `k`. */
  private spanOf(k: number, inShard: number): number {
    let lo = 0;
    let hi = this.spans - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const p = this.spanPlace[mid]!;
      if (p < k || (p === k && this.spanFrom[mid]! <= inShard)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The indices in order (materialises nothing). */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}
