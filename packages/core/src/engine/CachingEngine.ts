import { beladyHitRate } from '../cache/belady.js';
import { PlanCache } from '../cache/PlanCache.js';
import { type Dataset, type GetOptions, isPlanAware, type PlanAware } from '../dataset/Dataset.js';
import type { Executor } from '../dataset/Executor.js';
import { InThreadExecutor } from '../dataset/InThreadExecutor.js';
import { ClosedError, LoadError, LoadTimeoutError, MedFusionError } from '../errors.js';
import { AbortError, abortReason } from '../util/abort.js';
import type { Clock } from '../util/Clock.js';
import { index as checkIndex } from '../util/validate.js';
import { AccessPlan, NEVER } from './AccessPlan.js';
import { AccessPredictor } from './accessPredictor.js';
import type { CachingEngineOptions, EngineStats } from './engineOptions.js';
import { resolveEngineOptions } from './engineOptions.js';
import { FlightWaits, LoadFlight } from './loadFlight.js';

export type {
  CachingEngineOptions,
  EngineStats,
  EvictionPolicy,
  PrefetchStats,
} from './engineOptions.js';

const LOCATE_LOOKAHEAD = 256;

/**
 * The caching engine behind `createCachedDataset`: a memory cache (LRU or
 * plan-aware Belady), a prefetcher that follows the plan (or infers
 * sequential / strided access without one), single-flight loads on an
 * {@link Executor} with at most `numWorkers` at once, and one byte budget for
 * everything it holds. Prefetched samples land in the cache when read,
 * prefetch skips cached samples, and a sample is never loaded twice at once.
 * Every wait is bounded by `loadTimeoutMs`.
 *
 * @example
 * const ds = new CachingEngine(source, { cacheSize: 1000, prefetchSize: 10, numWorkers: 2 });
 * ds.setPlan(epochOrder);
 * for (const i of epochOrder) await ds.get(i);
 * console.log(ds.getCacheStats().hitRate);
 * await ds.close();
 */
export class CachingEngine<T> implements Dataset<T>, PlanAware {
  /** Number of samples (that of the wrapped dataset). */
  readonly length: number;
  /** Names the dataset in ClosedError messages. */
  protected readonly label: string = 'CachingEngine';
  private readonly cacheSize: number;
  private readonly prefetchSize: number;
  private readonly numWorkers: number;
  private readonly maxBytes: number;
  private readonly sizeOf: (value: T) => number;
  private readonly executor: Executor<T>;
  private readonly ownsExecutor: boolean;
  /** The wrapped dataset; told the plan too when it can use it (e.g. remote shards). */
  private readonly source: Dataset<T>;
  private readonly loadTimeoutMs: number;
  private readonly clock: Clock;
  private readonly cache: PlanCache<T>;
  private readonly waits: FlightWaits<T>;
  private readonly planEviction: boolean;
  private readonly predictor: AccessPredictor;
  private readonly predicted: Int32Array;
  /** Marks the predicted indices (allocated on the first plan-less read). */
  private predStamp: Uint32Array | undefined;
  private readonly flights = new Map<number, LoadFlight<T>>();
  private queue: LoadFlight<T>[] = [];
  private queueHead = 0;
  private plan: AccessPlan | undefined;
  private planInitial: number[] = [];
  private optimal: number | undefined;
  private scanPos = 0;
  private predCount = 0;
  private predHead = 0;
  private stamp = 0;
  private closed = false;
  private pumping = false;
  private active = 0;
  private prefetchLoading = 0;
  /** Prefetch flights loading, ready or failed, not yet taken: the window. */
  private window = 0;
  private buffered = 0;
  private bufferBytes = 0;
  private avgBytes = 0;
  private loadedCount = 0;
  // counters
  private hits = 0;
  private misses = 0;
  private loads = 0;
  private rejected = 0;
  private issued = 0;
  private used = 0;
  private wasted = 0;
  private stallMs = 0;
  private hitsAtPlan = 0;
  private readsAtPlan = 0;
  private peakBytes = 0;

  constructor(dataset: Dataset<T>, options: CachingEngineOptions<T> = {}) {
    const o = resolveEngineOptions(dataset, options);
    this.source = dataset;
    this.length = o.length;
    this.cacheSize = o.cacheSize;
    this.prefetchSize = o.prefetchSize;
    this.numWorkers = o.numWorkers;
    this.maxBytes = o.maxBytes;
    this.sizeOf = o.sizeOf;
    this.loadTimeoutMs = o.loadTimeoutMs;
    this.clock = o.clock;
    this.executor = o.executor ?? new InThreadExecutor(dataset, { settleOnAbort: false });
    this.ownsExecutor = o.executor === undefined;
    this.waits = new FlightWaits<T>(o.clock, o.loadTimeoutMs, (ms) => {
      this.stallMs += ms;
    });
    const policy = o.evictionPolicy;
    this.planEviction = policy !== 'lru';
    this.cache = new PlanCache<T>({
      capacity: this.cacheSize,
      keySpace: this.length,
      usePlan: this.planEviction,
      onEvict: (key) => this.needAgain(key),
    });
    this.predictor = new AccessPredictor(this.length);
    this.predicted = new Int32Array(this.prefetchSize);
  }

