import type { RetryOptions } from '@medfusion/core';
import {
  badType,
  fn,
  object,
  oneOfValues,
  optionsBag,
  resolveRetryOptions,
  string,
  withDefault,
} from '@medfusion/core/internal';
import { type RequestTimeouts, resolveRequestTimeouts } from './fetchWithTimeout.js';
import { defaultOriginLimiter, type OriginLimiter } from './OriginLimiter.js';
import type { HttpOptions } from './rangeReaderOptions.js';
import { type Signing, signingOf } from './UrlSigner.js';

/** The values of `RequestInit.cache`: a reader's `cache` option is one of them. */
const REQUEST_CACHE_MODES: readonly RequestCache[] = [
  'default',
  'force-cache',
  'no-cache',
  'no-store',
  'only-if-cached',
  'reload',
];

/** A `RequestInit.cache` value (a TypeError / RangeError naming `name` otherwise). */
export function requestCache(name: string, value: unknown): RequestCache {
  return oneOfValues(name, value, REQUEST_CACHE_MODES);
}

/** {@link HttpOptions} checked, with the defaults filled in: what a reader sends with. */
export interface ResolvedHttpOptions {
  /** `fetch`, or the page's. */
  fetchFn: typeof globalThis.fetch;
  /** `limiter`, or {@link defaultOriginLimiter}. */
  limiter: OriginLimiter;
  /** `retry` as given (checked), or `{}`. */
  retry: Omit<RetryOptions, 'signal' | 'shouldRetry'>;
  /** `headers`, or `{}`. */
  headers: Record<string, string>;
  /** The two request timeouts and their clock. */
  timeouts: RequestTimeouts;
  /** The `signUrl` hook's signing, if any. */
  signing: Signing | undefined;
}

/**
 * The one check of the HTTP options every remote reader and source takes
 * (TypeError / RangeError naming the option, `retry.retries` for a nested one):
 * {@link RangeReader} runs it, and each source runs it before its first request,
 * so a bad option never waits for a reader made later.
 */
export function resolveHttpOptions(options: HttpOptions): ResolvedHttpOptions {
  const o = optionsBag('options', options);
  const timeouts = resolveRequestTimeouts(o);
  return {
    fetchFn: withDefault('fetch', o.fetch, globalThis.fetch?.bind(globalThis), fn<typeof fetch>),
    limiter: withDefault('limiter', o.limiter, defaultOriginLimiter, (name, v) => {
      const l = v as Partial<OriginLimiter> | null;
      if (l === null || typeof l !== 'object' || typeof l.acquire !== 'function') {
        throw badType(name, 'an OriginLimiter', v);
      }
      return l as OriginLimiter;
    }),
    retry: withDefault('retry', o.retry, {}, (name, v) => {
      resolveRetryOptions(v as RetryOptions, `${name}.`);
      return v as Omit<RetryOptions, 'signal' | 'shouldRetry'>;
    }),
    headers: withDefault('headers', o.headers, {}, (name, v) => {
      for (const [key, value] of Object.entries(object(name, v as Record<string, unknown>))) {
        string(`${name}.${key}`, value);
      }
      return v as Record<string, string>;
    }),
    timeouts,
    signing: signingOf(o, timeouts.clock),
  };
}
