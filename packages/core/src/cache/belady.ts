import { AccessPlan } from '../engine/AccessPlan.js';
import { nonNegativeInt } from '../util/validate.js';
import { PlanCache } from './PlanCache.js';

/** Result of {@link beladyHitRate}. */
export interface BeladyResult {
  /** Reads served from the cache. */
  hits: number;
  /** Reads that had to load (including each sample's first read). */
  misses: number;
  /** hits / reads (0 for an empty trace). */
  hitRate: number;
}

/** Options of {@link beladyHitRate}. */
export interface BeladyOptions {
  /** Keys are integers in `[0, keySpace)`. @default max(order) + 1 */
  keySpace?: number;
  /** Samples already held when the trace starts (a warm cache). @default [] */
  initial?: ArrayLike<number>;
}

/**
 * The best hit rate any cache of `capacity` samples can reach on the read
 * sequence `order`: Belady's offline MIN policy (on a miss, drop whichever of
 * the held samples and the new one is read again farthest in the future).
 * O(n log capacity). Used for `optimalHitRate` in the engine's stats and for
 * the bound in the `seed` benchmark.
 *
 * @example
 * beladyHitRate([0, 1, 2, 0, 1, 2], 2).hits; // 2 (no cache of 2 can do better)
 */
export function beladyHitRate(
  order: ArrayLike<number>,
  capacity: number,
  options: BeladyOptions = {},
): BeladyResult {
  nonNegativeInt('capacity', capacity);
  let keySpace = options.keySpace;
  if (keySpace === undefined) {
    keySpace = 0;
    for (let p = 0; p < order.length; p++) keySpace = Math.max(keySpace, (order[p] ?? 0) + 1);
  } else nonNegativeInt('keySpace', keySpace);
  const plan = new AccessPlan(order, keySpace);
  const cache = new PlanCache<true>({ capacity, keySpace, usePlan: true });
  cache.setPlan(plan);
  const initial = options.initial ?? [];
  for (let i = 0; i < initial.length; i++) cache.admit(initial[i]!, true, 0, Infinity);
  let hits = 0;
  const noop = () => {};
  const n = plan.length;
  for (let p = 0; p < n; p++) {
    const key = plan.order[p]!;
    plan.advanceTo(p, noop);
    if (cache.has(key)) {
      hits++;
      cache.touch(key);
    } else cache.admit(key, true, 0, Infinity);
  }
  return { hits, misses: n - hits, hitRate: n === 0 ? 0 : hits / n };
}