  /**
   * Read sample `index`: from memory when cached (returned synchronously),
   * from the prefetch buffer, by joining the load in flight, or by loading it.
   * Rejects with LoadTimeoutError after `loadTimeoutMs`, with LoadError when
   * the loader failed (the loader's error is its `cause`; MedFusionErrors pass
   * through unwrapped), with ClosedError after `close()`.
   */
  get(index: number, opts?: GetOptions): T | Promise<T> {
    if (this.closed) throw new ClosedError(this.label);
    checkIndex(index, this.length);
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    this.noteRead(index);
    if (this.cache.has(index)) {
      this.hits++;
      const value = this.cache.touch(index) as T;
      this.pump();
      return value;
    }
    this.misses++;
    let flight = this.flights.get(index);
    if (flight !== undefined) {
      if (flight.prefetch && !flight.claimed) {
        flight.claimed = true;
        this.used++;
      }
      if (flight.state === 'ready') {
        const value = flight.value as T;
        this.takeReady(flight);
        this.pump();
        return value;
      }
      if (flight.state === 'failed') {
        this.forget(flight);
        this.pump();
        return Promise.reject(flight.error);
      }
    } else {
      flight = new LoadFlight<T>(index, false);
      this.flights.set(index, flight);
      this.queue.push(flight);
    }
    const wait = this.waits.wait(flight, signal);
    this.pump();
    return wait;
  }

  /**
   * Hand over the coming reads (the DataLoader does, before each epoch).
   * Prefetch then follows it, and eviction (policy 'auto' or 'belady') keeps
   * the samples needed soonest. A new plan replaces the old one at once:
   * prefetches it does not need soon are aborted or moved into the cache.
   * A plan-aware source (a disk tier, remote shards) is told the plan too, so
   * it can read ahead in merged requests.
   */
  setPlan(order: ArrayLike<number>): void {
    if (this.closed) throw new ClosedError(this.label);
    const plan = new AccessPlan(order, this.length);
    if (isPlanAware(this.source)) this.source.setPlan(order);
    this.plan = plan;
    this.hitsAtPlan = this.hits;
    this.readsAtPlan = this.hits + this.misses;
    this.cache.setPlan(plan);
    this.scanPos = 0;
    this.optimal = undefined;
    this.planInitial = [];
    this.cache.forEach((k) => {
      this.planInitial.push(k);
    });
    this.predictor.reset();
    this.predCount = 0;
    const horizon = 2 * this.prefetchSize;
    for (const f of [...this.flights.values()]) {
      if (!f.prefetch || f.claimed || f.waiters.length > 0) continue;
      if (plan.nextUse(f.key) < horizon && f.state !== 'failed') continue;
      if (f.state === 'ready') {
        this.takeReady(f);
        if (!this.cache.has(f.key)) this.wasted++;
      } else this.drop(f);
    }
    this.pump();
  }

  /** A snapshot of the statistics. */
  getCacheStats(): EngineStats {
    const reads = this.hits + this.misses;
    const planReads = this.plan === undefined ? 0 : reads - this.readsAtPlan;
    if (this.optimal === undefined && this.plan !== undefined) {
      this.optimal = beladyHitRate(this.plan.order, this.cacheSize, {
        keySpace: this.length,
        initial: this.planInitial,
      }).hitRate;
    }
    return {
      hits: this.hits,
      misses: this.misses,
      hitRate: reads === 0 ? 0 : this.hits / reads,
      size: this.cache.size,
      capacity: this.cacheSize,
      evictions: this.cache.evictions,
      bytes: this.cache.bytes + this.bufferBytes,
      maxBytes: Number.isFinite(this.maxBytes) ? this.maxBytes : undefined,
      loads: this.loads,
      inFlight: this.active,
      rejected: this.rejected,
      prefetch: {
        issued: this.issued,
        used: this.used,
        wasted: this.wasted,
        inFlight: this.prefetchLoading,
        buffered: this.buffered,
      },
      stallMs: this.stallMs,
      planHitRate: planReads > 0 ? (this.hits - this.hitsAtPlan) / planReads : undefined,
      planReads,
      planLength: this.plan?.order.length ?? 0,
      optimalHitRate: this.optimal,
      peakBytes: this.peakBytes,
    };
  }

  /** Empty the memory cache and the prefetch buffer (counters are kept). */
  clearCache(): void {
    this.cache.clear();
    for (const f of [...this.flights.values()]) {
      if (f.state === 'ready') this.drop(f);
    }
  }

