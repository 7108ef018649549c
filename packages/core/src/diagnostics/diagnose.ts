import { AUTO_MAX_NUM_WORKERS } from '../engine/autotune/AutoTuner.js';
import type { LoadLatencyStats } from '../engine/autotune/LatencyWindow.js';
import type { EngineStats } from '../engine/engineOptions.js';
import type { TieredCacheStats } from '../engine/TieredCachedDataset.js';
import { nonNegativeFinite, optionsBag, showValue, withDefault } from '../util/validate.js';
import { EFFECTIVE_HIT_RATE, LOW_HIT_RATE } from './hitRateThresholds.js';

/** Data-stall share of the step below which the consumer (training step) is the bottleneck. */
export const CONSUMER_BOUND_STALL_SHARE = 0.1;

/**
 * Share of the loading threads' time spent decoding at or above which decode CPU
 * is the limiting stage (also when a load decodes for at least as long as it waits for bytes).
 */
export const DECODE_BOUND_BUSY_SHARE = 0.5;

/** The stage that limits throughput, as {@link diagnose} names it. */
export type Bottleneck =
  | 'none'
  | 'consumer'
  | 'source-latency'
  | 'decode-cpu'
  | 'disk'
  | 'memory-budget'
  | 'cache-size';

/** Reads served by one tier. */
export interface TierShare {
  /** Reads (memory) or loads (disk, source) it served. */
  count: number;
  /** Its share of all reads. */
  share: number;
}

/** Result of {@link diagnose}: what happened per tier, what limits, and the one change to try. */
export interface Diagnosis {
  /** Reads seen (hits + misses). */
  reads: number;
  /** Where reads were served: memory, disk (undefined without a disk tier), source. */
  tiers: { memory: TierShare; disk: TierShare | undefined; source: TierShare };
  /** Hit rate of the memory tier. */
  hitRate: number;
  /** The reference's verdict: above 70 % effective, below 30 % low. */
  hitRateVerdict: 'no-reads' | 'effective' | 'fair' | 'low';
  /** The reference's thresholds. */
  thresholds: { low: number; effective: number };
  /** Belady's hit rate for the current plan at this cache size, when a plan is set. */
  optimalHitRate: number | undefined;
  /** True when no cache of this size can reach 30 % on this plan (the data set dwarfs the cache). */
  optimumBelowLow: boolean;
  /** Share of the read span spent waiting for data (undefined when no time was measured). */
  stallShare: number | undefined;
  /** Load latency percentiles, when the stats have them. */
  loadLatency: LoadLatencyStats | undefined;
  /**
   * Per source load, mean ms waiting for bytes and decoding, and the share of the
   * loading threads' time spent decoding; undefined unless the loader reports its
   * phases (`EngineStats.loadPhases`).
   */
  loadPhases: { sourceMs: number; decodeMs: number; decodeBusy: number | undefined } | undefined;
  /** The limiting stage. */
  bottleneck: Bottleneck;
  /** The number that shows it, in words (e.g. "data stall 46 % of the step, loads p50 98 ms"). */
  evidence: string;
  /** The one change most likely to help, never one already configured; undefined when none. */
  recommendation: string | undefined;
}

