// Past 400 lines on purpose (issue 48): what is left here is the engine's one state machine,
// the flights, the prefetch window and the plan's cursor, which every method below changes together.
// Its parts already live beside it (EngineMemory, PrefetchSchedule, LoadRunner, EngineCounters,
// EngineTuning, loadPolicy, loadFlight); splitting the rest would pass that state between files.
import type { PlanCache } from '../cache/PlanCache.js';
import { type Dataset, type GetOptions, isPlanAware, type PlanAware } from '../dataset/Dataset.js';
import { InThreadExecutor } from '../dataset/InThreadExecutor.js';
import { loadPhasesOf } from '../dataset/LoadPhases.js';
import { reportsLoadTiers } from '../dataset/LoadTiers.js';
import { FlightWaits, LoadFlight } from '../dataset/loadFlight.js';
import { ClosedError, LoadError, LoadTimeoutError, MedFusionError } from '../errors.js';
import { AccessPlan, NEVER } from '../plan/AccessPlan.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import { AbortError, abortReason } from '../util/abort.js';
import type { Clock } from '../util/Clock.js';
import { index as checkIndex } from '../util/validate.js';
import { AUTO_MAX_PREFETCH_SIZE } from './autotune/AutoTuner.js';
import { EngineCounters } from './EngineCounters.js';
import { EngineMemory } from './EngineMemory.js';
import { EngineTuning } from './EngineTuning.js';
import type { CachingEngineOptions, EngineStats } from './engineOptions.js';
import { resolveEngineOptions } from './engineOptions.js';
import { engineStats } from './engineStats.js';
import { LoadRunner } from './LoadRunner.js';
import { type LoadPolicy, loadPolicyOf } from './loadPolicy.js';
import { PrefetchSchedule } from './PrefetchSchedule.js';

const LOCATE_LOOKAHEAD = 256;

