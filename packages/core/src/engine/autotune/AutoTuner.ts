import type { Clock } from '../../util/Clock.js';

/** Most loads in flight `'auto'` goes to (`numWorkers: 'auto'`). */
export const AUTO_MAX_NUM_WORKERS = 64;
/** Deepest prefetch `'auto'` goes to (`prefetchSize: 'auto'`). */
export const AUTO_MAX_PREFETCH_SIZE = 256;
/** Where `'auto'` starts before it has measured anything. */
export const AUTO_INITIAL_NUM_WORKERS = 4;
/** Where `'auto'` starts before it has measured anything. */
export const AUTO_INITIAL_PREFETCH_SIZE = 16;

/** Reads (or finished loads) between two decisions of the tuner (half a typical batch). */
const INTERVAL_READS = 16;
/**
 * Reads between two decisions during the slow start (the first climb from
 * the initial knobs, as TCP's): a decision per few loads, steps of ×4.
 */
const SLOW_START_READS = 4;
/** Most decisions the slow start lasts (it ends sooner once the stall is gone). */
const SLOW_START_DECISIONS = 6;
/** Data-stall share above which the hill climb adds concurrency. */
const STALL_HIGH = 0.05;
/** Data-stall share below which the consumer is the bottleneck: the climb backs off. */
const STALL_LOW = 0.01;
/** Headroom over Little's law (latency jitter, loads that end out of order). */
const HEADROOM = 1.25;
const MAX_BOOST = 16;
/** Share of the loads below which the source is no longer expected (a warm disk tier serves the rest). */
const SOURCE_SHARE_MIN = 0.02;

/** The knobs in force and how `'auto'` sees the run (part of `EngineStats`). */
export interface TuningStats {
  /** Loads in flight allowed now (`numWorkers`, tuned when `'auto'`). */
  numWorkers: number;
  /** Prefetch depth now (`prefetchSize`, tuned when `'auto'`). */
  prefetchSize: number;
  /** Whether `numWorkers` is `'auto'`. */
  autoNumWorkers: boolean;
  /** Whether `prefetchSize` is `'auto'`. */
  autoPrefetchSize: boolean;
  /** The tuner's load latency estimate in ms (undefined when nothing is `'auto'` or before a load). */
  latencyEstimateMs: number | undefined;
  /** The tuner's estimate of the consumer's demand, in reads per second (undefined before a decision). */
  demandPerSec: number | undefined;
}

/** What the tuner sets: the engine's knobs (the engine applies them; no method is replaced). */
export interface TunedKnobs {
  /** Allow `n` loads in flight. */
  setNumWorkers(n: number): void;
  /** Keep up to `n` samples loading or loaded ahead. */
  setPrefetchSize(n: number): void;
}

/** Settings of an {@link AutoTuner}. */
export interface AutoTunerSettings {
  /** Tune loads in flight (else `numWorkers` stays). */
  tuneNumWorkers: boolean;
  /** Tune the prefetch depth (else `prefetchSize` stays). */
  tunePrefetchSize: boolean;
  /** Starting (or fixed) loads in flight. */
  numWorkers: number;
  /** Starting (or fixed) prefetch depth. */
  prefetchSize: number;
  /** The engine's byte budget (Infinity when unset). */
  maxBytes: number;
  /** The memory cache's capacity (0: the whole budget may hold prefetched samples). */
  cacheSize: number;
}

/**
 * The online controller behind `numWorkers: 'auto'` and `prefetchSize: 'auto'`
 * (what tf.data's AUTOTUNE does for parallelism and buffer sizes). Every
 * {@link INTERVAL_READS} reads or finished loads it measures, on the injected
 * clock, the consumer's demand (reads per ms of the consumer's own time: wall
 * time minus data stall, the stall stretch still open included), the share of
 * reads that needed a load, and the load latency — of source loads and of
 * disk hits apart when a disk tier reports which it served
 * (`ReportsLoadTiers`), with the disk's share of the loads. Little's law gives
 * the loads in flight that hide the latency: demand × miss share × mean
 * latency of the mix, with headroom;
 * a hill climb on the measured stall share then scales that up while stalls
 * persist and the last step helped, and back towards Little's figure when the
 * consumer is the bottleneck (stall below 1 %). The prefetch depth is twice
 * the loads in flight (loading + ready), and deep enough that a source load
 * starts a source latency before its read while the source still serves
 * loads (a mix of fast disk hits averages to a latency too short for them),
 * within the byte budget. Steps are
 * bounded (at most ×2 up, ÷2 down per decision), so a latency step moves it
 * within a few batches; only the slow start (the first climb from the
 * initial knobs while the consumer waits) decides every
 * {@link SLOW_START_READS} reads with ×4 steps, so the start costs a few
 * load latencies, not a few dozen. Internal to the caching engine; allocates nothing per read.
 */
