import { findInPlan } from '../dataset/findInPlan.js';
import { index as checkIndex } from '../util/validate.js';

/** Position used for "never used again under this plan". */
export const NEVER = 0x7fffffff;

/**
 * An epoch's access order with its next-use tables, precomputed once in
 * O(length + keySpace): for every position the position of the same key's
 * next use, and for every key the next position (at or after the cursor)
 * where it is used. The cursor follows the reads as they arrive.
 *
 * This is what lets prefetch fetch exactly what comes next and eviction keep
 * what is needed soonest (Belady).
 */
export class AccessPlan {
  /** The order, copied. */
  readonly order: Int32Array;
  /** `nextPos[p]`: next position after p with the same key, or {@link NEVER}. */
  private readonly nextPos: Int32Array;
  /** `nextOcc[key]`: next position ≥ cursor where key is used, or {@link NEVER}. */
  private readonly nextOcc: Int32Array;
  /** Position of the next expected read. */
  cursor = 0;

  /**
   * @param order The planned reads, each an index in `[0, keySpace)`.
   * @param keySpace The dataset's length.
   */
  constructor(order: ArrayLike<number>, keySpace: number) {
    if (order === null || typeof order !== 'object' || typeof order.length !== 'number') {
      throw new TypeError(`plan must be an array-like of indices, got ${String(order)}`);
    }
    const n = order.length;
    this.order = new Int32Array(n);
    for (let p = 0; p < n; p++) {
      this.order[p] = checkIndex(order[p], keySpace, `plan[${p}]`);
    }
    this.nextPos = new Int32Array(n);
    this.nextOcc = new Int32Array(keySpace).fill(NEVER);
    for (let p = n - 1; p >= 0; p--) {
      const key = this.order[p]!;
      this.nextPos[p] = this.nextOcc[key]!;
      this.nextOcc[key] = p;
    }
  }

  /** Number of planned reads. */
  get length(): number {
    return this.order.length;
  }

  /** The next position (≥ cursor) at which `key` is read, or {@link NEVER}. */
  nextUse(key: number): number {
    return this.nextOcc[key]!;
  }

  /**
   * Find the position of a read of `key` near the cursor: at the cursor, a
   * little ahead (reads skipped by the caller), or just behind (a retried
   * read). Returns -1 when the read is not in the plan nearby.
   */
  locate(key: number, lookahead: number): number {
    const order = this.order;
    const ahead = findInPlan(order, key, this.cursor, this.cursor + lookahead);
    if (ahead >= 0) return ahead;
    const back = this.cursor - 1;
    if (back >= 0 && order[back] === key) return back;
    return -1;
  }

  /**
   * Move the cursor past position `p` (which must be ≥ cursor - 1), updating
   * the next use of each key passed. `passed(key, skipped)` is called for each
   * key whose next use changed; `skipped` is true for reads jumped over.
   */
  advanceTo(p: number, passed: (key: number, skipped: boolean) => void): void {
    while (this.cursor <= p) {
      const q = this.cursor++;
      const key = this.order[q]!;
      this.nextOcc[key] = this.nextPos[q]!;
      passed(key, q < p);
    }
  }
}
