import { arrayOf, index as checkIndex, nonNegativeInt, showValue } from '../util/validate.js';

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
        `shardSizes must be an array of sample counts, got ${showValue(shardSizes)}`,
      );
    }
    const sizes = arrayOf('shardSizes', shardSizes, nonNegativeInt);
    this.offsets = new Float64Array(sizes.length + 1);
    let total = 0;
    for (let s = 0; s < sizes.length; s++) {
      total += sizes[s]!;
      this.offsets[s + 1] = total;
    }
    if (!Number.isSafeInteger(total)) {
      throw new RangeError(`shardSizes add up to ${total}, more than 2^53-1`);
    }
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
