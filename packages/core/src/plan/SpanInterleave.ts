/**
 * Spans of given lengths read round-robin: round `k` reads offset `k` of every
 * span longer than `k`, in span order. Position `q` of the interleaved order
 * is `(span, offset)` and back, in O(log spans + spans) time and O(spans)
 * memory. With equal lengths, position `q` is span `q mod spans`, offset
 * `⌊q / spans⌋`: taking every `worldSize`-th position then reads whole spans
 * when `worldSize` divides the span count. Internal to the plans.
 *
 * @example
 * const il = new SpanInterleave([2, 2]);
 * il.locate(1); // span 1 (offset il.offset === 0)
 */
export class SpanInterleave {
  /** Total of the lengths. */
  readonly length: number;
  /** Offset inside its span of the position last located. */
  offset = 0;
  private readonly lengths: Float64Array;
  /** Lengths in ascending order, and their prefix sums. */
  private readonly sorted: Float64Array;
  private readonly prefix: Float64Array;
  private readonly longest: number;

  /** @param lengths length of each span (non-negative integers) */
  constructor(lengths: ArrayLike<number>) {
    this.lengths = Float64Array.from(lengths);
    this.sorted = Float64Array.from(lengths).sort();
    this.prefix = new Float64Array(this.sorted.length + 1);
    for (let i = 0; i < this.sorted.length; i++)
      this.prefix[i + 1] = this.prefix[i]! + this.sorted[i]!;
    this.length = this.prefix[this.sorted.length]!;
    this.longest = this.sorted.length === 0 ? 0 : this.sorted[this.sorted.length - 1]!;
  }

  /** Positions read before round `k`: the sum of `min(length, k)` over the spans. */
  private before(k: number): number {
    const s = this.sorted;
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (s[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    return this.prefix[lo]! + k * (s.length - lo);
  }

  /** The span read at position `q` (in [0, length)); its offset is left in {@link offset}. */
  locate(q: number): number {
    const n = this.lengths.length;
    if (n === 1) {
      this.offset = q;
      return 0;
    }
    // the round: the largest k with before(k) <= q
    let lo = 0;
    let hi = this.longest - 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      if (this.before(mid) <= q) lo = mid;
      else hi = mid - 1;
    }
    let j = q - this.before(lo);
    this.offset = lo;
    if (this.sorted[0]! > lo) return j; // every span still active: no scan
    for (let s = 0; s < n; s++) {
      if (this.lengths[s]! > lo && j-- === 0) return s;
    }
    throw new RangeError(`position ${q} is out of range [0, ${this.length})`);
  }

  /** The position of `offset` in `span`. */
  positionOf(span: number, offset: number): number {
    if (this.lengths.length === 1) return offset;
    let q = this.before(offset);
    if (this.sorted[0]! > offset) return q + span;
    for (let s = 0; s < span; s++) if (this.lengths[s]! > offset) q++;
    return q;
  }
}
