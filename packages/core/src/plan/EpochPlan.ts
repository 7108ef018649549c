import { index as checkIndex, nonNegativeInt, showValue } from '../util/validate.js';

/**
 * The order of an epoch's reads as a function: position → index, and (for
 * plans that read every index at most once) index → position. Nothing of
 * size `length` needs to exist, so a plan over a billion samples costs a few
 * numbers. `setPlan` takes one (or an array, which is wrapped); the
 * DataLoader hands one per epoch. Iterating a plan yields its indices in order.
 *
 * @example
 * const plan: EpochPlan = new IndexPermutation(10 ** 9, 7, 0);
 * plan.indexAt(0); // the first read
 */
export interface EpochPlan extends Iterable<number> {
  /** Number of planned reads (positions are `[0, length)`). */
  readonly length: number;
  /** The index read at `position`. */
  indexAt(position: number): number;
  /**
   * The position at which `index` is read, or -1 when the plan does not
   * read it. Only plans that read each index at most once have it (a
   * permutation, or part of one); the caching engine then knows the next
   * use of any cached sample beyond its window.
   */
  positionOf?(index: number): number;
}

/** What `setPlan` accepts: an array of indices or an {@link EpochPlan}. */
export type PlanInput = ArrayLike<number> | EpochPlan;

/** Iterate `plan`'s indices in order (the `[Symbol.iterator]` of every plan). */
export function* iteratePlan(plan: EpochPlan): Generator<number, void, undefined> {
  for (let p = 0; p < plan.length; p++) yield plan.indexAt(p);
}

/** True when `value` is an {@link EpochPlan} (rather than an array of indices). */
export function isEpochPlan(value: unknown): value is EpochPlan {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Partial<EpochPlan>).indexAt === 'function'
  );
}

/** An array of indices as an {@link EpochPlan} (indices may repeat). Internal. */
class ArrayPlan implements EpochPlan {
  constructor(private readonly order: Uint32Array | Float64Array) {}
  get length(): number {
    return this.order.length;
  }
  indexAt(position: number): number {
    return this.order[position]!;
  }
  [Symbol.iterator](): Iterator<number> {
    return this.order[Symbol.iterator]();
  }
}

/**
 * Positions `[start, end)` of `base`, renumbered from 0 (a resumed epoch, a
 * dropped last batch). O(1) memory. Internal.
 */
class PlanSlice implements EpochPlan {
  readonly length: number;
  readonly positionOf: ((index: number) => number) | undefined;
  constructor(
    private readonly base: EpochPlan,
    private readonly start: number,
    end: number,
  ) {
    this.length = end - start;
    if (base.positionOf !== undefined) {
      const positionOf = base.positionOf.bind(base);
      this.positionOf = (index) => {
        const p = positionOf(index) - start;
        return p >= 0 && p < this.length ? p : -1;
      };
    }
  }
  indexAt(position: number): number {
    return this.base.indexAt(this.start + position);
  }
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}

/** Reads `0, 1, …, length − 1` in index order. */
export class SequentialPlan implements EpochPlan {
  /** Number of indices in the plan. */
  readonly length: number;
  /**
   * @param length number of indices
   * @example new SequentialPlan(3).indexAt(2); // 2
   */
  constructor(length: number) {
    this.length = nonNegativeInt('length', length);
  }
  /** `position` itself. */
  indexAt(position: number): number {
    return position;
  }
  /** `index` itself (-1 outside the plan). */
  positionOf(index: number): number {
    return index >= 0 && index < this.length ? index : -1;
  }
  /** The indices in order. */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}

/** Positions `[start, end)` of `plan` as a plan of its own (`plan` itself when that is all of it). */
export function slicePlan(plan: EpochPlan, start: number, end: number): EpochPlan {
  if (start === 0 && end === plan.length) return plan;
  return new PlanSlice(plan, start, end);
}

/**
 * Check what `setPlan` received and return it as an {@link EpochPlan}: an
 * array is checked (integers in `[0, length)`, TypeError / RangeError naming
 * the position and value) and copied; a plan is checked for its shape (its
 * indices are checked as they are read).
 *
 * @example
 * class Numbers implements Dataset<number>, PlanAware {
 *   readonly length = 10;
 *   private plan: EpochPlan | undefined;
 *   get(index: number) { return index; }
 *   setPlan(order: PlanInput) { this.plan = toEpochPlan(order, this.length); }
 * }
 */
export function toEpochPlan(input: PlanInput, length: number, name = 'order'): EpochPlan {
  if (isEpochPlan(input)) {
    nonNegativeInt(`${name}.length`, input.length);
    if (input.positionOf !== undefined && typeof input.positionOf !== 'function') {
      throw new TypeError(
        `${name}.positionOf must be a function, got ${showValue(input.positionOf)}`,
      );
    }
    return input;
  }
  if (input === null || typeof input !== 'object' || typeof input.length !== 'number') {
    throw new TypeError(
      `${name} must be an array-like of indices or an EpochPlan, got ${showValue(input)}`,
    );
  }
  const n = input.length;
  const order = length > 0xffffffff ? new Float64Array(n) : new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = checkIndex(input[i], length, `${name}[${i}]`);
  return new ArrayPlan(order);
}

/**
 * `base` without the reads at `skipped` (sorted, distinct positions): O(skipped)
 * memory, O(log skipped) per position. Internal.
 */
class PlanWithout implements EpochPlan {
  readonly length: number;
  readonly positionOf: ((index: number) => number) | undefined;
  /** `shifted[j] = skipped[j] − j`: non-decreasing. */
  private readonly shifted: Float64Array;
  constructor(
    private readonly base: EpochPlan,
    private readonly skipped: Float64Array,
  ) {
    this.length = base.length - skipped.length;
    this.shifted = skipped.map((p, j) => p - j);
    if (base.positionOf !== undefined) {
      const positionOf = base.positionOf.bind(base);
      this.positionOf = (index) => {
        const q = positionOf(index);
        if (q < 0) return -1;
        const j = countAtMost(this.skipped, q);
        return j > 0 && this.skipped[j - 1] === q ? -1 : q - j;
      };
    }
  }
  indexAt(position: number): number {
    return this.base.indexAt(position + countAtMost(this.shifted, position));
  }
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}

/** Number of entries of the sorted `a` that are ≤ `x`. */
function countAtMost(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `plan` without the reads of `dropped` indices (a quarantine): O(dropped)
 * memory when the plan has `positionOf`; a plan without it is scanned once.
 */
export function planWithout(plan: EpochPlan, dropped: ReadonlySet<number>): EpochPlan {
  const positions: number[] = [];
  if (plan.positionOf !== undefined) {
    for (const index of dropped) {
      const p = plan.positionOf(index);
      if (p >= 0) positions.push(p);
    }
  } else {
    for (let p = 0; p < plan.length; p++) if (dropped.has(plan.indexAt(p))) positions.push(p);
  }
  if (positions.length === 0) return plan;
  return new PlanWithout(plan, Float64Array.from(positions).sort());
}
