import { beladyHitRate } from '../cache/belady.js';
import type { LoadPhaseStats } from '../dataset/LoadPhases.js';
import type { AccessPlan } from '../plan/AccessPlan.js';
import type { TuningStats } from './autotune/AutoTuner.js';
import type { LoadLatencyStats } from './autotune/LatencyWindow.js';
import type { ActiveEvictionPolicy, EngineStats } from './engineOptions.js';

/** What the caching engine holds right now, read when a stats snapshot is taken. */
export interface EngineState {
  /** The current plan, if any. */
  plan: AccessPlan | undefined;
  /** Capacity of the memory cache. */
  cacheSize: number;
  /** The dataset's length. */
  keySpace: number;
  /** Samples in the memory cache. */
  size: number;
  /** Samples evicted from the memory cache so far. */
  evictions: number;
  /** Bytes held by the cache and the prefetch buffer. */
  bytes: number;
  /** The byte budget (Infinity when unset). */
  maxBytes: number;
  /** Loads running now. */
  inFlight: number;
  /** Prefetch loads running now. */
  prefetchInFlight: number;
  /** Prefetched samples held, not yet taken. */
  buffered: number;
  /** The eviction order in force. */
  evictionPolicy: ActiveEvictionPolicy;
  /** The knobs in force and the tuner's estimates. */
  tuning: TuningStats;
  /** Recent load latencies. */
  loadLatency: LoadLatencyStats | undefined;
  /** Where the source's loads spent their time, when reported. */
  loadPhases: LoadPhaseStats | undefined;
}

/**
 * The caching engine's counters (bumped in place on the hot path) and the
 * assembly of its {@link EngineStats}, including Belady's optimum for the
 * current plan (computed once per plan, when first asked). Internal.
 */
export class EngineCounters {
  hits = 0;
  misses = 0;
  loads = 0;
  rejected = 0;
  issued = 0;
  used = 0;
  wasted = 0;
  stallMs = 0;
  peakBytes = 0;
  /** Clock time of the first read (NaN before it) and of the latest. */
  firstReadAt = Number.NaN;
  lastReadAt = 0;
  private hitsAtPlan = 0;
  private readsAtPlan = 0;
  private planInitial: number[] = [];
  private optimal: number | undefined;

  /** A plan was set while `initial` was cached: the plan's counters start now. */
  planSet(initial: number[]): void {
    this.hitsAtPlan = this.hits;
    this.readsAtPlan = this.hits + this.misses;
    this.planInitial = initial;
    this.optimal = undefined;
  }

  /** Record that `bytes` are held now. */
  notePeak(bytes: number): void {
    if (bytes > this.peakBytes) this.peakBytes = bytes;
  }

  /** A snapshot of the statistics given what the engine holds now. */
  snapshot(s: EngineState): EngineStats {
    const reads = this.hits + this.misses;
    const planReads = s.plan === undefined ? 0 : reads - this.readsAtPlan;
    if (this.optimal === undefined && s.plan !== undefined) {
      this.optimal = beladyHitRate(s.plan.plan, s.cacheSize, {
        keySpace: s.keySpace,
        initial: this.planInitial,
      }).hitRate;
    }
    return {
      hits: this.hits,
      misses: this.misses,
      hitRate: reads === 0 ? 0 : this.hits / reads,
      size: s.size,
      capacity: s.cacheSize,
      evictions: s.evictions,
      bytes: s.bytes,
      maxBytes: Number.isFinite(s.maxBytes) ? s.maxBytes : undefined,
      loads: this.loads,
      inFlight: s.inFlight,
      rejected: this.rejected,
      prefetch: {
        issued: this.issued,
        used: this.used,
        wasted: this.wasted,
        inFlight: s.prefetchInFlight,
        buffered: s.buffered,
      },
      stallMs: this.stallMs,
      planHitRate: planReads > 0 ? (this.hits - this.hitsAtPlan) / planReads : undefined,
      planReads,
      planLength: s.plan?.length ?? 0,
      optimalHitRate: s.plan === undefined ? undefined : this.optimal,
      peakBytes: this.peakBytes,
      evictionPolicy: s.evictionPolicy,
      tuning: s.tuning,
      loadLatency: s.loadLatency,
      loadPhases: s.loadPhases,
      readSpanMs: Number.isNaN(this.firstReadAt) ? 0 : this.lastReadAt - this.firstReadAt,
    };
  }
}
