import type { AccessPlan } from './AccessPlan.js';
import { AccessPredictor } from './accessPredictor.js';

/**
 * Which sample the caching engine prefetches next: the plan's coming reads
 * when a plan is set, else the indices the {@link AccessPredictor} infers from
 * the reads so far (sequential or strided). Internal to the engine, which
 * decides whether a candidate is loaded (not cached, not in flight, room in
 * the window). Allocates nothing per read (one stamp array, on the first
 * plan-less read).
 */
export class PrefetchSchedule {
  private plan: AccessPlan | undefined;
  /** Next plan position to consider. */
  private scanPos = 0;
  private readonly predictor: AccessPredictor;
  private readonly predicted: Int32Array;
  /** Marks the predicted indices (allocated on the first plan-less read). */
  private predStamp: Uint32Array | undefined;
  private stamp = 0;
  private predCount = 0;
  private predHead = 0;

  /**
   * @param length The dataset's length (indices are in `[0, length)`).
   * @param size How many indices ahead to predict without a plan (the engine's `prefetchSize`).
   */
  constructor(
    private readonly length: number,
    size: number,
  ) {
    this.predictor = new AccessPredictor(length);
    this.predicted = new Int32Array(size);
  }

  /** Follow `plan` from its start; what was inferred from the reads is forgotten. */
  setPlan(plan: AccessPlan): void {
    this.plan = plan;
    this.scanPos = 0;
    this.predictor.reset();
    this.predCount = 0;
    this.predHead = 0;
  }

  /** A plan-less read of `index`: predict the reads that follow it. */
  observe(index: number): void {
    this.predictor.observe(index);
    const n = this.predictor.predict(this.predicted, this.predicted.length);
    this.stamp = (this.stamp + 1) >>> 0 || 1;
    this.predStamp ??= new Uint32Array(this.length);
    const stamps = this.predStamp;
    for (let i = 0; i < n; i++) stamps[this.predicted[i]!] = this.stamp;
    stamps[index] = this.stamp;
    this.predCount = n;
    this.predHead = 0;
  }

  /** Whether the last plan-less read predicted `key` (or was a read of `key`). */
  isPredicted(key: number): boolean {
    return this.predStamp !== undefined && this.predStamp[key] === this.stamp;
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
      return this.scanPos < plan.order.length ? plan.order[this.scanPos++]! : -1;
    }
    return this.predHead < this.predCount ? this.predicted[this.predHead++]! : -1;
  }
}
