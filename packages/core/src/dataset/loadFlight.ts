import { LoadTimeoutError } from '../errors.js';
import { abortReason } from '../util/abort.js';
import type { Clock, TimerHandle } from '../util/Clock.js';
import type { RunOptions } from './Executor.js';
import { Speculation } from './Speculation.js';

/**
 * Where a load of one sample stands: waiting for a worker slot, running on the
 * executor, loaded ahead of need (held in the prefetch buffer), or failed for
 * good (the error waits for the caller of that index).
 */
export type FlightState = 'queued' | 'loading' | 'ready' | 'failed';

/** A caller waiting for a load. */
export interface Waiter<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
  /** When the caller started waiting (clock time), for `stallMs`. */
  since: number;
  /** Bounds the wait by `loadTimeoutMs`. */
  timer: TimerHandle | undefined;
  /** The caller's own signal and its listener, removed when the wait ends. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * One load of one sample, shared by every caller that wants it (a sample is
 * never loaded twice at once): the single-flight record of the caching engine
 * and of the disk tier, whose callers wait on it through {@link FlightWaits}.
 * The prefetch fields are the engine's. Internal.
 */
export class LoadFlight<T> {
  state: FlightState = 'queued';
  /** Attempts started; a prefetch that fails is retried once at most. */
  attempts = 0;
  /** A get() has taken this prefetch (counted once in `prefetch.used`). */
  claimed = false;
  /** Removed from the engine's books. */
  gone = false;
  value: T | undefined = undefined;
  bytes = 0;
  error: unknown = undefined;
  controller: AbortController | undefined = undefined;
  timer: TimerHandle | undefined = undefined;
  /** Clock time the current attempt started (load latency for the stats and the tuner). */
  startedAt = 0;
  /** The current attempt was served by a tiered dataset's fast tier (the disk), as it reported. */
  fromDisk = false;
  waiters: Waiter<T>[] = [];
  /**
   * What the executor is told: a prefetch runs with a {@link Speculation}
   * (promoted when a reader claims it), a caller's miss as demand (undefined).
   */
  readonly runOptions: RunOptions | undefined;

  constructor(
    /** The sample index. */
    readonly key: number,
    /** Started by the prefetcher (true) or by a caller's miss (false). */
    readonly prefetch: boolean,
  ) {
    this.runOptions = prefetch ? { speculation: new Speculation() } : undefined;
  }

  /** A reader waits for this load now: every queue still holding it treats it as demand. */
  promote(): void {
    this.runOptions?.speculation?.promote();
  }
}

/**
 * The callers waiting on flights (the one single-flight wait of the
 * library): each wait is bounded by the load timeout (none when it is
 * infinite) and by the caller's own signal; a caller that leaves is rejected
 * at once while the load goes on for the others. Stall time is wall time
 * during which at least one caller waited (concurrent waits overlap, they do
 * not add up), so it is comparable with the run's duration.
 */
export class FlightWaits<T> {
  private waiting = 0;
  private stallSince = 0;

  constructor(
    private readonly clock: Clock,
    /** Bound on each wait in ms; `Infinity`: no bound (no timer). */
    private readonly timeoutMs: number,
    /** Receives each stretch of time during which some caller waited, in ms. */
    private readonly stalled: (ms: number) => void,
    /**
     * Called when the last caller of a flight left (timeout or abort) before
     * it settled, with the reason it left: the owner may abort the load.
     */
    private readonly abandoned?: (f: LoadFlight<T>, reason: unknown) => void,
  ) {}

  /** Wait for `f`; rejects with LoadTimeoutError after the timeout, or the signal's reason. */
  wait(f: LoadFlight<T>, signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = this.clock.now();
      if (this.waiting++ === 0) this.stallSince = now;
      const waiter: Waiter<T> = {
        resolve,
        reject,
        since: now,
        timer: undefined,
        signal,
        onAbort: undefined,
      };
      if (this.timeoutMs < Number.POSITIVE_INFINITY) {
        waiter.timer = this.clock.setTimeout(() => {
          this.leave(f, waiter, new LoadTimeoutError(f.key, this.timeoutMs));
        }, this.timeoutMs);
      }
      if (signal !== undefined) {
        waiter.onAbort = () => this.leave(f, waiter, abortReason(signal));
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      f.waiters.push(waiter);
    });
  }

  /**
   * The stall stretch still open at `now` (some caller has waited since), in
   * ms; 0 when nobody waits. A reader that keeps gets outstanding (the
   * DataLoader's look-ahead) may never close its stretch mid-epoch, so the
   * autotuner adds this to the closed stretches to see the stall as it grows.
   */
  openStallMs(now: number): number {
    return this.waiting > 0 ? now - this.stallSince : 0;
  }

  /** Resolve every waiter of `f` with `value`, or reject them with `error` when it is set. */
  settle(f: LoadFlight<T>, error: unknown, value: T | undefined): void {
    const waiters = f.waiters;
    f.waiters = [];
    for (const w of waiters) {
      this.release(w);
      if (error === undefined) w.resolve(value as T);
      else w.reject(error);
    }
  }

  /** One caller stops waiting (timeout or its own abort); the load goes on for the cache. */
  private leave(f: LoadFlight<T>, waiter: Waiter<T>, error: unknown): void {
    const i = f.waiters.indexOf(waiter);
    if (i < 0) return;
    f.waiters.splice(i, 1);
    this.release(waiter);
    waiter.reject(error);
    if (f.waiters.length === 0) this.abandoned?.(f, error);
  }

  private release(waiter: Waiter<T>): void {
    if (waiter.timer !== undefined) this.clock.clearTimeout(waiter.timer);
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (--this.waiting === 0) this.stalled(this.clock.now() - this.stallSince);
  }
}
