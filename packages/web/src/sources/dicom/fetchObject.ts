import type { HttpOptions } from '../../remote/RangeReader.js';
import { RangeReader } from '../../remote/RangeReader.js';
import { RemoteReadError } from '../../remote/RemoteError.js';

/**
 * The whole object at `url` through a {@link RangeReader} (its retries,
 * origin limiter and headers); a body that breaks off mid-way is retried once.
 */
export async function fetchObject(
  url: string,
  http: HttpOptions,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  for (let attempt = 0; ; attempt++) {
    const reader = new RangeReader({ url, ...http });
    try {
      const stream = await reader.stream({ signal });
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (error) {
      if (attempt > 0 || !(error instanceof RemoteReadError) || !error.retryable || signal?.aborted)
        throw error;
    }
  }
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
