import { type Clock, systemClock } from '../util/Clock.js';
import { clock as checkClock, positiveFinite, withDefault } from '../util/validate.js';

/**
 * Retention, shared by the disk stores (`OpfsStore`, `IdbStore`, `LmdbStore`) and the
 * factories that open them: how long a record may stay on disk.
 */
export interface RetentionOptions {
  /**
   * Longest time a record is kept, in milliseconds from its write: an older
   * one is never returned (a miss, reloaded from the source) and is deleted
   * for real (its bytes gone from disk) when the store opens and then
   * every `min(maxAge, 60 s)` while it is open. A record written before the
   * store knew ages (no write time) counts as expired.
   * OPFS records keep their write time in whole seconds.
   * @default undefined (records stay until evicted, deleted or forgotten)
   */
  maxAge?: number;
  /**
   * The time source of `maxAge`: write times and ages come from its `now()`,
   * read as milliseconds since the epoch (so ages hold across visits), and the
   * periodic deletion runs on its timers.
   * @default a clock on `Date.now()` and the global timers
   */
  clock?: Clock;
}

/** Checked retention settings. Internal. */
export interface RetentionSettings {
  maxAge: number | undefined;
  clock: Clock;
}

/** The wall clock: `Date.now()` (ms since the epoch) and the global timers. Internal. */
export const wallClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => systemClock.setTimeout(fn, ms),
  clearTimeout: (h) => systemClock.clearTimeout(h),
};

/** Check `maxAge` (RangeError naming it for ≤ 0 or NaN) and `clock`. Internal. */
export function checkRetentionOptions(o: RetentionOptions): RetentionSettings {
  return {
    maxAge: withDefault('maxAge', o.maxAge, undefined, positiveFinite),
    clock: withDefault('clock', o.clock, wallClock, checkClock),
  };
}

/** How often an open store deletes expired records: every min(maxAge, 60 s). Internal. */
export function sweepInterval(maxAge: number): number {
  return Math.min(maxAge, 60_000);
}

/**
 * Calls `sweep` every `sweepInterval(maxAge)` on `clock` until stopped
 * (errors are the sweep's to count; a sweep never overlaps the next). Internal.
 */
export class SweepTimer {
  private handle: unknown;
  private stopped = false;
  constructor(
    private readonly clock: Clock,
    private readonly every: number,
    private readonly sweep: () => Promise<void>,
  ) {}

  /** Arm the next sweep. */
  start(): void {
    if (this.stopped || this.handle !== undefined) return;
    this.handle = this.clock.setTimeout(() => {
      this.handle = undefined;
      void this.sweep()
        .catch(() => {})
        .finally(() => this.start());
    }, this.every);
  }

  /** No more sweeps. */
  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) this.clock.clearTimeout(this.handle);
    this.handle = undefined;
  }
}
