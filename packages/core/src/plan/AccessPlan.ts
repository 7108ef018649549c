import { index as checkIndex } from '../util/validate.js';
import { type EpochPlan, type PlanInput, toEpochPlan } from './EpochPlan.js';
import { IndexMap } from './IndexMap.js';

/** Next use of a key the plan never reads again. */
export const NEVER = Number.MAX_SAFE_INTEGER;
/** Next use of a key not read within the window (it may be read later). */
export const FAR = NEVER - 1;

/**
 * An epoch's access plan as the engine follows it: a cursor (the next
 * expected read) and a window of the next `window` positions, whose indices
 * are read from the plan once, as the window slides. For every key in the
 * window the first position at or after the cursor is known (a hash map sized
 * by the window), so prefetch fetches exactly what comes next and eviction
 * keeps what is needed soonest (Belady, exact within the window). A plan that
 * reads each index at most once (`positionOf`) also answers next uses beyond
 * the window, exactly. Memory is O(window), whatever the plan's length or the
 * data set's size.
 */
export class AccessPlan {
  /** The plan followed. */
  readonly plan: EpochPlan;
  /** Positions looked ahead (at most the plan's length). */
  readonly window: number;
  /** Position of the next expected read. */
  cursor = 0;
  /** Positions `[cursor, head)` are in the window. */
  private head = 0;
  private readonly keySpace: number;
  private readonly readOnce: boolean;
  /** Ring over window positions: the key read there. */
  private readonly keyAt: Float64Array;
  /** Ring over window positions: next position of the same key in the window, or -1. */
  private readonly nextAt: Float64Array;
  /** Key → first position ≥ cursor in the window. */
  private readonly first: IndexMap;
  /** Key → last position in the window (plans with repeats only). */
  private readonly last: IndexMap | undefined;
  /** Key read at position cursor − 1 (a retried read), or -1. */
  private prevKey = -1;

  /**
   * @param input The planned reads, each an index in `[0, keySpace)` (an array is checked and copied).
   * @param keySpace The dataset's length.
   * @param window Positions looked ahead (default: the whole plan, exact Belady over all of it).
   */
  constructor(input: PlanInput, keySpace: number, window?: number) {
    this.plan = toEpochPlan(input, keySpace, 'plan');
    this.keySpace = keySpace;
    this.readOnce = typeof this.plan.positionOf === 'function';
    const n = this.plan.length;
    this.window = Math.max(1, Math.min(n, window ?? n));
    this.keyAt = new Float64Array(this.window);
    this.nextAt = new Float64Array(this.readOnce ? 0 : this.window);
    this.first = new IndexMap(this.window);
    this.last = this.readOnce ? undefined : new IndexMap(this.window);
    this.slide(undefined);
  }

  /** Number of planned reads. */
  get length(): number {
    return this.plan.length;
  }

  /** The index read at position `p`. */
  indexAt(p: number): number {
    return p >= this.cursor && p < this.head ? this.keyAt[p % this.window]! : this.plan.indexAt(p);
  }

  /**
   * The next position (≥ cursor) at which `key` is read; {@link FAR} when it
   * is not read within the window but may be later; {@link NEVER} when it is
   * not read again.
   */
  nextUse(key: number): number {
    const p = this.first.get(key);
    if (p >= 0) return p;
    if (this.readOnce) {
      const q = this.plan.positionOf!(key);
      return q >= this.head ? q : NEVER;
    }
    return this.head >= this.plan.length ? NEVER : FAR;
  }

  /**
   * Find the position of a read of `key` near the cursor: at the cursor, a
   * little ahead (reads skipped by the caller), or just behind (a retried
   * read). Returns -1 when the read is not in the plan nearby.
   */
  locate(key: number, lookahead: number): number {
    const p = this.first.get(key);
    if (p >= 0 && p < this.cursor + lookahead) return p;
    if (key === this.prevKey) return this.cursor - 1;
    return -1;
  }

  /**
   * Move the cursor past position `p` (which must be ≥ cursor - 1) and slide
   * the window. `changed(key, skipped)` is called for each key whose next use
   * changed: each key passed (`skipped` is true for reads jumped over) and
   * each key that entered the window.
   */
  advanceTo(p: number, changed: (key: number, skipped: boolean) => void): void {
    const w = this.window;
    while (this.cursor <= p) {
      const q = this.cursor++;
      const key = this.keyAt[q % w]!;
      const next = this.readOnce ? -1 : this.nextAt[q % w]!;
      if (next >= 0) this.first.set(key, next);
      else {
        this.first.delete(key);
        this.last?.delete(key);
      }
      this.prevKey = key;
      changed(key, q < p);
    }
    this.slide(changed);
  }

  /** Read the plan up to `cursor + window`. */
  private slide(changed: ((key: number, skipped: boolean) => void) | undefined): void {
    const w = this.window;
    const end = Math.min(this.plan.length, this.cursor + w);
    while (this.head < end) {
      const h = this.head++;
      const key = this.plan.indexAt(h);
      if (!(Number.isInteger(key) && key >= 0 && key < this.keySpace)) {
        checkIndex(key, this.keySpace, `plan.indexAt(${h})`);
      }
      this.keyAt[h % w] = key;
      const last = this.last;
      if (last === undefined) {
        this.first.set(key, h);
        continue;
      }
      this.nextAt[h % w] = -1;
      const prev = last.get(key);
      last.set(key, h);
      if (prev >= 0) this.nextAt[prev % w] = h;
      else {
        this.first.set(key, h);
        changed?.(key, false);
      }
    }
  }
}