export class AutoTuner {
  /** Loads in flight in force. */
  numWorkers: number;
  /** Prefetch depth in force. */
  prefetchSize: number;
  private started = false;
  private intervalStart = 0;
  private stallAtStart = 0;
  private reads = 0;
  private misses = 0;
  /** Loads finished in the interval: from the source (or an untiered dataset), and from disk. */
  private sourceLoads = 0;
  private sourceMsSum = 0;
  private diskLoads = 0;
  private diskMsSum = 0;
  /** Smoothed latency of source loads, of disk hits, and the disk's share of the loads. */
  private sourceMs = Number.NaN;
  private diskMs = Number.NaN;
  private diskShare = Number.NaN;
  /** The mean load latency of the mix (the stats' estimate). */
  private latencyMs = Number.NaN;
  private demand = Number.NaN;
  /** Share of the reads that needed a load, in the last interval with reads. */
  private missShare = 1;
  private boost = 1;
  private lastStallShare = Number.NaN;
  private climbed = false;
  private cooldown = 0;
  /** Decisions left in the slow start (0: over). */
  private slowStart = SLOW_START_DECISIONS;

  constructor(
    private readonly clock: Clock,
    private readonly knobs: TunedKnobs,
    private readonly settings: AutoTunerSettings,
  ) {
    this.numWorkers = settings.numWorkers;
    this.prefetchSize = settings.prefetchSize;
  }

  /**
   * A read happened (`hit`: served from memory). `stallMs` is the engine's
   * stall so far (the stretch still open included), `avgBytes` the mean bytes
   * of a sample so far.
   */
  read(hit: boolean, stallMs: number, avgBytes: number): void {
    const now = this.clock.now();
    if (!this.started) {
      this.started = true;
      this.begin(now, stallMs);
    }
    this.reads++;
    if (!hit) this.misses++;
    this.maybeDecide(now, stallMs, avgBytes);
  }

  /**
   * A load finished after `latencyMs` (`fromDisk`: a disk tier served it). A
   * reader that asks ahead (the DataLoader's look-ahead) stops reading while
   * its gets wait, so the tuner also decides after as many finished loads as
   * reads: otherwise it would sit on its start knobs for a whole batch of loads.
   */
  loaded(latencyMs: number, fromDisk: boolean, stallMs: number, avgBytes: number): void {
    const ms = Math.max(latencyMs, 0);
    if (fromDisk) {
      this.diskLoads++;
      this.diskMsSum += ms;
    } else {
      this.sourceLoads++;
      this.sourceMsSum += ms;
    }
    if (!this.started) return;
    this.maybeDecide(this.clock.now(), stallMs, avgBytes);
  }

  /** The knobs and the estimates, for the stats. */
  stats(): TuningStats {
    return {
      numWorkers: this.numWorkers,
      prefetchSize: this.prefetchSize,
      autoNumWorkers: this.settings.tuneNumWorkers,
      autoPrefetchSize: this.settings.tunePrefetchSize,
      latencyEstimateMs: Number.isNaN(this.latencyMs) ? undefined : this.latencyMs,
      demandPerSec: Number.isNaN(this.demand) ? undefined : this.demand * 1000,
    };
  }

  /** Decide once the interval has seen enough reads or finished loads. */
  private maybeDecide(now: number, stallMs: number, avgBytes: number): void {
    const every = this.slowStart > 0 ? SLOW_START_READS : INTERVAL_READS;
    if (this.reads < every && this.sourceLoads + this.diskLoads < every) return;
    const elapsed = now - this.intervalStart;
    if (elapsed <= 0) return; // nothing measurable yet: the interval goes on
    this.decide(elapsed, stallMs - this.stallAtStart, avgBytes);
    this.begin(now, stallMs);
  }

  private begin(now: number, stallMs: number): void {
    this.intervalStart = now;
    this.stallAtStart = stallMs;
    this.reads = 0;
    this.misses = 0;
    this.sourceLoads = 0;
    this.sourceMsSum = 0;
    this.diskLoads = 0;
    this.diskMsSum = 0;
  }

