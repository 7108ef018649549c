import { fetchWithTimeout, type RequestTimeouts } from './fetchWithTimeout.js';
import { RemoteReadError } from './RemoteError.js';
import type { Signing } from './UrlSigner.js';

/** Bytes of a 400/403 body read to tell an expired URL from other refusals. */
const REFUSAL_BODY_BYTES = 4096;

/** Re-signs one read may need: a shared fresh URL refused too, then the read's own. */
const MAX_REFRESHES = 2;

/**
 * How services say a signed URL expired: S3 and R2 `Request has expired`, GCS
 * `ExpiredToken` / `expired`, Azure `Signed expiry time` / `not valid in the specified time frame`.
 */
const EXPIRED = /expired|expiry time|not valid in the specified time frame/i;

/**
 * Every remote request of the readers and sources goes through here: `fetchWithTimeout`
 * of `url`, or, with a `signUrl` hook, of the URL the hook signed for it. A response that
 * refuses the signed URL as expired (400/403 with a short body saying so) is answered by
 * one fresh signature from the hook and one more request; refused again, the read fails with
 * `URL_EXPIRED` (never retried). The fresh URL may be one another read's re-sign got: refused
 * too (it expired while this read's request was out), the read is re-signed once more.
 * Errors name `url`, never a signed URL; signed requests skip the browser's HTTP cache unless
 * `init.cache` says otherwise. Another refusal is returned as a response (its body, when
 * read, is the first bytes of the server's).
 */
export async function fetchSigned(
  fetchFn: typeof globalThis.fetch,
  url: string,
  init: RequestInit,
  timeouts: RequestTimeouts,
  signing: Signing | undefined,
  signal?: AbortSignal | null,
): Promise<Response> {
  if (!signing) return fetchWithTimeout(fetchFn, url, init, timeouts, signal);
  const { signer, limits } = signing;
  // The browser's HTTP cache would keep the signed URL (on disk) as a key: not unless asked.
  if (init.cache === undefined) init = { ...init, cache: 'no-store' };
  const first = await signer.signed(url, limits, signal ?? undefined);
  const res = await fetchWithTimeout(fetchFn, first, init, timeouts, signal, url);
  const checked = await unlessExpired(res);
  if (checked) return checked;
  let stale = first;
  for (let refreshes = 1; ; refreshes++) {
    const { signed, shared } = await signer.refresh(url, stale, limits, signal ?? undefined);
    const again = await fetchWithTimeout(fetchFn, signed, init, timeouts, signal, url);
    const status = again.status;
    const last = await unlessExpired(again);
    if (last) return last;
    // A URL another read's re-sign got may have expired while this read's request was out
    // (a request slower than a URL's whole life): not a URL signed for this read's refusal,
    // so the read is re-signed once more.
    if (shared && refreshes < MAX_REFRESHES) {
      stale = signed;
      continue;
    }
    throw new RemoteReadError(
      'URL_EXPIRED',
      url,
      `HTTP ${status}: refused as expired, also with the URL signUrl had just signed again (check the server's clock and the expiry your backend gives)`,
      { status, retryable: false },
    );
  }
}

/**
 * `res`, or undefined when it refuses its URL as expired. A 400/403 has its first
 * {@link REFUSAL_BODY_BYTES} read (the rest is cancelled) and is returned rebuilt from them.
 */
async function unlessExpired(res: Response): Promise<Response | undefined> {
  if (res.status !== 403 && res.status !== 400) return res;
  const head = await readHead(res.body, REFUSAL_BODY_BYTES).catch(() => new Uint8Array(0));
  if (EXPIRED.test(new TextDecoder().decode(head))) return undefined;
  return new Response(head.length ? head : null, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/** The first `limit` bytes of `body` (fewer when it ends first); the rest is cancelled. */
async function readHead(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (!body) return new Uint8Array(0);
  const out = new Uint8Array(new ArrayBuffer(limit));
  let n = 0;
  const reader = body.getReader();
  try {
    while (n < limit) {
      const r = await reader.read();
      if (r.done) return out.subarray(0, n);
      const take = Math.min(r.value.length, limit - n);
      out.set(r.value.subarray(0, take), n);
      n += take;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return out;
}
