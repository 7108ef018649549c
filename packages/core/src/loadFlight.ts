import type { AbortControllerLike, AbortSignalLike } from './abort.js';
import type { TimerHandle } from './Clock.js';

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
  signal: AbortSignalLike | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * One load of one sample, shared by every caller that wants it (a sample is
 * never loaded twice at once). Internal to the caching engine.
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
  controller: AbortControllerLike | undefined = undefined;
  timer: TimerHandle | undefined = undefined;
  waiters: Waiter<T>[] = [];

  constructor(
    /** The sample index. */
    readonly key: number,
    /** Started by the prefetcher (true) or by a caller's miss (false). */
    readonly prefetch: boolean,
  ) {}
}