  private decide(elapsed: number, stall: number, avgBytes: number): void {
    this.measureLatencies();
    if (Number.isNaN(this.latencyMs)) return;
    // the consumer's own time: what it spent not waiting for data (at least 1 % of the interval);
    // an interval of finished loads without a read keeps the last estimates
    const busy = Math.max(elapsed - stall, elapsed * 0.01);
    if (this.reads > 0) {
      this.demand = this.reads / busy;
      this.missShare = this.misses / this.reads;
    }
    if (Number.isNaN(this.demand)) return;
    const stallShare = Math.min(1, stall / elapsed);
    // slow start: ×4 steps while the consumer mostly waits, until the stall is gone
    const factor = this.slowStart > 0 && stallShare > STALL_HIGH ? 4 : 2;
    this.slowStart = factor === 4 ? this.slowStart - 1 : 0;
    this.climb(stallShare);
    const little = this.demand * this.missShare * this.latencyMs;
    const workers = Math.min(
      AUTO_MAX_NUM_WORKERS,
      this.step(this.numWorkers, Math.ceil(little * HEADROOM * this.boost) + 1, factor),
    );
    // a source load must start a source latency before its read, however fast the disk serves the rest
    const sourceAhead =
      this.diskShare > 0 && 1 - this.diskShare >= SOURCE_SHARE_MIN
        ? Math.ceil(this.demand * this.missShare * this.sourceMs * HEADROOM * this.boost) + 1
        : 0;
    if (this.settings.tuneNumWorkers) {
      this.numWorkers = workers;
      this.knobs.setNumWorkers(this.numWorkers);
    }
    if (this.settings.tunePrefetchSize) {
      // twice the loads in flight (loading + ready), of the capped figure: 64 in flight, depth 128;
      // deeper when source loads mixed with fast disk hits need it (up to the cap of 256)
      this.prefetchSize = Math.min(
        this.step(this.prefetchSize, Math.max(2 * workers, sourceAhead), factor),
        this.depthCap(avgBytes),
      );
      this.knobs.setPrefetchSize(this.prefetchSize);
    }
  }

  /**
   * Fold the interval's loads into the smoothed latencies (source, disk) and
   * the disk's share; the mean of the mix is Little's latency.
   */
  private measureLatencies(): void {
    const ewma = (old: number, x: number) => (Number.isNaN(old) ? x : 0.3 * old + 0.7 * x);
    const loads = this.sourceLoads + this.diskLoads;
    if (loads === 0) return;
    if (this.sourceLoads > 0)
      this.sourceMs = ewma(this.sourceMs, this.sourceMsSum / this.sourceLoads);
    if (this.diskLoads > 0) this.diskMs = ewma(this.diskMs, this.diskMsSum / this.diskLoads);
    this.diskShare = ewma(this.diskShare, this.diskLoads / loads);
    if (Number.isNaN(this.diskMs)) this.latencyMs = this.sourceMs;
    else if (Number.isNaN(this.sourceMs)) this.latencyMs = this.diskMs;
    else this.latencyMs = this.diskShare * this.diskMs + (1 - this.diskShare) * this.sourceMs;
  }

  /** The hill climb on the stall share: up while stalls persist and the last step helped. */
  private climb(stallShare: number): void {
    if (this.cooldown > 0) this.cooldown--;
    if (stallShare > STALL_HIGH) {
      if (this.climbed && stallShare > this.lastStallShare * 0.9) {
        // the last step up did not help: the source (not concurrency) limits; step back
        this.boost = Math.max(1, this.boost / 1.5);
        this.climbed = false;
        this.cooldown = 4;
      } else if (this.cooldown === 0) {
        this.boost = Math.min(MAX_BOOST, this.boost * 1.5);
        this.climbed = true;
      } else this.climbed = false;
    } else {
      if (stallShare < STALL_LOW) this.boost = Math.max(1, this.boost * 0.8);
      this.climbed = false;
    }
    this.lastStallShare = stallShare;
  }

  /** Move from `current` towards `target`, at most ×`factor` up and ÷2 down. */
  private step(current: number, target: number, factor: number): number {
    const up = Math.max(factor * current, current + 4);
    return Math.max(1, Math.min(up, Math.max(Math.ceil(current / 2), target)));
  }

  /** The deepest prefetch the byte budget allows (half of it when a cache shares it). */
  private depthCap(avgBytes: number): number {
    const { maxBytes, cacheSize } = this.settings;
    if (!Number.isFinite(maxBytes) || !(avgBytes > 0)) return AUTO_MAX_PREFETCH_SIZE;
    const fit = Math.floor(maxBytes / avgBytes);
    return Math.max(1, Math.min(AUTO_MAX_PREFETCH_SIZE, cacheSize > 0 ? Math.floor(fit / 2) : fit));
  }
}
