import type { Dataset, GetOptions } from '../dataset/Dataset.js';
import { registerErrorClass } from '../errorRegistry.js';
import { LoadError, MedFusionError } from '../errors.js';
import { abortReason } from '../util/abort.js';
import type { Clock } from '../util/Clock.js';
import { nonNegativeFinite, nonNegativeInt, showValue, withDefault } from '../util/validate.js';
import { backoffDelay, type RetryOptions, sleep } from './retry.js';

/**
 * Retry settings of an {@link ErrorPolicy}: the `retries`, `baseDelayMs` and
 * `maxDelayMs` of {@link RetryOptions}, spelled and meant the same (the delay
 * doubles per retry, no jitter). Defaults here: `retries` 2 (3 attempts in
 * all), `baseDelayMs` 100, `maxDelayMs` 5000.
 */
export type RetryPolicy = Pick<RetryOptions, 'retries' | 'baseDelayMs' | 'maxDelayMs'>;

/** The keys a {@link RetryPolicy} takes. */
const RETRY_POLICY_KEYS: readonly string[] = ['retries', 'baseDelayMs', 'maxDelayMs'];

/** Names of 0.1, refused with a pointer to their 0.2 spelling. */
const RENAMED_RETRY_KEYS: Readonly<Record<string, string>> = {
  attempts: 'retries (retries after the first attempt: attempts N = retries N-1)',
  backoffMs: 'baseDelayMs',
  maxBackoffMs: 'maxDelayMs',
};

/**
 * What a {@link DataLoader} does when loading a sample fails (the loader's
 * `onError` option):
 * - `'throw'`: the epoch fails with a `LoadError` naming the index.
 * - `'skip'`: the sample is dropped from its batch (that batch is short; a
 *   batch whose samples all failed is not yielded) and reported.
 * - `'retry'`: up to 2 retries (3 attempts in all) with backoff (100 ms,
 *   doubling), then skip and put the index in quarantine.
 * - `{ retry: { retries, baseDelayMs, maxDelayMs }, afterRetries? }`: the same
 *   with your numbers (the spelling of {@link RetryOptions});
 *   `afterRetries: 'throw'` fails the epoch instead of skipping.
 * Aborts and closed datasets always end the epoch; they are never skipped.
 *
 * @example
 * new DataLoader(ds, { onError: { retry: { retries: 3, baseDelayMs: 50 } } });
 */
export type ErrorPolicy =
  | 'throw'
  | 'skip'
  | 'retry'
  | {
      /** Retries and backoff. */
      retry: RetryPolicy;
      /** What a sample that failed every attempt does. @default 'skip' */
      afterRetries?: 'skip' | 'throw';
    };

/** An {@link ErrorPolicy} checked and with its defaults filled in. */
export interface ResolvedErrorPolicy {
  /** Retries per sample after its first attempt (0 = no retry). */
  retries: number;
  /** Wait before the first retry, ms. */
  baseDelayMs: number;
  /** Longest wait, ms. */
  maxDelayMs: number;
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
    return { retries: 0, baseDelayMs: 0, maxDelayMs: 0, skip: false };
  }
  if (policy === 'skip') return { retries: 0, baseDelayMs: 0, maxDelayMs: 0, skip: true };
  if (policy === 'retry') return { retries: 2, baseDelayMs: 100, maxDelayMs: 5000, skip: true };
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
  for (const key of Object.keys(retry)) {
    if (RETRY_POLICY_KEYS.includes(key)) continue;
    const renamed = RENAMED_RETRY_KEYS[key];
    throw new TypeError(
      renamed === undefined
        ? `unknown option ${name}.retry.${key}; ${name}.retry takes ${RETRY_POLICY_KEYS.join(', ')}`
        : `${name}.retry.${key} is now ${renamed}, got ${key}: ${showValue((retry as Record<string, unknown>)[key])}`,
    );
  }
  const r = retry as RetryPolicy;
  const retries = withDefault(`${name}.retry.retries`, r.retries, 2, nonNegativeInt);
  const baseDelayMs = withDefault(
    `${name}.retry.baseDelayMs`,
    r.baseDelayMs,
    100,
    nonNegativeFinite,
  );
  const maxDelayMs = withDefault(
    `${name}.retry.maxDelayMs`,
    r.maxDelayMs,
    Math.max(5000, baseDelayMs),
    nonNegativeFinite,
  );
  if (maxDelayMs < baseDelayMs) {
    throw new RangeError(
      `${name}.retry.maxDelayMs must be ≥ baseDelayMs (${baseDelayMs}), got ${maxDelayMs}`,
    );
  }
  if (afterRetries !== undefined && afterRetries !== 'skip' && afterRetries !== 'throw') {
    const message = `${name}.afterRetries must be 'skip' or 'throw', got ${showValue(afterRetries)}`;
    throw typeof afterRetries === 'string' ? new RangeError(message) : new TypeError(message);
  }
  return { retries, baseDelayMs, maxDelayMs, skip: afterRetries !== 'throw' };
}

/** True for failures no policy may absorb: aborts and closed datasets end the epoch. */
export function isFatal(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown } | null;
  return e?.name === 'AbortError' || e?.code === 'ABORTED' || e?.code === 'CLOSED';
}

/**
 * The dataset the loader reads through: indices in `quarantined` fail at once
 * with {@link QuarantinedError} (no load), and a failed load is retried up
 * to `policy.retries` times with exponential backoff on `clock` before
 * failing with {@link SampleFailedError}. Successful reads stay synchronous
 * when the source is.
 */
export function withErrorPolicy<T>(
  dataset: Dataset<T>,
  policy: ResolvedErrorPolicy,
  clock: Clock,
  quarantined: { has(index: number): boolean } | undefined,
): Dataset<T> {
  if (policy.retries === 0 && quarantined === undefined) return dataset;
  const attempts = policy.retries + 1;
  const delays = { baseDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs };
  const again = async (index: number, opts: GetOptions | undefined, first: unknown) => {
    const signal: AbortSignal | undefined = opts?.signal;
    let last = first;
    for (let n = 1; n < attempts; n++) {
      if (isFatal(last) || signal?.aborted) throw signal?.aborted ? abortReason(signal) : last;
      await sleep(clock, backoffDelay(n, delays), signal);
      try {
        return await dataset.get(index, opts);
      } catch (error) {
        last = error;
      }
    }
    if (isFatal(last)) throw last;
    throw new SampleFailedError(index, unwrap(last), attempts);
  };
  return {
    length: dataset.length,
    get(index: number, opts?: GetOptions): T | Promise<T> {
      if (quarantined?.has(index)) throw new QuarantinedError(index);
      let result: T | Promise<T>;
      try {
        result = dataset.get(index, opts);
      } catch (error) {
        return attempts > 1 ? again(index, opts, error) : Promise.reject(error);
      }
      if (attempts > 1 && typeof (result as Promise<T>)?.then === 'function') {
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
