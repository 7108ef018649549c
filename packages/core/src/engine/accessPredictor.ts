/**
 * Guesses the coming reads when no plan was given, from the reads so far:
 * sequential (stride 1: the first read, or a last step of +1) and strided
 * (the last two steps agree, e.g. 0, 4, 8 → 12, 16, …; negative strides too).
 * Anything else (shuffled access) predicts nothing, so a prefetcher without a
 * plan wastes no loads on random access. O(1) per read, no allocation.
 *
 * @example
 * const p = new AccessPredictor(100);
 * p.observe(0); p.observe(4); p.observe(8);
 * const out = new Int32Array(3);
 * p.predict(out, 3); // 3, out = [12, 16, 20]
 */
export class AccessPredictor {
  /** Indices are in `[0, length)`. */
  readonly length: number;
  private reads = 0;
  private last = 0;
  private delta = 0;
  private prevDelta = 0;

  constructor(length: number) {
    this.length = length;
  }

  /** Record a read of `index`. */
  observe(index: number): void {
    if (this.reads > 0) {
      this.prevDelta = this.delta;
      this.delta = index - this.last;
    }
    this.last = index;
    this.reads++;
  }

  /** The stride the reads follow, or 0 when they follow none. */
  stride(): number {
    if (this.reads === 0) return 0;
    if (this.reads === 1) return 1;
    if (this.delta === 1) return 1;
    if (this.reads >= 3 && this.delta !== 0 && this.delta === this.prevDelta) return this.delta;
    return 0;
  }

  /**
   * Write up to `count` predicted next indices into `out` (nearest first),
   * staying inside `[0, length)`; returns how many were written.
   */
  predict(out: Int32Array | Float64Array, count: number): number {
    const s = this.stride();
    if (s === 0) return 0;
    const n = Math.min(count, out.length);
    let written = 0;
    let next = this.last + s;
    while (written < n && next >= 0 && next < this.length) {
      out[written++] = next;
      next += s;
    }
    return written;
  }

  /** Forget the reads so far. */
  reset(): void {
    this.reads = 0;
    this.last = 0;
    this.delta = 0;
    this.prevDelta = 0;
  }
}
