import { bool, index as checkIndex, nonNegativeInt, positiveInt } from '../util/validate.js';
import { philox4x32 } from './counterRng.js';

/** Options of {@link shardPlan}. */
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

/**
 * Where each sample lives when samples are numbered shard by shard.
 *
 * @example
 * const layout = new ShardLayout([3, 2]);
 * layout.shardOf(4); // 1
 * layout.localIndex(4); // 1
 */
export class ShardLayout {
  /** Total number of samples. */
  readonly length: number;
  /** First global index of each shard, plus the total at the end. */
  private readonly offsets: Float64Array;

  constructor(shardSizes: readonly number[]) {
    if (!Array.isArray(shardSizes)) {
      throw new TypeError(
        `shardSizes must be an array of sample counts, got ${String(shardSizes)}`,
      );
    }
    this.offsets = new Float64Array(shardSizes.length + 1);
    let total = 0;
    for (let s = 0; s < shardSizes.length; s++) {
      total += nonNegativeInt(`shardSizes[${s}]`, shardSizes[s]);
      this.offsets[s + 1] = total;
    }
    if (total > 0xffffffff) throw new RangeError(`shardSizes add up to ${total}, more than 2^32-1`);
    this.length = total;
  }

  /** Number of shards. */
  get shardCount(): number {
    return this.offsets.length - 1;
  }

  /** First global sample index of `shard`. */
  start(shard: number): number {
    checkIndex(shard, this.shardCount, 'shard');
    return this.offsets[shard] as number;
  }

  /** Number of samples in `shard`. */
  size(shard: number): number {
    checkIndex(shard, this.shardCount, 'shard');
    return (this.offsets[shard + 1] as number) - (this.offsets[shard] as number);
  }

  /** The shard holding global sample `index` (binary search, O(log shards)). */
  shardOf(index: number): number {
    checkIndex(index, this.length);
    let lo = 0;
    let hi = this.shardCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.offsets[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Position of global sample `index` inside its shard. */
  localIndex(index: number): number {
    return index - (this.offsets[this.shardOf(index)] as number);
  }
}

const TWO_32 = 4294967296;
const TWO_26 = 67108864;
const TWO_NEG_53 = 2 ** -53;
const words = new Uint32Array(4);

/**
 * Fisher–Yates over `a` whose swap at step `i` comes from Philox4x32-10 with
 * counter `(i, stream, epoch)` and key `seed`: every draw is a pure function of
 * its inputs, so any window of a plan can be recomputed on its own.
 */
function shuffleInPlace(a: Uint32Array, seed: number, epoch: number, stream: number): void {
  const k0 = seed >>> 0;
  const k1 = Math.floor(seed / TWO_32) >>> 0;
  const e0 = epoch >>> 0;
  const e1 = Math.floor(epoch / TWO_32) >>> 0;
  for (let i = a.length - 1; i > 0; i--) {
    philox4x32(i, stream, e0, e1, k0, k1, words);
    const u = (((words[0] as number) >>> 5) * TWO_26 + ((words[1] as number) >>> 6)) * TWO_NEG_53;
    const j = Math.min(i, Math.floor(u * (i + 1)));
    const t = a[i] as number;
    a[i] = a[j] as number;
    a[j] = t;
  }
}

/**
 * A shard-aware epoch order: shuffle the shards, then take them
 * `windowShards` at a time and shuffle the samples of each window together.
 * Random enough for SGD, yet at most `windowShards` shards are in flight, so
 * a prefetcher reading this plan ahead touches few objects and can merge
 * neighbouring byte ranges into one request. Seeded and counter-based:
 * the same options always give the same plan (Philox4x32-10, like `shuffledOrder`).
 *
 * @example
 * const order = shardPlan({ shardSizes: [1000, 1000, 1000, 800], seed: 7, epoch, windowShards: 2 });
 * source.setPlan(order); // and iterate `order`
 */
export function shardPlan(options: ShardPlanOptions): Uint32Array {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object with shardSizes, got ${String(options)}`);
  }
  const layout = new ShardLayout(options.shardSizes);
  const seed = nonNegativeInt('seed', options.seed ?? 0);
  const epoch = nonNegativeInt('epoch', options.epoch ?? 0);
  const windowShards = positiveInt('windowShards', options.windowShards ?? 4);
  const shuffle = bool('shuffle', options.shuffle ?? true);
  const plan = new Uint32Array(layout.length);
  const shards = new Uint32Array(layout.shardCount);
  for (let s = 0; s < shards.length; s++) shards[s] = s;
  if (shuffle) shuffleInPlace(shards, seed, epoch, 0);
  let pos = 0;
  for (let w = 0; w * windowShards < shards.length; w++) {
    const windowStart = pos;
    const last = Math.min(shards.length, (w + 1) * windowShards);
    for (let k = w * windowShards; k < last; k++) {
      const shard = shards[k] as number;
      const start = layout.start(shard);
      const size = layout.size(shard);
      for (let i = 0; i < size; i++) plan[pos++] = start + i;
    }
    if (shuffle) shuffleInPlace(plan.subarray(windowStart, pos), seed, epoch, w + 1);
  }
  return plan;
}
