import type { Dataset, GetOptions } from '../dataset/Dataset.js';
import { registerErrorClass } from '../errorRegistry.js';
import { LoadError, MedFusionError } from '../errors.js';
import { abortReason } from '../util/abort.js';
import type { Clock } from '../util/Clock.js';
import { nonNegativeFinite, positiveInt, showValue } from '../util/validate.js';
import { backoffDelay, sleep } from './retry.js';

/** Retry settings of an {@link ErrorPolicy}. */
export interface RetryPolicy {
  /**
   * Attempts per sample in all (the first load counts), at least 1.
   * @default 3
   */
  attempts?: number;
  /**
   * Wait before the first retry in ms; it doubles per retry (exponential backoff).
   * @default 100
   */
  backoffMs?: number;
  /**
   * Longest single wait in ms.
   * @default 5000
   */
  maxBackoffMs?: number;
}

/**
 * What a {@link DataLoader} does when loading a sample fails (the loader's
 * `onError` option):
 * - `'throw'`: the epoch fails with a `LoadError` naming the index.
 * - `'skip'`: the sample is dropped from its batch (that batch is short; a
 *   batch whose samples all failed is not yielded) and reported.
 * - `'retry'`: up to 3 attempts with backoff (100 ms, doubling), then skip
 *   and put the index in quarantine.
 * - `{ retry: { attempts, backoffMs, maxBackoffMs }, afterRetries? }`: the same
 *   with your numbers; `afterRetries: 'throw'` fails the epoch instead of skipping.
 * Aborts and closed datasets always end the epoch; they are never skipped.
 *
 * @example
 * new DataLoader(ds, { onError: { retry: { attempts: 4, backoffMs: 50 } } });
 */
export type ErrorPolicy =
  | 'throw'
  | 'skip'
  | 'retry'
  | {
      /** Attempts and backoff. */
      retry: RetryPolicy;
      /** What a sample that failed every attempt does. @default 'skip' */
      afterRetries?: 'skip' | 'throw';
    };

/** An {@link ErrorPolicy} checked and with its defaults filled in. */
export interface ResolvedErrorPolicy {
  /** Attempts per sample (1 = no retry). */
  attempts: number;
  /** Wait before the first retry, ms. */
  backoffMs: number;
  /** Longest wait, ms. */
  maxBackoffMs: number;
  /** After the last attempt: drop the sample (`true`) or fail the epoch. */
  skip: boolean;
}

/** One sample that was not delivered, as reported by the loader. */
export interface SampleFailure {
  /** The dataset index. */
  index: number;
  /** The last error of its load (a {@link QuarantinedError} when it was not tried). */
  cause: unknown;
  /** Loads tried this time (0 when the index was in quarantine). */
  attempts: number;
}

/** Loading a sample failed on every one of `attempts` tries. */
export class SampleFailedError extends LoadError {
  /** Attempts made. */
  readonly attempts: number;
  constructor(index: number, cause: unknown, attempts: number) {
    super(index, cause);
    this.name = 'SampleFailedError';
    this.attempts = attempts;
    this.message = `${this.message} (after ${attempts} attempts)`;
  }
}
registerErrorClass('SampleFailedError', SampleFailedError);

/** The sample is in quarantine (it failed every retry before), so it was not loaded. */
export class QuarantinedError extends MedFusionError {
  constructor(index: number) {
    super('QUARANTINED', `Sample ${index} is in quarantine (it failed every retry before)`, {
      index,
    });
    this.name = 'QuarantinedError';
  }
}
registerErrorClass('QuarantinedError', QuarantinedError);

/**
 * Check an `onError` value (TypeError/RangeError naming `onError` and the
 * value) and fill in the defaults.
 */
