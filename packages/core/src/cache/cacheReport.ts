import type { EngineStats } from '../engine/engineOptions.js';
import { nonNegativeInt, positiveInt } from '../util/validate.js';
import type { CacheStats } from './CachedDataset.js';

/** Hit rate above which the cache is working (the reference's 70 %). */
export const EFFECTIVE_HIT_RATE = 0.7;
/** Hit rate below which the reference warns (30 %). */
export const LOW_HIT_RATE = 0.3;

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * The per-epoch cache report the reference prints: hit rate and
 * size/capacity, with its advice — "effective" above 70 %, a warning and
 * what to change below 30 %. With engine stats it also shows prefetch use,
 * stall time, and how far the hit rate is from the optimum for the plan.
 *
 * @example
 * for await (const batch of loader) train(batch);
 * console.log(formatCacheReport(cached.getCacheStats()));
 * // cache: hit rate 72.4 % (7240 hits, 2760 misses), size 1000/1000, 1760 evictions, 3.9 MB
 * // cache effective (hit rate above 70 %)
 */
export function formatCacheReport(stats: CacheStats | EngineStats): string {
  if (stats === null || typeof stats !== 'object' || typeof stats.hitRate !== 'number') {
    throw new TypeError(`stats must come from getCacheStats(), got ${String(stats)}`);
  }
  const lines = [
    `cache: hit rate ${pct(stats.hitRate)} (${stats.hits} hits, ${stats.misses} misses), ` +
      `size ${stats.size}/${stats.capacity}, ${stats.evictions} evictions, ${mb(stats.bytes)}`,
  ];
  const engine = 'prefetch' in stats ? stats : undefined;
  if (engine !== undefined) {
    const p = engine.prefetch;
    lines.push(
      `prefetch: ${p.issued} issued, ${p.used} used, ${p.wasted} wasted, ${p.inFlight} in flight; ` +
        `readers stalled ${(engine.stallMs / 1000).toFixed(2)} s; peak ${mb(engine.peakBytes)}`,
    );
    if (engine.optimalHitRate !== undefined) {
      lines.push(`optimal for this plan at this size (Belady): ${pct(engine.optimalHitRate)}`);
    }
  }
  const reads = stats.hits + stats.misses;
  if (reads === 0) {
    lines.push('no reads yet');
  } else if (stats.hitRate > EFFECTIVE_HIT_RATE) {
    lines.push('cache effective (hit rate above 70 %)');
  } else if (stats.hitRate < LOW_HIT_RATE) {
    const optimal = engine?.optimalHitRate;
    if (optimal !== undefined && optimal < LOW_HIT_RATE) {
      lines.push(
        `warning: hit rate below 30 %, and no cache of ${stats.capacity} samples can reach ` +
          `more than ${pct(optimal)} on this plan: the data set is much larger than the cache. ` +
          "Hide the latency with prefetch (cacheType 'both', more numWorkers), grow cacheSize, " +
          'or add the disk tier (cacheDir / store).',
      );
    } else {
      lines.push(
        'warning: hit rate below 30 %. Grow cacheSize, prefer prefetch for sequential access, ' +
          "let eviction use the plan (evictionPolicy 'auto' with a DataLoader), " +
          'or use the disk tier (cacheDir / store) for huge data sets.',
      );
    }
  }
  // Belady's optimum is for the current plan: compare it with the hit rate of
  // that plan's reads, once the plan has been read through.
  const planRate = engine?.planHitRate;
  if (
    engine?.optimalHitRate !== undefined &&
    planRate !== undefined &&
    engine.planReads >= engine.planLength &&
    engine.optimalHitRate - planRate > 0.05
  ) {
    lines.push(
      `this plan's hit rate is ${pct(engine.optimalHitRate - planRate)} below the optimum: ` +
        "evictionPolicy 'belady' (or 'auto') with the plan would close the gap",
    );
  }
  return lines.join('\n');
}

/**
 * The reference's cache-size rule: small data sets (< 1,000 samples) cache
 * everything; medium (1,000–10,000) cache `batchSize * 20`; large (> 10,000)
 * cache 1,000. Never more than the data set (a cache larger than the working
 * set is waste).
 *
 * @example
 * recommendCacheSize(500, 32);    // 500
 * recommendCacheSize(5_000, 32);  // 640
 * recommendCacheSize(50_000, 32); // 1000
 */
export function recommendCacheSize(length: number, batchSize: number): number {
  nonNegativeInt('length', length);
  positiveInt('batchSize', batchSize);
  if (length < 1000) return length;
  if (length <= 10_000) return Math.min(length, batchSize * 20);
  return 1000;
}
