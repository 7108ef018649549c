import type { Dataset } from '../dataset/Dataset.js';
import type { Executor } from '../dataset/Executor.js';
import type { LoadFlight } from '../dataset/loadFlight.js';
import { LoadTimeoutError } from '../errors.js';
import type { Clock } from '../util/Clock.js';
import type { EngineCounters } from './EngineCounters.js';

/** Where {@link LoadRunner} reports how a load attempt ended. */
export interface LoadOutcome<T> {
  /** Attempt `attempt` of `f` returned `value`. */
  loaded(f: LoadFlight<T>, attempt: number, value: T): void;
  /** Attempt `attempt` of `f` failed (or timed out) with `error`. */
  failed(f: LoadFlight<T>, attempt: number, error: unknown): void;
}

/**
 * Runs the caching engine's loads on its {@link Executor}: at most
 * `numWorkers` at once, each attempt bounded by `loadTimeoutMs` and aborted
 * through its own AbortController. Two queues: loads a caller waits for
 * (demand), in order, and prefetch retries; a free slot always takes demand
 * first, and the engine starts new prefetches only when both are empty, so
 * a waiting reader never queues behind speculation. Internal to the engine,
 * which decides what to load.
 */
export class LoadRunner<T> {
  /** Loads running now. */
  active = 0;
  /** Prefetch loads running now. */
  prefetchLoading = 0;
  /** Loads a caller waits for, in the order asked. */
  private readonly demand = new FlightQueue<T>();
  /** Prefetch retries: after every demand load, before new prefetches. */
  private readonly speculative = new FlightQueue<T>();

  constructor(
    private readonly executor: Executor<T>,
    /** Close the executor on `close()` (the engine made it). */
    private readonly ownsExecutor: boolean,
    private numWorkers: number,
    private readonly loadTimeoutMs: number,
    private readonly clock: Clock,
    private readonly counters: EngineCounters,
    private readonly outcome: LoadOutcome<T>,
    /**
     * Load by calling this dataset's `get` instead of the executor (the
     * `direct` load policy): a synchronous answer settles the attempt at once,
     * a synchronous throw reaches the caller of {@link start}.
     */
    private readonly direct?: Dataset<T>,
  ) {}

  /** Allow `n` loads at once from now on (the autotuner's knob); running loads go on. */
  setNumWorkers(n: number): void {
    this.numWorkers = n;
  }

  /** Whether a load could start now. */
  hasSlot(): boolean {
    return this.active < this.numWorkers;
  }

  /**
   * Queue a load a caller waits for (a new miss, or a queued prefetch retry a
   * caller just joined); it starts when a slot is free, before any speculation.
   */
  enqueue(f: LoadFlight<T>): void {
    this.demand.push(f);
  }

  /** Queue another attempt of prefetch `f`: after the demand loads, before new prefetches. */
  retry(f: LoadFlight<T>): void {
    f.state = 'queued';
    this.speculative.push(f);
  }

  /** Whether loads wait for a slot (the engine starts no new prefetch then). */
  hasQueued(): boolean {
    return this.demand.size() > 0 || this.speculative.size() > 0;
  }

  /** Start queued loads while slots are free, demand first (flights forgotten or started meanwhile are skipped). */
  runQueued(): void {
    this.drain(this.demand);
    this.drain(this.speculative);
  }

  private drain(queue: FlightQueue<T>): void {
    while (this.active < this.numWorkers) {
      const f = queue.shift();
      if (f === undefined) return;
      if (f.state !== 'queued' || f.gone) continue;
      try {
        this.start(f);
      } catch (error) {
        this.outcome.failed(f, f.attempts, error); // a direct load's synchronous throw
      }
    }
  }

  /**
   * Start an attempt of `f` now. `abortable` false (direct loads whose caller
   * passed no signal): the load gets no signal and is never aborted.
   */
  start(f: LoadFlight<T>, abortable = true): void {
    f.state = 'loading';
    f.attempts++;
    f.startedAt = this.clock.now();
    f.fromDisk = false;
    this.active++;
    this.counters.loads++;
    if (f.prefetch) {
      this.counters.issued++;
      this.prefetchLoading++;
    }
    const controller = abortable ? new AbortController() : undefined;
    f.controller = controller;
    const attempt = f.attempts;
    if (this.loadTimeoutMs < Number.POSITIVE_INFINITY) {
      f.timer = this.clock.setTimeout(() => {
        if (f.state !== 'loading' || f.attempts !== attempt) return;
        const error = new LoadTimeoutError(f.key, this.loadTimeoutMs);
        controller?.abort(error);
        this.outcome.failed(f, attempt, error);
      }, this.loadTimeoutMs);
    }
    let run: T | PromiseLike<T>;
    if (this.direct !== undefined) {
      const speculation = f.runOptions?.speculation;
      // a synchronous throw goes, as it was, to whoever started the attempt
      // (runQueued, or the engine's loadNow), which ends the attempt
      run = this.direct.get(
        f.key,
        controller === undefined && speculation === undefined
          ? undefined
          : { signal: controller?.signal, speculation },
      );
      if (!isPromiseLike(run)) {
        this.outcome.loaded(f, attempt, run);
        return;
      }
    } else {
      try {
        run = this.executor.run(f.key, controller!.signal, undefined, f.runOptions);
      } catch (error) {
        run = Promise.reject(error);
      }
    }
    run.then(
      (value) => this.outcome.loaded(f, attempt, value),
      (error: unknown) => this.outcome.failed(f, attempt, error),
    );
  }

  /** `f` leaves the 'loading' state: free its slot and its timer. */
  end(f: LoadFlight<T>): void {
    if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
    f.timer = undefined;
    f.controller = undefined;
    this.active--;
    if (f.prefetch) this.prefetchLoading--;
  }

  /** Stop `f`'s attempt (if running) with `reason`, without reporting an outcome. */
  abort(f: LoadFlight<T>, reason: unknown): void {
    if (f.timer !== undefined) this.clock.clearTimeout(f.timer);
    f.controller?.abort(reason);
  }

  /** Forget the queue and every slot (the engine aborted the loads); close the executor if owned. */
  async close(): Promise<void> {
    this.demand.clear();
    this.speculative.clear();
    this.active = 0;
    this.prefetchLoading = 0;
    if (this.ownsExecutor) await this.executor.close?.();
  }
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** A FIFO of flights with O(1) amortised shift (no per-operation allocation once grown). */
class FlightQueue<T> {
  private items: LoadFlight<T>[] = [];
  private head = 0;

  push(f: LoadFlight<T>): void {
    this.items.push(f);
  }

  shift(): LoadFlight<T> | undefined {
    if (this.head >= this.items.length) return undefined;
    const f = this.items[this.head++];
    if (this.head > 64 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return f;
  }

  /** Entries not yet shifted (some may be stale: started or forgotten). */
  size(): number {
    return this.items.length - this.head;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
