/**
 * Position of the first planned read of `index` in `plan[from, to)` (clamped
 * to the plan), or -1. This is the window scan every plan follower shares
 * (the engine's `AccessPlan`, the remote sources' read-ahead): a read that
 * arrives is matched to its planned position near the cursor, so reads the
 * caller skipped or reordered slightly do not lose the plan. O(to - from),
 * allocates nothing.
 */
export function findInPlan(
  plan: ArrayLike<number>,
  index: number,
  from: number,
  to: number,
): number {
  const end = Math.min(plan.length, to);
  for (let p = Math.max(0, from); p < end; p++) if (plan[p] === index) return p;
  return -1;
}
