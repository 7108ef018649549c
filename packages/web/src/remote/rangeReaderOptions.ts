import type { RetryOptions, Speculation } from '@medfusion/core';
import type { RequestTimeoutOptions } from './fetchWithTimeout.js';
import type { OriginLimiter } from './OriginLimiter.js';

/** What a {@link SignUrl} hook is told besides the URL. */
export interface SignUrlContext {
  /** Aborted when the hook's time (`signTimeoutMs`) runs out: pass it to your backend request. */
  signal: AbortSignal;
  /**
   * `true` when the URL this hook signed before was refused as expired, so a cache of your
   * own must not answer with it again.
   */
  refresh: boolean;
}

/**
 * Turns the URL of an object (as the manifest or the options name it, with no signature)
 * into a URL that may be fetched, usually a presigned URL your backend issues for a
 * private bucket (S3, R2, MinIO, GCS): credentials never enter the page. The result must be
 * on the same origin as `url` (else `URL_NOT_ALLOWED`).
 */
export type SignUrl = (
  url: string,
  context: SignUrlContext,
) => string | URL | Promise<string | URL>;

/**
 * Signing of object URLs for private buckets. With `signUrl`, every remote read of an
 * object goes to the URL the hook returned for it: the hook is called before the first read
 * of an object, its answer is kept in memory per object (never stored, never logged: errors
 * and stats name the unsigned URL), and it is called again only when a read is refused as
 * expired (HTTP 403, or 400 for some services, whose short body says the request expired);
 * that read is then sent once more with the fresh URL (one hook call however many reads saw
 * the URL refused; a read for which that shared URL was refused too is re-signed once more). A
 * URL signed for a read's own refusal and refused as expired again fails with `URL_EXPIRED`;
 * a hook that throws, times out or returns no URL fails with `SIGN_URL_FAILED`
 * ({@link SignUrlError}).
 */
export interface SignUrlOptions {
  /**
   * Called with an object's URL before its first read and after its signed URL expired;
   * returns the URL to fetch (see {@link SignUrl}). One hook keeps one cache of signed URLs,
   * shared by every reader and source given the same function.
   * @default undefined (URLs are fetched as they are)
   */
  signUrl?: SignUrl;
  /**
   * Longest wait for one call of `signUrl`, in milliseconds; the hook's `signal` aborts then
   * and the read fails with `SIGN_URL_FAILED`. `Infinity` waits for ever.
   * @default 30000
   */
  signTimeoutMs?: number;
}

/**
 * How a remote reader talks HTTP; shared by {@link RangeReader} and the remote sources.
 * Every request has the timeouts of {@link RequestTimeoutOptions} (30 s for the headers,
 * 30 s without body bytes).
 */
export interface HttpOptions extends RequestTimeoutOptions, SignUrlOptions {
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

/** The names of {@link HttpOptions}, for sources that refuse unknown options. */
export const HTTP_OPTION_NAMES = [
  'fetch',
  'headers',
  'limiter',
  'retry',
  'headersTimeoutMs',
  'idleTimeoutMs',
  'clock',
  'signUrl',
  'signTimeoutMs',
] as const satisfies readonly (keyof HttpOptions)[];

/** The HTTP options of `options` (fetch, limiter, retry, timeouts, headers, signing), for another reader. */
export function httpOptionsOf(options: HttpOptions): HttpOptions {
  const { fetch, headers, limiter, retry, headersTimeoutMs, idleTimeoutMs, clock } = options;
  const { signUrl, signTimeoutMs } = options;
  return {
    fetch,
    headers,
    limiter,
    retry,
    headersTimeoutMs,
    idleTimeoutMs,
    clock,
    signUrl,
    signTimeoutMs,
  };
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