/**
 * The caching engine behind `createCachedDataset`: a memory cache (LRU or
 * plan-aware Belady), a prefetcher that follows the plan (or infers
 * sequential / strided access without one), single-flight loads on an
 * executor with at most `numWorkers` at once, and one byte budget for
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
  private readonly clock: Clock;
  /** `numWorkers` and `prefetchSize` in force, and the autotuner if any is `'auto'`. */
  private readonly tuning: EngineTuning;
  /** How loads run and what their callers see (the engine's, or CachedDataset's). */
  private readonly policy: LoadPolicy<T>;
  private readonly planWindow: number;
  private readonly runner: LoadRunner<T>;
  /** The wrapped dataset; told the plan too when it can use it (e.g. remote shards). */
  private readonly source: Dataset<T>;
  /** The cache and the prefetch buffer under one byte budget. */
  private readonly memory: EngineMemory<T>;
  private readonly cache: PlanCache<T>;
  private readonly waits: FlightWaits<T>;
  private readonly schedule: PrefetchSchedule;
  private readonly counters = new EngineCounters();
  private readonly flights = new Map<number, LoadFlight<T>>();
  private plan: AccessPlan | undefined;
  /** Where the loads' phases are read from: the executor given, else the dataset. */
  private readonly phaseSources: readonly unknown[];
  private closed = false;
  private pumping = false;
  /** Prefetch flights loading, ready or failed, not yet taken: the window. */
  private window = 0;

  constructor(dataset: Dataset<T>, options: CachingEngineOptions<T> = {}) {
    const o = resolveEngineOptions(dataset, options);
    const policy = loadPolicyOf<T>(options);
    this.policy = policy;
    const timeoutMs = policy.timeouts ? o.loadTimeoutMs : Number.POSITIVE_INFINITY;
    this.source = dataset;
    this.phaseSources = [o.executor, dataset];
    this.length = o.length;
    this.clock = o.clock;
    this.planWindow = Math.max(o.planWindow, LOCATE_LOOKAHEAD);
    this.runner = new LoadRunner<T>(
      o.executor ?? new InThreadExecutor(dataset, { settleOnAbort: false }),
      o.executor === undefined,
      o.numWorkers,
      timeoutMs,
      o.clock,
      this.counters,
      {
        loaded: (f, attempt, value) => this.loaded(f, attempt, value),
        failed: (f, attempt, error) => this.failed(f, attempt, error),
      },
      policy.direct ? dataset : undefined,
    );
    this.waits = new FlightWaits<T>(
      o.clock,
      timeoutMs,
      (ms) => {
        this.counters.stallMs += ms;
      },
      policy.abortAbandoned ? (f, reason) => this.abandon(f, reason) : undefined,
    );
    this.schedule = new PrefetchSchedule(
      this.length,
      o.autoPrefetchSize ? AUTO_MAX_PREFETCH_SIZE : o.prefetchSize,
    );
    this.memory = new EngineMemory<T>(o, this.counters, this.schedule, policy.admits);
    this.cache = this.memory.cache;
    this.tuning = new EngineTuning(o, this.runner);
    // a tiered dataset (the disk tier) says which loads its disk served: the tuner keeps them apart
    if (reportsLoadTiers(dataset)) {
      dataset.reportLoadTiers((index, fromDisk) => {
        const f = this.flights.get(index);
        if (f?.state === 'loading') f.fromDisk = fromDisk;
      });
    }
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
    const hit = this.cache.has(index);
    this.noteTiming(hit);
    if (hit) {
      this.counters.hits++;
      const value = this.cache.touch(index) as T;
      this.pump();
      return value;
    }
    this.counters.misses++;
    let flight = this.flights.get(index);
    if (flight !== undefined) {
      if (flight.prefetch && !flight.claimed) {
        flight.claimed = true;
        this.counters.used++;
        // a reader waits for it now: demand in the executor's queues (worker
        // pool, request slots), and a prefetch retry waiting for one of our
        // slots moves to the readers' queue
        flight.promote();
        if (flight.state === 'queued') this.runner.enqueue(flight);
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
      if (this.policy.direct && this.runner.hasSlot()) return this.loadNow(flight, signal);
      this.runner.enqueue(flight);
    }
    const wait = this.waits.wait(flight, signal);
    this.pump();
    return wait;
  }

  /**
   * Hand over the coming reads (the DataLoader does, before each epoch): an
   * array of indices or an `EpochPlan` (read through a window of
   * `planWindow` positions, so a plan over a billion samples costs no more
   * than one over a thousand). Prefetch then follows it, and eviction (policy 'auto' or 'belady') keeps
   * the samples needed soonest. A new plan replaces the old one at once:
   * prefetches it does not need soon are aborted or moved into the cache.
   * A plan-aware source (a disk tier, remote shards) is told the plan too, so
   * it can read ahead in merged requests.
   */
  setPlan(order: PlanInput): void {
    if (this.closed) throw new ClosedError(this.label);
    const plan = new AccessPlan(order, this.length, this.planWindow);
    if (isPlanAware(this.source)) this.source.setPlan(order);
    this.plan = plan;
    const initial: number[] = [];
    this.cache.forEach((k) => {
      initial.push(k);
    });
    this.counters.planSet(initial);
    this.cache.setPlan(plan);
    this.schedule.setPlan(plan);
    const horizon = 2 * this.tuning.prefetchSize;
    for (const f of [...this.flights.values()]) {
      if (!f.prefetch || f.claimed || f.waiters.length > 0) continue;
      if (plan.nextUse(f.key) < horizon && f.state !== 'failed') continue;
      if (f.state === 'ready') {
        this.takeReady(f);
        if (!this.cache.has(f.key)) this.counters.wasted++;
      } else this.drop(f);
    }
    this.pump();
  }

  /** A snapshot of the statistics, including the eviction policy in force. */
  getCacheStats(): EngineStats {
    const { counters, memory, tuning, runner, plan } = this;
    const loadPhases = loadPhasesOf(...this.phaseSources);
    return engineStats({ counters, memory, tuning, runner, plan, loadPhases });
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
      this.runner.abort(f, error);
      f.value = undefined;
      this.waits.settle(f, error, undefined);
    }
    this.flights.clear();
    this.memory.clear();
    this.window = 0;
    await this.runner.close();
  }

  // ---- reads and the plan --------------------------------------------------

  /** Clock the read (read span for the stall share) and let the autotuner decide. */
  private noteTiming(hit: boolean): void {
    const now = this.clock.now();
    if (Number.isNaN(this.counters.firstReadAt)) this.counters.firstReadAt = now;
    this.counters.lastReadAt = now;
    this.tuning.read(hit, this.stallNow(now), this.memory.avgBytes);
  }

  /** Stall so far, including the stretch still open (for the autotuner). */
  private stallNow(now: number): number {
    return this.counters.stallMs + this.waits.openStallMs(now);
  }

  private noteRead(index: number): void {
    const plan = this.plan;
    if (plan !== undefined) {
      const p = plan.locate(index, LOCATE_LOOKAHEAD);
      if (p >= plan.cursor) plan.advanceTo(p, this.passed);
      return;
    }
    if (this.tuning.prefetchSize === 0) return;
    this.schedule.observe(index);
    // Forget prefetches the new guess no longer covers (all of them when the
    // reads follow no pattern).
    for (const f of this.flights.values()) {
      if (f.prefetch && !f.claimed && f.waiters.length === 0 && !this.schedule.isPredicted(f.key))
        this.drop(f);
    }
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

  /**
   * Start a direct load (policy `direct`) on the caller's turn: the dataset's
   * synchronous answer is returned as is (and kept), its synchronous throw
   * thrown; otherwise the caller waits for the flight like any other.
   */
  private loadNow(f: LoadFlight<T>, signal: AbortSignal | undefined): T | Promise<T> {
    try {
      this.runner.start(f, signal !== undefined);
    } catch (error) {
      this.runner.end(f);
      this.forget(f);
      throw error;
    }
    if (f.gone) return f.value as T; // answered synchronously
    const wait = this.waits.wait(f, signal);
    this.pump();
    return wait;
  }

  /** Every caller of demand load `f` left (policy `abortAbandoned`): stop it, unless it has no signal. */
  private abandon(f: LoadFlight<T>, reason: unknown): void {
    const controller = f.controller;
    if (f.prefetch || f.state !== 'loading' || controller === undefined) return;
    this.runner.end(f);
    controller.abort(reason);
    this.forget(f);
    this.pump();
  }

  // ---- scheduling ------------------------------------------------------------

  private pump(): void {
    if (this.closed || this.pumping) return;
    this.pumping = true;
    try {
      this.runner.runQueued();
      if (this.tuning.prefetchSize > 0) this.prefetchAhead();
    } finally {
      this.pumping = false;
    }
  }

  private canPrefetch(): boolean {
    // speculation only in a slot no queued load (a reader's, a retry) wants
    if (
      !this.runner.hasSlot() ||
      this.runner.hasQueued() ||
      this.window >= this.tuning.prefetchSize
    ) {
      return false;
    }
    return this.memory.fits(this.runner.prefetchLoading);
  }

  /** Start prefetches of the schedule's next candidates while the window has room. */
  private prefetchAhead(): void {
    while (this.canPrefetch()) {
      const key = this.schedule.next();
      if (key < 0) return;
      if (!this.cache.has(key) && !this.flights.has(key)) this.issuePrefetch(key);
    }
  }

  private issuePrefetch(key: number): void {
    const f = new LoadFlight<T>(key, true);
    this.flights.set(key, f);
    this.window++;
    this.runner.start(f);
  }

  private loaded(f: LoadFlight<T>, attempt: number, value: T): void {
    if (this.closed || f.state !== 'loading' || f.attempts !== attempt) return;
    const now = this.clock.now();
    this.tuning.loaded(now - f.startedAt, f.fromDisk, this.stallNow(now), this.memory.avgBytes);
    this.runner.end(f);
    const bytes = this.memory.measure(value);
    if (f.waiters.length > 0) {
      this.forget(f);
      this.memory.keep(f.key, value, bytes);
      this.waits.settle(f, undefined, value);
    } else if (f.prefetch) {
      if (this.memory.makeRoom(f.key, bytes, this.plan !== undefined)) {
        f.state = 'ready';
        f.value = value;
        f.bytes = bytes;
        this.memory.hold(bytes);
      } else {
        this.forget(f);
        this.counters.wasted++;
      }
    } else {
      this.forget(f);
      f.value = value; // a direct load answered synchronously returns it from there
      this.memory.keep(f.key, value, bytes);
    }
    this.pump();
  }

  private failed(f: LoadFlight<T>, attempt: number, cause: unknown): void {
    if (this.closed || f.state !== 'loading' || f.attempts !== attempt) return;
    this.runner.end(f);
    const error =
      this.policy.rawErrors || cause instanceof MedFusionError
        ? cause
        : new LoadError(f.key, cause);
    if (f.waiters.length > 0) {
      this.forget(f);
      this.waits.settle(f, error, undefined);
    } else if (f.prefetch && f.attempts < 2 && !(error instanceof LoadTimeoutError)) {
      // one retry: after the loads readers wait for, ahead of new prefetches
      this.runner.retry(f);
    } else if (f.prefetch) {
      f.state = 'failed'; // kept for the caller of this index
      f.error = error;
    } else this.forget(f);
    this.pump();
  }

  // ---- the buffer ------------------------------------------------------------

  /** A caller takes a prefetched sample from the buffer; it moves into the cache. */
  private takeReady(f: LoadFlight<T>): void {
    const value = f.value as T;
    this.forget(f);
    this.memory.keep(f.key, value, f.bytes);
  }

  /** Remove a flight from the books (buffer, window) without aborting it. */
  private forget(f: LoadFlight<T>): void {
    if (f.gone) return;
    f.gone = true;
    if (this.flights.get(f.key) === f) this.flights.delete(f.key);
    if (f.state === 'ready') {
      this.memory.release(f.bytes);
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
      this.runner.end(f);
      controller?.abort(new AbortError('prefetch no longer needed'));
    }
    if (f.prefetch && !f.claimed) this.counters.wasted++;
    this.forget(f);
  }
}
