import { registerErrorClass } from '../errorRegistry.js';
import { describe, MedFusionError } from '../errors.js';
import { abortReason, onAbort, throwIfAborted } from '../util/abort.js';
import { type Clock, systemClock } from '../util/Clock.js';
import {
  abortSignal,
  clock as checkClock,
  fn,
  func,
  nonNegativeFinite,
  nonNegativeInt,
  optionsBag,
  positiveFinite,
  withDefault,
} from '../util/validate.js';

/** Options of {@link retry} and {@link backoffDelay}. */
export interface RetryOptions {
  /**
   * Retries after the first attempt (so at most `retries + 1` attempts).
   * @default 4 (2 in a DataLoader's `onError: { retry }`)
   */
  retries?: number;
  /**
   * Delay before the first retry, in milliseconds.
   * @default 100
   */
  baseDelayMs?: number;
  /**
   * Upper bound of any one delay, in milliseconds.
   * @default 5000
   */
  maxDelayMs?: number;
  /**
   * Growth of the delay per retry (exponential backoff).
   * @default 2
   */
  factor?: number;
  /**
   * Fraction of each delay that is randomised ("equal jitter"): the delay is
   * `d * (1 - jitter) + d * jitter * random()`. 0 makes delays exact.
   * @default 0.5
   */
  jitter?: number;
  /**
   * Source of randomness in [0, 1) for the jitter (inject a seeded one in tests).
   * @default Math.random
   */
  random?: () => number;
  /**
   * Time and timers.
   * @default systemClock
   */
  clock?: Clock;
  /** Aborts the waiting and the attempts; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Whether an error is worth another attempt.
   * @default {@link isRetryable}: errors carrying `retryable: true`
   */
  shouldRetry?: (error: unknown, attempt: number) => boolean;
  /** Called before each wait with the error, the attempt that failed (1-based) and the delay. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Every attempt failed with a retryable error; `cause` is the last one. */
export class RetryExhaustedError extends MedFusionError {
  /** How many attempts were made. */
  readonly attempts: number;
  constructor(attempts: number, cause: unknown) {
    super('RETRIES_EXHAUSTED', `Gave up after ${attempts} attempts: ${describe(cause)}`, { cause });
    this.name = 'RetryExhaustedError';
    this.attempts = attempts;
  }
}
registerErrorClass('RetryExhaustedError', RetryExhaustedError);

/** True for errors that say they are transient (`retryable: true`, e.g. network errors and 5xx). */
export function isRetryable(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { retryable?: unknown }).retryable === true
  );
}

/** {@link RetryOptions} checked, with the defaults filled in (what {@link retry} runs with); each field as documented there. */
export interface ResolvedRetryOptions {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitter: number;
  random: () => number;
  clock: Clock;
  signal: AbortSignal | undefined;
  shouldRetry: (error: unknown, attempt: number) => boolean;
  onRetry: ((error: unknown, attempt: number, delayMs: number) => void) | undefined;
}

/**
 * Check `options` (a TypeError / RangeError naming `${prefix}retries` and so
 * on, e.g. `retry.retries` for a reader's `retry` option) and fill in the
 * defaults: the one check of {@link RetryOptions}, run by {@link retry} and
 * {@link backoffDelay}, and up front by whatever takes them as an option.
 */
export function resolveRetryOptions(
  options: RetryOptions | undefined,
  prefix = '',
): ResolvedRetryOptions {
  const o = optionsBag(prefix === '' ? 'options' : prefix.slice(0, -1), options);
  const name = (key: string) => `${prefix}${key}`;
  const jitter = withDefault(name('jitter'), o.jitter, 0.5, nonNegativeFinite);
  if (jitter > 1) throw new RangeError(`${name('jitter')} must be in [0, 1], got ${jitter}`);
  return {
    retries: withDefault(name('retries'), o.retries, 4, nonNegativeInt),
    baseDelayMs: withDefault(name('baseDelayMs'), o.baseDelayMs, 100, nonNegativeFinite),
    maxDelayMs: withDefault(name('maxDelayMs'), o.maxDelayMs, 5000, nonNegativeFinite),
    factor: withDefault(name('factor'), o.factor, 2, positiveFinite),
    jitter,
    random: withDefault(name('random'), o.random, Math.random, fn<() => number>),
    clock: withDefault(name('clock'), o.clock, systemClock, checkClock),
    signal: withDefault(name('signal'), o.signal, undefined, abortSignal),
    shouldRetry: withDefault(
      name('shouldRetry'),
      o.shouldRetry,
      isRetryable,
      fn<ResolvedRetryOptions['shouldRetry']>,
    ),
    onRetry: withDefault(
      name('onRetry'),
      o.onRetry,
      undefined,
      fn<NonNullable<ResolvedRetryOptions['onRetry']>>,
    ),
  };
}

/** `min(maxDelayMs, baseDelayMs * factor^(retry-1))` of checked options. */
function delayOf(retry: number, o: ResolvedRetryOptions): number {
  return Math.min(o.maxDelayMs, o.baseDelayMs * o.factor ** Math.max(0, retry - 1));
}

/**
 * The wait before retry number `retry` (1-based) under `options`, before
 * jitter: `min(maxDelayMs, baseDelayMs * factor^(retry-1))`.
 */
export function backoffDelay(retry: number, options: RetryOptions = {}): number {
  return delayOf(retry, resolveRetryOptions(options));
}

/**
 * Run `attempt` until it succeeds, retrying retryable failures with
 * exponential backoff on an injected clock. Non-retryable errors and aborts
 * are thrown at once; when retries run out a {@link RetryExhaustedError}
 * (code `RETRIES_EXHAUSTED`) carries the last error as `cause`.
 *
 * @example
 * const bytes = await retry((n) => fetchRange(url, 0, 1024), { retries: 3, clock: new ManualClock() });
 */
export async function retry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  func('attempt', attempt);
  const o = resolveRetryOptions(options);
  const { retries, jitter, random, clock, signal, shouldRetry, onRetry } = o;
  for (let n = 1; ; n++) {
    throwIfAborted(signal);
    try {
      return await attempt(n);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (!shouldRetry(error, n)) throw error;
      if (n > retries) throw new RetryExhaustedError(n, error);
      const d = delayOf(n, o);
      const delay = d * (1 - jitter) + d * jitter * random();
      onRetry?.(error, n, delay);
      await sleep(clock, delay, signal);
    }
  }
}

/** Wait `ms` on `clock`; rejects with the abort reason when `signal` fires. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    let unwatch = () => {};
    const handle = clock.setTimeout(() => {
      unwatch();
      resolve();
    }, ms);
    if (signal) {
      unwatch = onAbort(signal, () => {
        clock.clearTimeout(handle);
        reject(abortReason(signal));
      });
    }
  });
}