/** Options of {@link diagnose}. */
export interface DiagnoseOptions {
  /**
   * Wall time of the run in ms, when the stats' `readSpanMs` is not the right
   * denominator (e.g. one epoch's); `stallMs` and `loadPhases` in the stats should
   * then cover the same span (the decode share is `decodeMs / (wallMs × threads)`).
   * @default stats.readSpanMs
   */
  wallMs?: number;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

function isTiered(stats: EngineStats): stats is TieredCacheStats {
  return typeof (stats as Partial<TieredCacheStats>).diskHits === 'number';
}

/**
 * Name the bottleneck from a dataset's `getCacheStats()`: the per-tier split
 * (memory / disk / source), the hit rate against the reference's thresholds
 * (< 30 % low, > 70 % effective) and against the plan's optimum, the data
 * stall share of the step, load latency percentiles, the limiting stage with
 * the number that shows it, and one recommended change that is not already
 * configured. Decode CPU is told from source latency when the loader reports
 * its load phases (`@medfusion/web`'s sources do, in a page or through a worker pool
 * whose workers pass it to `exposeLoader`'s `phases`); otherwise both are load latency.
 *
 * @example
 * for await (const batch of loader) await train(batch);
 * const d = diagnose(cached.getCacheStats());
 * console.log(d.bottleneck, d.evidence, d.recommendation);
 */
export function diagnose(stats: EngineStats, options: DiagnoseOptions = {}): Diagnosis {
  if (stats === null || typeof stats !== 'object' || typeof stats.hitRate !== 'number') {
    throw new TypeError(`stats must come from getCacheStats(), got ${showValue(stats)}`);
  }
  const reads = stats.hits + stats.misses;
  const share = (n: number) => (reads === 0 ? 0 : n / reads);
  const tiered = isTiered(stats) ? stats : undefined;
  const diskHits = tiered?.diskHits ?? 0;
  const sourceLoads = tiered === undefined ? stats.loads : tiered.diskMisses;
  optionsBag('options', options);
  const wallMs = withDefault('wallMs', options.wallMs, stats.readSpanMs, nonNegativeFinite);
  const stallShare =
    wallMs !== undefined && wallMs > 0 ? Math.min(1, stats.stallMs / wallMs) : undefined;
  const optimal = stats.optimalHitRate;
  const base = {
    reads,
    tiers: {
      memory: { count: stats.hits, share: share(stats.hits) },
      disk: tiered === undefined ? undefined : { count: diskHits, share: share(diskHits) },
      source: { count: sourceLoads, share: share(sourceLoads) },
    },
    hitRate: stats.hitRate,
    hitRateVerdict: (reads === 0
      ? 'no-reads'
      : stats.hitRate > EFFECTIVE_HIT_RATE
        ? 'effective'
        : stats.hitRate < LOW_HIT_RATE
          ? 'low'
          : 'fair') as Diagnosis['hitRateVerdict'],
    thresholds: { low: LOW_HIT_RATE, effective: EFFECTIVE_HIT_RATE },
    optimalHitRate: optimal,
    optimumBelowLow: optimal !== undefined && optimal < LOW_HIT_RATE,
    stallShare,
    loadLatency: stats.loadLatency,
    loadPhases: phaseShares(stats, wallMs),
  };
  const [bottleneck, evidence, recommendation] = limitingStage(
    stats,
    tiered,
    stallShare,
    base.loadPhases,
  );
  return { ...base, bottleneck, evidence, recommendation };
}

type Finding = [Bottleneck, string, string | undefined];
type PhaseShares = Diagnosis['loadPhases'];

/** Mean phase times per source load and the decode share of the loading threads' time. */
function phaseShares(stats: EngineStats, wallMs: number | undefined): PhaseShares {
  const p = stats.loadPhases;
  if (p === undefined || !(p.loads > 0)) return undefined;
  const threads = Math.max(1, p.threads);
  return {
    sourceMs: p.sourceMs / p.loads,
    decodeMs: p.decodeMs / p.loads,
    decodeBusy:
      wallMs !== undefined && wallMs > 0 ? Math.min(1, p.decodeMs / (wallMs * threads)) : undefined,
  };
}

/** True when decoding, not waiting for bytes, is what a source load spends its time on. */
function decodeBound(phases: PhaseShares): phases is NonNullable<PhaseShares> {
  if (phases === undefined) return false;
  return (
    phases.decodeMs >= phases.sourceMs ||
    (phases.decodeBusy !== undefined && phases.decodeBusy >= DECODE_BOUND_BUSY_SHARE)
  );
}

function limitingStage(
  stats: EngineStats,
  tiered: TieredCacheStats | undefined,
  stallShare: number | undefined,
  phases: PhaseShares,
): Finding {
  const reads = stats.hits + stats.misses;
  if (reads === 0) return ['none', 'no reads yet', undefined];
  const lat = stats.loadLatency;
  const latency = lat === undefined ? '' : `, loads p50 ${lat.p50Ms.toFixed(1)} ms`;
  if (stallShare !== undefined && stallShare < CONSUMER_BOUND_STALL_SHARE) {
    return [
      'consumer',
      `data stall ${pct(stallShare)} of the step: the training step sets the pace`,
      undefined,
    ];
  }
  const stall = stallShare === undefined ? 'data stall unknown' : `data stall ${pct(stallShare)}`;
  const tuning = stats.tuning;
  const prefetching = stats.prefetch.issued > 0 || (tuning?.prefetchSize ?? 0) > 0;
  // the byte budget stops caching or prefetch
  if (
    stats.maxBytes !== undefined &&
    stats.peakBytes >= 0.95 * stats.maxBytes &&
    (stats.rejected > 0 || stats.size < stats.capacity)
  ) {
    return [
      'memory-budget',
      `${stall}; peak ${stats.peakBytes} B of maxBytes ${stats.maxBytes} B, ` +
        `cache ${stats.size}/${stats.capacity}`,
      tiered === undefined
        ? 'add the disk tier (store / cacheDir) so what memory cannot hold is read locally'
        : 'raise maxBytes (the budget, not cacheSize, stops the cache)',
    ];
  }
  if (tiered !== undefined && tiered.diskHits > tiered.diskMisses) {
    const rec = !prefetching
      ? "cacheType 'both' so disk reads are prefetched"
      : tuning !== undefined && !tuning.autoNumWorkers
        ? "numWorkers: 'auto' to overlap more disk reads"
        : 'grow cacheSize so more of the plan is served from memory';
    return [
      'disk',
      `${stall}; ${tiered.diskHits} of ${tiered.diskHits + tiered.diskMisses} loads from disk${latency}`,
      rec,
    ];
  }
  const optimal = stats.optimalHitRate;
  if (
    optimal !== undefined &&
    stats.planReads >= stats.planLength &&
    stats.evictionPolicy === 'lru' &&
    optimal - (stats.planHitRate ?? stats.hitRate) > 0.05
  ) {
    return [
      'cache-size',
      `${stall}; hit rate ${pct(stats.planHitRate ?? stats.hitRate)} vs ${pct(optimal)} possible`,
      "evictionPolicy 'auto' with a DataLoader (eviction that reads the plan)",
    ];
  }
  const inFlight = `${tuning?.numWorkers ?? '?'} loads in flight`;
  const first = firstReads(stats, tiered);
  const lost = droppedWrites(tiered);
  const split =
    phases === undefined
      ? ''
      : `; per load ${phases.sourceMs.toFixed(1)} ms waiting for bytes, ` +
        `${phases.decodeMs.toFixed(1)} ms decoding`;
  if (decodeBound(phases)) {
    const threads = stats.loadPhases?.threads ?? 1;
    const busy =
      phases.decodeBusy === undefined
        ? ''
        : ` (decoding kept ${threads} loading thread${threads === 1 ? '' : 's'} ${pct(phases.decodeBusy)} busy)`;
    const rec = threads > 1 && lost !== undefined ? lost[1] : decodeAdvice(threads, tiered, first);
    return ['decode-cpu', `${stall}${split}${busy}${lost?.[0] ?? ''}`, rec];
  }
  let rec: string | undefined;
  if (!prefetching) rec = "cacheType 'both' (prefetch hides source latency)";
  else if (tuning !== undefined && !tuning.autoNumWorkers) {
    rec = "numWorkers: 'auto' (and prefetchSize: 'auto') to keep enough loads in flight";
  } else if (tiered === undefined && (first || stats.hitRate < LOW_HIT_RATE)) {
    rec = first
      ? 'add the disk tier (store / cacheDir): no cache size helps a first read, but the next visit reads locally'
      : 'add the disk tier (store / cacheDir): later epochs read locally';
  } else if (lost !== undefined) {
    rec = lost[1];
  } else if (tuning !== undefined && tuning.numWorkers >= AUTO_MAX_NUM_WORKERS) {
    rec =
      'the source is at the most loads in flight autotune allows: use a faster source (shards, a local copy)';
  } else if (first) {
    // compulsory misses, loads in flight already tuned, the disk tier already on
    rec =
      phases === undefined
        ? 'no cache size helps a first read (the disk tier serves these next time): decode in more ' +
          'Web Workers (poolSize) while cores are idle, else read fewer, larger files (tar shards)'
        : 'no cache size helps a first read (the disk tier serves these next time), and loads ' +
          'wait for bytes, not for decoding: read fewer, larger files (tar shards)';
  } else rec = 'grow cacheSize toward the working set';
  const evidence = `${stall}; ${inFlight}${latency}${split}${first ? '; every miss a first read' : ''}${lost?.[0] ?? ''}`;
  return ['source-latency', evidence, rec];
}

/**
 * Evidence and advice when the disk tier dropped writes (its write-behind queue was
 * full): those samples are not on disk, so later epochs load them from the source again.
 */
function droppedWrites(tiered: TieredCacheStats | undefined): [string, string] | undefined {
  const dropped = tiered?.disk.writesDropped ?? 0;
  if (tiered === undefined || dropped === 0 || tiered.disk.diskDisabled) return undefined;
  return [
    `; ${dropped} disk writes dropped (queue full)`,
    "give the disk tier's write queue more room (diskWriteQueue.maxPending, default 64): " +
      `${dropped} samples were not written, so later epochs load them from the source again`,
  ];
}

/** The one change for a decode-bound source, never one already in force. */
function decodeAdvice(
  threads: number,
  tiered: TieredCacheStats | undefined,
  first: boolean,
): string {
  if (threads <= 1) {
    return "decode in a pool of Web Workers (createWorkerExecutor, poolSize 'auto') beside the training step";
  }
  if (tiered === undefined) {
    return 'add the disk tier (store / cacheDir): it keeps samples decoded, so later epochs skip the decode';
  }
  return first
    ? 'every sample is decoded once (the disk tier keeps it decoded for the next epochs): decode ' +
        "at the size the model takes (the decoder's width / height), or give the pool more workers while cores are idle"
    : "decode at the size the model takes (the decoder's width / height), or grow cacheSize so fewer samples are decoded again";
}

/**
 * Whether every miss so far read its sample for the first time (compulsory misses, as in
 * a first epoch), so that no cache size would have turned one into a hit: nothing ever
 * came from the disk tier though it keeps every load, or the memory cache never let a
 * sample go (no eviction, no rejection).
 */
function firstReads(stats: EngineStats, tiered: TieredCacheStats | undefined): boolean {
  const memoryKeptAll = stats.capacity > 0 && stats.evictions === 0 && stats.rejected === 0;
  if (tiered === undefined) return memoryKeptAll;
  const diskKeptAll =
    tiered.diskHits === 0 && tiered.disk.writesDropped === 0 && !tiered.disk.diskDisabled;
  return memoryKeptAll || diskKeptAll;
}
