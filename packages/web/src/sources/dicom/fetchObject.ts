import { RetryExhaustedError, retry } from '@medfusion/core';
import { isRetryable } from '@medfusion/core/internal';
import { readBody } from '../../remote/fetchWithTimeout.js';
import type { HttpOptions } from '../../remote/RangeReader.js';
import { RangeReader } from '../../remote/RangeReader.js';

/**
 * The whole object at `url` through a {@link RangeReader} (origin limiter, headers,
 * timeouts). The request and its body are one attempt, retried as `http.retry` says:
 * a network error, a transient status or a body that breaks off mid-way (a retryable
 * `RemoteReadError` naming the URL) is tried again; when retries run out the
 * `RetryExhaustedError` carries it. `final` marks retryable errors not to retry.
 */
export function fetchObject(
  url: string,
  http: HttpOptions,
  signal?: AbortSignal,
  final?: (error: unknown) => boolean,
): Promise<Uint8Array> {
  const once = { ...http, url, retry: { ...http.retry, retries: 0 } };
  return retry(
    async () => {
      try {
        return await readBody(await new RangeReader(once).stream({ signal }));
      } catch (error) {
        // With no retries of its own the reader wraps a retryable failure after one attempt.
        throw error instanceof RetryExhaustedError ? error.cause : error;
      }
    },
    { ...http.retry, signal, shouldRetry: (e) => isRetryable(e) && !final?.(e) },
  );
}

/** The first `max` bytes of `url` (fewer when the object is smaller): one probe, one range read. */
export async function fetchHead(
  url: string,
  max: number,
  http: HttpOptions,
  signal?: AbortSignal,
): Promise<{ bytes: Uint8Array; size: number }> {
  const reader = new RangeReader({ url, ...http });
  const { size } = await reader.probe({ signal });
  const bytes =
    size === 0 ? new Uint8Array(0) : await reader.read(0, Math.min(size, max), { signal });
  return { bytes, size };
}
