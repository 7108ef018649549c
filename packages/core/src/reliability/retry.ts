import { registerErrorClass } from '../errorRegistry.js';
import { describe, MedFusionError } from '../errors.js';
import { abortReason, throwIfAborted } from '../util/abort.js';
import { type Clock, systemClock } from '../util/Clock.js';
import { func, nonNegativeFinite, nonNegativeInt, positiveFinite } from '../util/validate.js';

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

/**
 * The wait before retry number `retry` (1-based) under `options`, before
 * jitter: `min(maxDelayMs, baseDelayMs * factor^(retry-1))`.
 */
export function backoffDelay(retry: number, options: RetryOptions = {}): number {
  const base = nonNegativeFinite('baseDelayMs', options.baseDelayMs ?? 100);
  const max = nonNegativeFinite('maxDelayMs', options.maxDelayMs ?? 5000);
  const factor = positiveFinite('factor', options.factor ?? 2);
  return Math.min(max, base * factor ** Math.max(0, retry - 1));
}

/**
 * Run `attempt` until it succeeds, retrying retryable failures with
 * exponential backoff on an injected clock. Non-retryable errors and aborts
 * are thrown at once; when retries run out a {@link RetryExhaustedError}
 * (code `RETRIES_EXHAUSTED`) carries the last error as `cause`.
 *
 * @example
 * const bytes = await retry((n) => fetchRange(url, 0, 1024), { retries: 3, clock });
 */
export async function retry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  func('attempt', attempt);
  const retries = nonNegativeInt('retries', options.retries ?? 4);
  const jitter = nonNegativeFinite('jitter', options.jitter ?? 0.5);
  if (jitter > 1) throw new RangeError(`jitter must be in [0, 1], got ${jitter}`);
  backoffDelay(1, options); // validates the delay options up front
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const shouldRetry = options.shouldRetry ?? isRetryable;
  const signal = options.signal;
  for (let n = 1; ; n++) {
    throwIfAborted(signal);
    try {
      return await attempt(n);
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      if (!shouldRetry(error, n)) throw error;
      if (n > retries) throw new RetryExhaustedError(n, error);
      const d = backoffDelay(n, options);
      const delay = d * (1 - jitter) + d * jitter * random();
      options.onRetry?.(error, n, delay);
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
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(abortReason(signal!));
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
