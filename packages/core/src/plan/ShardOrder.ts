import { bool, nonNegativeInt, positiveInt, showValue } from '../util/validate.js';
import { type EpochPlan, iteratePlan } from './EpochPlan.js';
import { IndexPermutation } from './IndexPermutation.js';
import { ShardLayout } from './ShardLayout.js';

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
}

/** One shard window's layout, recomputed when another window is asked for. */
class WindowCache {
  window = -1;
  /** Shards of the window, in plan order. */
  readonly shards: Float64Array;
  /** `cum[k]`: samples of the window's shards before the k-th. */
  readonly cum: Float64Array;
  perm: IndexPermutation | undefined;
  constructor(windowShards: number) {
    this.shards = new Float64Array(windowShards);
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
  private readonly shardPerm: IndexPermutation | undefined;
  /** `starts[w]`: first position of window w (known up to `known`). */
  private readonly starts: Float64Array;
  private known = 0;
  private readonly forward: WindowCache;
  private readonly backward: WindowCache;

  constructor(options: ShardPlanOptions) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object with shardSizes, got ${showValue(options)}`);
    }
    this.layout = new ShardLayout(options.shardSizes);
    this.length = this.layout.length;
    this.seed = nonNegativeInt('seed', options.seed ?? 0);
    this.epoch = nonNegativeInt('epoch', options.epoch ?? 0);
    this.windowShards = positiveInt('windowShards', options.windowShards ?? 4);
    this.shuffle = bool('shuffle', options.shuffle ?? true);
    const shards = this.layout.shardCount;
    this.shardPerm = this.shuffle ? new IndexPermutation(shards, this.seed, this.epoch) : undefined;
    this.starts = new Float64Array(Math.ceil(shards / this.windowShards) + 1);
    this.forward = new WindowCache(this.windowShards);
    this.backward = new WindowCache(this.windowShards);
  }

  /** Number of shard windows. */
  get windowCount(): number {
    return this.starts.length - 1;
  }

  /** The shard at place `k` of the shard order. */
  private shardAt(k: number): number {
    return this.shardPerm === undefined ? k : this.shardPerm.indexAt(k);
  }

  /** Make `starts[0..w]` known. */
  private extend(w: number): void {
    const ws = this.windowShards;
    const shards = this.layout.shardCount;
    while (this.known < w) {
      const v = this.known;
      let size = 0;
      for (let k = v * ws; k < Math.min(shards, (v + 1) * ws); k++) {
        size += this.layout.size(this.shardAt(k));
      }
      this.starts[v + 1] = this.starts[v]! + size;
      this.known++;
    }
  }

  private load(cache: WindowCache, w: number): WindowCache {
    if (cache.window === w) return cache;
    const ws = this.windowShards;
    const first = w * ws;
    const count = Math.min(this.layout.shardCount, first + ws) - first;
    cache.cum[0] = 0;
    for (let k = 0; k < count; k++) {
      const s = this.shardAt(first + k);
      cache.shards[k] = s;
      cache.cum[k + 1] = cache.cum[k]! + this.layout.size(s);
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
    const w = this.windowOf(position);
    const win = this.load(this.forward, w);
    const local = position - this.starts[w]!;
    const j = win.perm === undefined ? local : win.perm.indexAt(local);
    let k = 0;
    while (win.cum[k + 1]! <= j) k++;
    return this.layout.start(win.shards[k]!) + (j - win.cum[k]!);
  }

  /** The position at which `index` (in [0, length)) is read. */
  positionOf(index: number): number {
    if (!(index >= 0 && index < this.length)) return -1;
    const s = this.layout.shardOf(index);
    const k = this.shardPerm === undefined ? s : this.shardPerm.positionOf(s);
    const w = Math.floor(k / this.windowShards);
    this.extend(w);
    const win = this.load(this.backward, w);
    const slot = k - w * this.windowShards;
    const j = win.cum[slot]! + (index - this.layout.start(s));
    const local = win.perm === undefined ? j : win.perm.positionOf(j);
    return this.starts[w]! + local;
  }

  /** The indices in order (materialises nothing). */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}
