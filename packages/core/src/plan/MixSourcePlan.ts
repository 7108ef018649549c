import { type EpochPlan, iteratePlan } from './EpochPlan.js';
import type { MixOrder } from './MixOrder.js';

/** Sub-positions between two remembered places of the scan. */
const MARK_EVERY = 1024;

/**
 * The reads one source of a mix sees when the mix is read in `plan`'s order:
 * the plan's positions that draw from `source`, as that source's indices.
 * Computed lazily by a forward scan of the plan (reads go forward, as the
 * engines follow a plan); the scan's place every 1024 reads is remembered,
 * so a step back costs at most that much. Memory: `length / 1024` numbers.
 * Internal to `mixDatasets`.
 */
export class MixSourcePlan implements EpochPlan {
  /** Reads of the source. */
  readonly length: number;
  /** Sub-position the scan is at, and the plan position it looks at next. */
  private t = 0;
  private p = 0;
  private readonly marks: number[] = [0];

  constructor(
    private readonly plan: EpochPlan,
    private readonly order: MixOrder,
    private readonly source: number,
    length: number,
  ) {
    this.length = length;
  }

  /** The source index read at this source's position `t`. */
  indexAt(t: number): number {
    if (t < this.t) {
      const c = Math.floor(t / MARK_EVERY);
      this.t = c * MARK_EVERY;
      this.p = this.marks[c]!;
    }
    const { plan, order, source } = this;
    for (;;) {
      const j = order.locate(plan.indexAt(this.p++));
      if (j !== source) continue;
      const at = this.t++;
      if (this.t % MARK_EVERY === 0 && this.marks.length === this.t / MARK_EVERY) {
        this.marks.push(this.p);
      }
      if (at === t) return order.sourceIndex(j, order.draw);
    }
  }

  /** The source's indices in order. */
  [Symbol.iterator](): Iterator<number> {
    return iteratePlan(this);
  }
}
