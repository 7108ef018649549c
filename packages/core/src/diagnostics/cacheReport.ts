import type { CacheStats } from '../engine/CacheStats.js';
import type { EngineStats } from '../engine/engineOptions.js';
import type { TieredCacheStats } from '../engine/TieredCachedDataset.js';
import { nonNegativeInt, positiveInt, showValue } from '../util/validate.js';
import { diagnose } from './diagnose.js';

import { EFFECTIVE_HIT_RATE, LOW_HIT_RATE } from './hitRateThresholds.js';

export { EFFECTIVE_HIT_RATE, LOW_HIT_RATE };

function pct(x: number): string {
  return `${(x * 100).toFixed(1)} %`;
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${(bytes / 1024).toFixed(1)} KB`;
}

/** Where the reads went, per tier, for a dataset with a disk tier. */
function tierLine(t: TieredCacheStats): string {
  const reads = t.hits + t.misses;
  const share = (n: number) => (reads > 0 ? ` (${pct(n / reads)})` : '');
  const loads = t.diskHits + t.diskMisses;
  const diskRate = loads > 0 ? `; disk hit rate ${pct(t.diskHits / loads)} of memory misses` : '';
  const dropped = t.disk.writesDropped;
  const lost =
    dropped > 0
      ? `; ${dropped} disk writes dropped (queue full: loaded from the source again)`
      : '';
  return (
    `tiers: memory ${t.hits}${share(t.hits)}, disk ${t.diskHits}${share(t.diskHits)}, ` +
    `source ${t.diskMisses}${share(t.diskMisses)}${diskRate}${lost}`
  );
}

/** What to change when the memory hit rate is low; never what is already configured. */
function lowHitAdvice(
  stats: CacheStats | EngineStats,
  engine: EngineStats | undefined,
  tiered: TieredCacheStats | undefined,
): string {
  // Full: the cache size is what limits it; evicted: something (cacheSize or maxBytes) pushed samples out.
  const full = stats.size >= stats.capacity;
  const grow =
    stats.evictions === 0
      ? undefined
      : stats.maxBytes !== undefined && !full
        ? 'raise maxBytes'
        : 'grow cacheSize';
  const optimal = engine?.optimalHitRate;
  const prefetchOn = (engine?.prefetch.issued ?? 0) > 0;
  const fixes: string[] = [];
  let why = 'warning: hit rate below 30 %.';
  if (optimal !== undefined && optimal < LOW_HIT_RATE) {
    why =
      `warning: hit rate below 30 %, and no cache of ${stats.capacity} samples can reach ` +
      `more than ${pct(optimal)} on this plan: ` +
      (full
        ? 'the data set is much larger than the cache.'
        : 'the plan reads few samples again, so a larger cache would not help.');
    fixes.push(
      prefetchOn
        ? 'hide the latency with more numWorkers or a larger prefetchSize'
        : "hide the latency with prefetch (cacheType 'both', more numWorkers)",
    );
    if (full && grow) fixes.push(grow);
  } else {
    if (grow) fixes.push(grow);
    fixes.push('prefer prefetch for sequential access');
    if (engine?.evictionPolicy !== 'belady') {
      fixes.push("let eviction use the plan (evictionPolicy 'auto' with a DataLoader)");
    }
  }
  if (tiered === undefined) {
    fixes.push('add the disk tier (cacheDir / store) for huge data sets');
  } else {
    why += ` The disk tier served ${tiered.diskHits} of ${tiered.diskHits + tiered.diskMisses} memory misses.`;
  }
  return `${why} To change: ${fixes.join('; ')}.`;
}

/**
 * The per-epoch cache report the reference prints: hit rate and
 * size/capacity, with its advice — "effective" above 70 %, a warning and
 * what to change below 30 %. With engine stats it also shows prefetch use,
 * stall time, and how far the hit rate is from the optimum for the plan;
 * with a disk tier ({@link TieredCacheStats}) where the reads went per tier
 * (memory, disk, source). It advises only on evidence (no verdict while
 * every miss was a first read: nothing evicted, cache not full) and never
 * advises what is already configured (the disk tier, prefetch, Belady).
 *
 * @example
 * for await (const batch of loader) train(batch);
 * console.log(formatCacheReport(cached.getCacheStats()));
 * // cache: hit rate 72.4 % (7240 hits, 2760 misses), size 1000/1000, 1760 evictions, 3.9 MB
 * // cache effective (hit rate above 70 %)
 */
export function formatCacheReport(stats: CacheStats | EngineStats | TieredCacheStats): string {
  if (stats === null || typeof stats !== 'object' || typeof stats.hitRate !== 'number') {
    throw new TypeError(`stats must come from getCacheStats(), got ${showValue(stats)}`);
  }
  const lines = [
    `cache: hit rate ${pct(stats.hitRate)} (${stats.hits} hits, ${stats.misses} misses), ` +
      `size ${stats.size}/${stats.capacity}, ${stats.evictions} evictions, ${mb(stats.bytes)}`,
  ];
  const engine = 'prefetch' in stats ? stats : undefined;
  const tiered = 'diskHits' in stats ? stats : undefined;
  if (tiered !== undefined) lines.push(tierLine(tiered));
  if (engine !== undefined) {
    const p = engine.prefetch;
    lines.push(
      `prefetch: ${p.issued} issued, ${p.used} used, ${p.wasted} wasted, ${p.inFlight} in flight; ` +
        `readers stalled ${(engine.stallMs / 1000).toFixed(2)} s; peak ${mb(engine.peakBytes)}`,
    );
    if (engine.optimalHitRate !== undefined) {
      lines.push(`optimal for this plan at this size (Belady): ${pct(engine.optimalHitRate)}`);
    }
    const ph = engine.loadPhases;
    if (ph !== undefined && ph.loads > 0) {
      lines.push(
        `source loads: ${ph.loads} timed, per load ${(ph.sourceMs / ph.loads).toFixed(1)} ms ` +
          `waiting for bytes, ${(ph.decodeMs / ph.loads).toFixed(1)} ms decoding ` +
          `(${ph.threads} loading thread${ph.threads === 1 ? '' : 's'})`,
      );
    }
  }
  const reads = stats.hits + stats.misses;
  if (reads === 0) {
    lines.push('no reads yet');
  } else if (stats.hitRate > EFFECTIVE_HIT_RATE) {
    lines.push('cache effective (hit rate above 70 %)');
  } else if (stats.evictions === 0 && stats.size < stats.capacity) {
    // Nothing left the cache: every miss so far was a first read.
    lines.push(
      'not enough evidence yet: nothing was evicted, so every miss so far was a first read; ' +
        'judge the hit rate once samples are read again (after an epoch)',
    );
  } else if (stats.hitRate < LOW_HIT_RATE) {
    lines.push(lowHitAdvice(stats, engine, tiered));
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
  if (engine !== undefined && reads > 0) {
    // The limiting stage, from the same stats (see diagnose()).
    const d = diagnose(engine);
    lines.push(`bottleneck: ${d.bottleneck} (${d.evidence})`);
    if (d.recommendation !== undefined) lines.push(`try: ${d.recommendation}`);
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
