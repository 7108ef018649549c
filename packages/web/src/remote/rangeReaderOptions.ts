import type { RetryOptions, Speculation } from '@medfusion/core';
import type { RequestTimeoutOptions } from './fetchWithTimeout.js';
import type { OriginLimiter } from './OriginLimiter.js';

/**
 * How a remote reader talks HTTP; shared by {@link RangeReader} and the remote sources.
 * Every request has the timeouts of {@link RequestTimeoutOptions} (30 s for the headers,
 * 30 s without body bytes).
 */
export interface HttpOptions extends RequestTimeoutOptions {
  /**
   * The fetch to use (e.g. one that signs requests).
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch;
  /** Extra request headers (e.g. `Authorization: Bearer hf_…` for a gated Hugging Face data set). */
  headers?: Record<string, string>;
  /**
   * Per-origin concurrency cap shared with other readers.
   * @default defaultOriginLimiter (6 per origin)
   */
  limiter?: OriginLimiter;
  /**
   * Backoff for transient failures (network errors, 5xx, 408, 429, short reads).
   * @default { retries: 4, baseDelayMs: 100, maxDelayMs: 5000 }
   */
  retry?: Omit<RetryOptions, 'signal' | 'shouldRetry'>;
}

/** The HTTP options of `options` (fetch, limiter, retry, timeouts, headers), for another reader. */
export function httpOptionsOf(options: HttpOptions): HttpOptions {
  const { fetch, headers, limiter, retry, headersTimeoutMs, idleTimeoutMs, clock } = options;
  return { fetch, headers, limiter, retry, headersTimeoutMs, idleTimeoutMs, clock };
}

/** Options of {@link RangeReader}. */
export interface RangeReaderOptions extends HttpOptions {
  /** Absolute URL of the object (any origin that honours `Range`: S3/GCS/R2, Hugging Face, a CDN, nginx). */
  url: string;
  /** Pin reads to this ETag from the first request on (e.g. the one an index was built from). */
  etag?: string;
  /** Known object size in bytes, checked against every `Content-Range`. */
  size?: number;
  /**
   * The HTTP cache mode of every request.
   * @default 'no-store'
   */
  cache?: RequestCache;
}

/** Options of one read. */
export interface ReadOptions {
  /** Aborts the read (and its retries); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Marks a speculative read (a prefetch): while requests wait for a slot of
   * the origin, every demand request (no speculation, or a promoted one)
   * gets one first.
   * @default undefined (demand)
   */
  speculation?: Speculation;
}