  /**
   * Abort every load in flight (their callers get ClosedError), release the
   * cache and the buffers, and close the executor if the engine made it.
   * Later `get`s throw ClosedError.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new ClosedError(this.label);
    for (const f of this.flights.values()) {
      if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
      f.controller?.abort(error);
      f.value = undefined;
      this.waits.settle(f, error, undefined);
    }
    this.flights.clear();
    this.queue = [];
    this.queueHead = 0;
    this.cache.clear();
    this.bufferBytes = 0;
    this.buffered = 0;
    this.window = 0;
    this.active = 0;
    this.prefetchLoading = 0;
    if (this.ownsExecutor) await this.executor.close?.();
  }

  // ---- reads and the plan --------------------------------------------------

  private noteRead(index: number): void {
    const plan = this.plan;
    if (plan !== undefined) {
      const p = plan.locate(index, LOCATE_LOOKAHEAD);
      if (p >= plan.cursor) plan.advanceTo(p, this.passed);
      return;
    }
    if (this.prefetchSize === 0) return;
    this.predictor.observe(index);
    const n = this.predictor.predict(this.predicted, this.prefetchSize);
    // Forget prefetches the new guess no longer covers (all of them when the
    // reads follow no pattern).
    this.stamp = (this.stamp + 1) >>> 0 || 1;
    this.predStamp ??= new Uint32Array(this.length);
    const stamps = this.predStamp;
    for (let i = 0; i < n; i++) stamps[this.predicted[i]!] = this.stamp;
    stamps[index] = this.stamp;
    for (const f of this.flights.values()) {
      if (f.prefetch && !f.claimed && f.waiters.length === 0 && stamps[f.key] !== this.stamp)
        this.drop(f);
    }
    this.predCount = n;
    this.predHead = 0;
  }

  /** The plan's cursor passed `key`: its next use changed. */
  private readonly passed = (key: number, skipped: boolean): void => {
    this.cache.reprioritize(key);
    if (!skipped) return;
    const f = this.flights.get(key);
    if (f?.prefetch && !f.claimed && f.waiters.length === 0 && this.plan!.nextUse(key) === NEVER) {
      this.drop(f);
    }
  };

  /** `key` left memory; prefetch it again if the plan needs it within the scanned range. */
  private needAgain(key: number): void {
    const plan = this.plan;
    if (plan === undefined) return;
    const next = plan.nextUse(key);
    if (next < this.scanPos) this.scanPos = Math.max(plan.cursor, next);
  }

  // ---- scheduling ------------------------------------------------------------

