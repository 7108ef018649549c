import type { EpochPlan } from './EpochPlan.js';

/**
 * Position of the first planned read of `index` in `plan[from, to)` (clamped
 * to the plan), or -1. This is the window scan the remote sources' read-ahead
 * shares: a read that arrives is matched to its planned position near the
 * cursor, so reads the caller skipped or reordered slightly do not lose the
 * plan. O(to - from), allocates nothing.
 */
export function findInPlan(plan: EpochPlan, index: number, from: number, to: number): number {
  const end = Math.min(plan.length, to);
  for (let p = Math.max(0, from); p < end; p++) if (plan.indexAt(p) === index) return p;
  return -1;
}
