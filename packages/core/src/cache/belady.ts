import { AccessPlan } from '../plan/AccessPlan.js';
import { isEpochPlan, type PlanInput } from '../plan/EpochPlan.js';
import { arrayOf, nonNegativeInt, optionsBag, positiveInt, withDefault } from '../util/validate.js';
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
  /** Keys are integers in `[0, keySpace)`. @default max(order) + 1 (2^53 − 1 for an `EpochPlan`) */
  keySpace?: number;
  /** Samples already held when the trace starts (a warm cache). @default [] */
  initial?: ArrayLike<number>;
  /**
   * See the future only this many reads ahead (what the caching engine's
   * `planWindow` sees): next uses beyond it are unknown. Compare with the
   * default to measure what a window costs.
   * @default the whole trace (the offline optimum)
   */
  window?: number;
}

/**
 * The best hit rate any cache of `capacity` samples can reach on the read
 * sequence `order`: Belady's offline MIN policy (on a miss, drop whichever of
 * the held samples and the new one is read again farthest in the future).
 * O(n log capacity), memory O(capacity + window). Used for `optimalHitRate`
 * in the engine's stats and for the bound in the `seed` benchmark. A plan
 * that reads each index once (`positionOf`, e.g. an `IndexPermutation`) is
 * answered in O(initial): only samples already held can hit.
 *
 * @example
 * beladyHitRate([0, 1, 2, 0, 1, 2], 2).hits; // 2 (no cache of 2 can do better)
 */
export function beladyHitRate(
  order: PlanInput,
  capacity: number,
  options: BeladyOptions = {},
): BeladyResult {
  nonNegativeInt('capacity', capacity);
  optionsBag('options', options);
  let keySpace = options.keySpace;
  if (keySpace !== undefined) nonNegativeInt('keySpace', keySpace);
  else if (isEpochPlan(order)) keySpace = Number.MAX_SAFE_INTEGER;
  else {
    keySpace = 0;
    for (let p = 0; p < order.length; p++) keySpace = Math.max(keySpace, (order[p] ?? 0) + 1);
  }
  const window = options.window === undefined ? undefined : positiveInt('window', options.window);
  const initial = withDefault('initial', options.initial, [], (name, v) =>
    ArrayBuffer.isView(v) ? (v as unknown as ArrayLike<number>) : arrayOf(name, v, nonNegativeInt),
  );
  if (isEpochPlan(order) && typeof order.positionOf === 'function') {
    // every index is read at most once: keep what is held and read, bypass the rest
    const held = new Set<number>();
    for (let i = 0; i < initial.length && held.size < capacity; i++) {
      if (order.positionOf(initial[i]!) >= 0) held.add(initial[i]!);
    }
    const n = order.length;
    return { hits: held.size, misses: n - held.size, hitRate: n === 0 ? 0 : held.size / n };
  }
  const plan = new AccessPlan(order, keySpace, window);
  const cache = new PlanCache<true>({ capacity, keySpace, usePlan: true });
  cache.setPlan(plan);
  for (let i = 0; i < initial.length; i++) cache.admit(initial[i]!, true, 0, Infinity);
  let hits = 0;
  // a key entering the window gets a known next use: reorder it
  const changed = (key: number) => cache.reprioritize(key);
  const n = plan.length;
  for (let p = 0; p < n; p++) {
    const key = plan.indexAt(p);
    plan.advanceTo(p, changed);
    if (cache.has(key)) {
      hits++;
      cache.touch(key);
    } else cache.admit(key, true, 0, Infinity);
  }
  return { hits, misses: n - hits, hitRate: n === 0 ? 0 : hits / n };
}