export function resolveErrorPolicy(policy: unknown, name = 'onError'): ResolvedErrorPolicy {
  if (policy === 'throw' || policy === undefined) {
    return { attempts: 1, backoffMs: 0, maxBackoffMs: 0, skip: false };
  }
  if (policy === 'skip') return { attempts: 1, backoffMs: 0, maxBackoffMs: 0, skip: true };
  if (policy === 'retry') return { attempts: 3, backoffMs: 100, maxBackoffMs: 5000, skip: true };
  if (typeof policy === 'string') {
    throw new RangeError(
      `${name} must be 'throw', 'skip', 'retry' or { retry: {...} }, got ${showValue(policy)}`,
    );
  }
  if (policy === null || typeof policy !== 'object') {
    throw new TypeError(
      `${name} must be 'throw', 'skip', 'retry' or { retry: {...} }, got ${showValue(policy)}`,
    );
  }
  const { retry, afterRetries } = policy as { retry?: unknown; afterRetries?: unknown };
  if (retry === null || typeof retry !== 'object') {
    throw new TypeError(`${name}.retry must be an object, got ${showValue(retry)}`);
  }
  const r = retry as RetryPolicy;
  const attempts = positiveInt(`${name}.retry.attempts`, r.attempts ?? 3);
  const backoffMs = nonNegativeFinite(`${name}.retry.backoffMs`, r.backoffMs ?? 100);
  const maxBackoffMs = nonNegativeFinite(
    `${name}.retry.maxBackoffMs`,
    r.maxBackoffMs ?? Math.max(5000, backoffMs),
  );
  if (maxBackoffMs < backoffMs) {
    throw new RangeError(
      `${name}.retry.maxBackoffMs must be ≥ backoffMs (${backoffMs}), got ${maxBackoffMs}`,
    );
  }
  if (afterRetries !== undefined && afterRetries !== 'skip' && afterRetries !== 'throw') {
    throw new RangeError(
      `${name}.afterRetries must be 'skip' or 'throw', got ${showValue(afterRetries)}`,
    );
  }
  return { attempts, backoffMs, maxBackoffMs, skip: afterRetries !== 'throw' };
}

/** True for failures no policy may absorb: aborts and closed datasets end the epoch. */
export function isFatal(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown } | null;
  return e?.name === 'AbortError' || e?.code === 'ABORTED' || e?.code === 'CLOSED';
}

/**
 * The dataset the loader reads through: indices in `quarantined` fail at once
 * with {@link QuarantinedError} (no load), and failed loads are tried again
 * up to `policy.attempts` times with exponential backoff on `clock` before
 * failing with {@link SampleFailedError}. Successful reads stay synchronous
 * when the source is.
 */
export function withErrorPolicy<T>(
  dataset: Dataset<T>,
  policy: ResolvedErrorPolicy,
  clock: Clock,
  quarantined: { has(index: number): boolean } | undefined,
): Dataset<T> {
  if (policy.attempts === 1 && quarantined === undefined) return dataset;
  const delays = { baseDelayMs: policy.backoffMs, maxDelayMs: policy.maxBackoffMs };
  const again = async (index: number, opts: GetOptions | undefined, first: unknown) => {
    const signal: AbortSignal | undefined = opts?.signal;
    let last = first;
    for (let n = 1; n < policy.attempts; n++) {
      if (isFatal(last) || signal?.aborted) throw signal?.aborted ? abortReason(signal) : last;
      await sleep(clock, backoffDelay(n, delays), signal);
      try {
        return await dataset.get(index, opts);
      } catch (error) {
        last = error;
      }
    }
    if (isFatal(last)) throw last;
    throw new SampleFailedError(index, unwrap(last), policy.attempts);
  };
  return {
    length: dataset.length,
    get(index: number, opts?: GetOptions): T | Promise<T> {
      if (quarantined?.has(index)) throw new QuarantinedError(index);
      let result: T | Promise<T>;
      try {
        result = dataset.get(index, opts);
      } catch (error) {
        return policy.attempts > 1 ? again(index, opts, error) : Promise.reject(error);
      }
      if (policy.attempts > 1 && typeof (result as Promise<T>)?.then === 'function') {
        return (result as Promise<T>).then(undefined, (error: unknown) =>
          again(index, opts, error),
        );
      }
      return result;
    },
  };
}

/** A LoadError's own cause (the loader's error) rather than the wrapper. */
function unwrap(error: unknown): unknown {
  return error instanceof LoadError && !(error instanceof SampleFailedError) && error.cause
    ? error.cause
    : error;
}

/** The {@link SampleFailure} an error thrown for `index` describes. */
export function failureOf(index: number, error: unknown): SampleFailure {
  if (error instanceof QuarantinedError) return { index, cause: error, attempts: 0 };
  if (error instanceof SampleFailedError) {
    return { index, cause: error.cause, attempts: error.attempts };
  }
  return { index, cause: unwrap(error), attempts: 1 };
}