  private pump(): void {
    if (this.closed || this.pumping) return;
    this.pumping = true;
    try {
      while (this.active < this.numWorkers && this.queueHead < this.queue.length) {
        const f = this.queue[this.queueHead++]!;
        if (f.state === 'queued' && this.flights.get(f.key) === f) this.start(f);
      }
      if (this.queueHead > 64 && this.queueHead * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.queueHead);
        this.queueHead = 0;
      }
      if (this.prefetchSize > 0) {
        if (this.plan !== undefined) this.scanPlan(this.plan);
        else this.issuePredicted();
      }
    } finally {
      this.pumping = false;
    }
  }

  private canPrefetch(): boolean {
    if (this.active >= this.numWorkers || this.window >= this.prefetchSize) return false;
    if (this.maxBytes === Number.POSITIVE_INFINITY) return true;
    return this.bufferBytes + (this.prefetchLoading + 1) * this.avgBytes <= this.maxBytes;
  }

  private scanPlan(plan: AccessPlan): void {
    if (this.scanPos < plan.cursor) this.scanPos = plan.cursor;
    const order = plan.order;
    while (this.scanPos < order.length && this.canPrefetch()) {
      const key = order[this.scanPos++]!;
      if (!this.cache.has(key) && !this.flights.has(key)) this.issuePrefetch(key);
    }
  }

  private issuePredicted(): void {
    while (this.predHead < this.predCount && this.canPrefetch()) {
      const key = this.predicted[this.predHead++]!;
      if (!this.cache.has(key) && !this.flights.has(key)) this.issuePrefetch(key);
    }
  }

  private issuePrefetch(key: number): void {
    const f = new LoadFlight<T>(key, true);
    this.flights.set(key, f);
    this.window++;
    this.start(f);
  }

  private start(f: LoadFlight<T>): void {
    f.state = 'loading';
    f.attempts++;
    this.active++;
    this.loads++;
    if (f.prefetch) {
      this.issued++;
      this.prefetchLoading++;
    }
    const controller = new AbortController();
    f.controller = controller;
    const attempt = f.attempts;
    f.timer = this.clock.setTimeout(() => {
      if (f.state !== 'loading' || f.attempts !== attempt) return;
      const error = new LoadTimeoutError(f.key, this.loadTimeoutMs);
      controller.abort(error);
      this.failed(f, attempt, error);
    }, this.loadTimeoutMs);
    let run: Promise<T>;
    try {
      run = this.executor.run(f.key, controller.signal);
    } catch (error) {
      run = Promise.reject(error);
    }
    run.then(
      (value) => this.loaded(f, attempt, value),
      (error: unknown) => this.failed(f, attempt, error),
    );
  }

  /** Leave the 'loading' state: free the worker slot and the timer. */
  private endLoad(f: LoadFlight<T>): void {
    if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
    f.timer = undefined;
    f.controller = undefined;
    this.active--;
    if (f.prefetch) this.prefetchLoading--;
  }

  private loaded(f: LoadFlight<T>, attempt: number, value: T): void {
    if (this.closed || f.state !== 'loading' || f.attempts !== attempt) return;
    this.endLoad(f);
    const bytes = this.measure(value);
    if (f.waiters.length > 0) {
      this.forget(f);
      this.keep(f.key, value, bytes);
      this.waits.settle(f, undefined, value);
    } else if (f.prefetch) {
      if (this.makeRoom(f.key, bytes)) {
        f.state = 'ready';
        f.value = value;
        f.bytes = bytes;
        this.buffered++;
        this.bufferBytes += bytes;
        this.notePeak();
      } else {
        this.forget(f);
        this.wasted++;
      }
    } else {
      this.forget(f);
      this.keep(f.key, value, bytes);
    }
    this.pump();
  }

  private failed(f: LoadFlight<T>, attempt: number, cause: unknown): void {
    if (this.closed || f.state !== 'loading' || f.attempts !== attempt) return;
    this.endLoad(f);
    const error = cause instanceof MedFusionError ? cause : new LoadError(f.key, cause);
    if (f.waiters.length > 0) {
      this.forget(f);
      this.waits.settle(f, error, undefined);
    } else if (f.prefetch && f.attempts < 2 && !(error instanceof LoadTimeoutError)) {
      f.state = 'queued'; // one retry, ahead of new work
      this.queue.splice(this.queueHead, 0, f);
    } else if (f.prefetch) {
      f.state = 'failed'; // kept for the caller of this index
      f.error = error;
    } else this.forget(f);
    this.pump();
  }

  // ---- memory ---------------------------------------------------------------

  private measure(value: T): number {
    const bytes = this.sizeOf(value);
    const b = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    this.loadedCount++;
    this.avgBytes += (b - this.avgBytes) / this.loadedCount;
    return b;
  }

  /** Put a sample just read into the cache (or not: policy, capacity, budget). */
  private keep(key: number, value: T, bytes: number): void {
    if (bytes > this.maxBytes) {
      this.rejected++;
      this.needAgain(key);
      return;
    }
    if (this.cache.admit(key, value, bytes, this.maxBytes - this.bufferBytes)) this.notePeak();
    else this.needAgain(key);
  }

  /** Make room in the budget for a prefetched sample, evicting what is needed later. */
  private makeRoom(key: number, bytes: number): boolean {
    if (bytes > this.maxBytes) {
      this.rejected++;
      return false;
    }
    const limit =
      this.plan !== undefined && this.planEviction
        ? this.plan.nextUse(key)
        : Number.NEGATIVE_INFINITY;
    while (this.cache.bytes + this.bufferBytes + bytes > this.maxBytes) {
      if (!this.cache.evictAbove(limit)) return false;
    }
    return true;
  }

  /** A caller takes a prefetched sample from the buffer; it moves into the cache. */
  private takeReady(f: LoadFlight<T>): void {
    const value = f.value as T;
    this.forget(f);
    this.keep(f.key, value, f.bytes);
  }

  /** Remove a flight from the books (buffer, window) without aborting it. */
  private forget(f: LoadFlight<T>): void {
    if (f.gone) return;
    f.gone = true;
    if (this.flights.get(f.key) === f) this.flights.delete(f.key);
    if (f.state === 'ready') {
      this.buffered--;
      this.bufferBytes -= f.bytes;
      f.value = undefined;
      f.bytes = 0;
    }
    if (f.prefetch) this.window--;
    f.state = 'failed';
  }

  /** Abandon an unclaimed prefetch: abort it if running, release its buffer. */
  private drop(f: LoadFlight<T>): void {
    if (f.state === 'loading') {
      const controller = f.controller;
      this.endLoad(f);
      controller?.abort(new AbortError('prefetch no longer needed'));
    }
    if (f.prefetch && !f.claimed) this.wasted++;
    this.forget(f);
  }

  private notePeak(): void {
    const bytes = this.cache.bytes + this.bufferBytes;
    if (bytes > this.peakBytes) this.peakBytes = bytes;
  }
}
