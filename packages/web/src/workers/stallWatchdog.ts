import { AbortError, type Clock, systemClock, type TimerHandle } from '@medfusion/core';
import {
  abortSignal,
  clock as checkClock,
  nonEmptyString,
  object,
  positiveMs,
} from '@medfusion/core/internal';
import { StallError } from './workerErrors.js';

/** Options of {@link StallWatchdog}. */
export interface StallWatchdogOptions {
  /**
   * Longest time without progress before the watched work counts as stalled.
   * @example 60_000
   */
  stallMs: number;
  /**
   * The stage the work starts in, named as a status line would say it.
   * @default 'starting'
   */
  stage?: string;
  /**
   * Aborting it stops the watchdog: what it watches rejects with the reason.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Time source (tests pass a `ManualClock`).
   * @default systemClock
   */
  clock?: Clock;
}

/**
 * Turns a hang into an error: the watched work reports each step of progress
 * ({@link StallWatchdog.progress}, with the stage it is in), and when none
 * comes for `stallMs` the promise {@link StallWatchdog.watch} returns rejects
 * with a {@link StallError} (`code: 'STALLED'`) naming the stage. Use it where
 * no timeout of the work's own can fire, e.g. on the page, around calls to a
 * training worker whose thread may stop answering.
 *
 * @example
 * const watchdog = new StallWatchdog({ stallMs: 60_000, stage: 'opening the data set' });
 * const result = await watchdog.watch(trainer.train(settings, (e: any) => watchdog.progress(e.type)));
 */
export class StallWatchdog {
  private current: string;
  private last: number;
  private timer: TimerHandle | undefined;
  private stalled: ((error: Error) => void) | undefined;
  private readonly stallMs: number;
  private readonly clock: Clock;
  private readonly signal: AbortSignal | undefined;
  private closed = false;

  /** A watchdog with the bound `options.stallMs`; throws TypeError / RangeError for bad options. */
  constructor(options: StallWatchdogOptions) {
    object('options', options);
    this.stallMs = positiveMs('stallMs', options.stallMs);
    this.current =
      options.stage === undefined ? 'starting' : nonEmptyString('stage', options.stage);
    this.clock = options.clock === undefined ? systemClock : checkClock('clock', options.clock);
    this.signal = options.signal === undefined ? undefined : abortSignal('signal', options.signal);
    this.last = this.clock.now();
  }

  /** The stage last reported. */
  get stage(): string {
    return this.current;
  }

  /** Milliseconds since the last progress. */
  get idleMs(): number {
    return this.clock.now() - this.last;
  }

  /** Progress was made (in `stage`, when given: the stage from now on). */
  progress(stage?: string): void {
    if (stage !== undefined) this.current = nonEmptyString('stage', stage);
    this.last = this.clock.now();
  }

  /**
   * Settles as `work` does, unless no progress comes for `stallMs` first: then
   * rejects with a {@link StallError} (the work itself is left as it is: end
   * it, e.g. terminate its worker). One piece of work at a time.
   */
  watch<T>(work: Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new AbortError('the watchdog is closed'));
    if (this.signal?.aborted) return Promise.reject(this.signal.reason ?? new AbortError());
    this.last = this.clock.now();
    const stalled = new Promise<never>((_, reject) => {
      this.stalled = reject;
    });
    const onAbort = () => this.stalled?.(this.signal?.reason ?? new AbortError());
    this.signal?.addEventListener('abort', onAbort, { once: true });
    this.arm(this.stallMs);
    return Promise.race([work, stalled]).finally(() => {
      this.signal?.removeEventListener('abort', onAbort);
      this.stop();
    });
  }

  /** Stop watching; a `watch` still pending settles with its work only. Idempotent. */
  close(): void {
    this.closed = true;
    this.stop();
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      const idle = this.idleMs;
      if (idle >= this.stallMs) this.stalled?.(new StallError(this.current, idle));
      else this.arm(this.stallMs - idle);
    }, ms);
  }

  private stop(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.stalled = undefined;
  }
}
