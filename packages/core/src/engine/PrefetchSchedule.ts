import type { AccessPlan } from '../plan/AccessPlan.js';
import { AccessPredictor } from './accessPredictor.js';

/**
 * Which sample the caching engine prefetches next: the plan's coming reads
 * when a plan is set, else the indices the {@link AccessPredictor} infers from
 * the reads so far (sequential or strided). Internal to the engine, which
 * decides whether a candidate is loaded (not cached, not in flight, room in
 * the window). With a plan it looks no farther than the plan's window.
 * Allocates nothing per read, and nothing sized by the data set.
 */
export class PrefetchSchedule {
  private plan: AccessPlan | undefined;
  /** Next plan position to consider. */
  private scanPos = 0;
  private readonly predictor: AccessPredictor;
  private readonly predicted: Float64Array;
  /** The last plan-less read and the stride predicted from it (0: none). */
  private lastRead = -1;
  private stride = 0;
  private predCount = 0;
  private predHead = 0;

  /**
   * @param length The dataset's length (indices are in `[0, length)`).
   * @param size How many indices ahead to predict without a plan (the engine's `prefetchSize`).
   */
  constructor(length: number, size: number) {
    this.predictor = new AccessPredictor(length);
    this.predicted = new Float64Array(size);
  }

  /** Follow `plan` from its start; what was inferred from the reads is forgotten. */
  setPlan(plan: AccessPlan): void {
    this.plan = plan;
    this.scanPos = 0;
    this.predictor.reset();
    this.lastRead = -1;
    this.stride = 0;
    this.predCount = 0;
    this.predHead = 0;
  }

  /** A plan-less read of `index`: predict the reads that follow it. */
  observe(index: number): void {
    this.predictor.observe(index);
    const n = this.predictor.predict(this.predicted, this.predicted.length);
    this.lastRead = index;
    this.stride = n > 0 ? this.predictor.stride() : 0;
    this.predCount = n;
    this.predHead = 0;
  }

  /** Whether the last plan-less read predicted `key` (or was a read of `key`). O(1). */
  isPredicted(key: number): boolean {
    if (this.lastRead < 0) return false;
    const d = key - this.lastRead;
    if (d === 0) return true;
    if (this.stride === 0) return false;
    const k = d / this.stride;
    return Number.isInteger(k) && k >= 1 && k <= this.predCount;
  }

  /** `key` left memory: consider it again if the plan needs it within the range scanned. */
  rewind(key: number): void {
    const plan = this.plan;
    if (plan === undefined) return;
    const next = plan.nextUse(key);
    if (next < this.scanPos) this.scanPos = Math.max(plan.cursor, next);
  }

  /** The next candidate to prefetch, or -1 when there is none. */
  next(): number {
    const plan = this.plan;
    if (plan !== undefined) {
      if (this.scanPos < plan.cursor) this.scanPos = plan.cursor;
      const end = Math.min(plan.length, plan.cursor + plan.window);
      return this.scanPos < end ? plan.indexAt(this.scanPos++) : -1;
    }
    return this.predHead < this.predCount ? this.predicted[this.predHead++]! : -1;
  }
}
