import { MedFusionError, type RetryOptions, retry, type Speculation } from '@medfusion/core';
import {
  abortReason,
  nonEmptyString,
  nonNegativeInt,
  object,
  showValue,
  string,
  throwIfAborted,
  withDefault,
} from '@medfusion/core/internal';
import { fetchSigned } from './fetchSigned.js';
import type { RequestTimeouts } from './fetchWithTimeout.js';
import { requestCache, resolveHttpOptions } from './httpOptions.js';
import type { OriginLimiter } from './OriginLimiter.js';
import { ObjectChangedError, RemoteReadError } from './RemoteError.js';
import type { RangeReaderOptions, ReadOptions, SignUrlOptions } from './rangeReaderOptions.js';
import { type ByteSpan, checkPieces, readBodyPieces } from './readBodyPieces.js';
import { redactUrl } from './redactUrl.js';
import { resolveUrl } from './resolveUrl.js';
import type { Signing } from './UrlSigner.js';

export type {
  HttpOptions,
  RangeReaderOptions,
  ReadOptions,
  SignUrl,
  SignUrlContext,
  SignUrlOptions,
} from './rangeReaderOptions.js';
export { HTTP_OPTION_NAMES, httpOptionsOf } from './rangeReaderOptions.js';

/**
 * Reads byte ranges of one remote object over HTTP with retries, a
 * per-origin concurrency cap and version pinning: the first response's ETag
 * (and size) is remembered and every later request carries `If-Match`, so if
 * the object is replaced mid-way the read fails with `OBJECT_CHANGED`
 * ({@link ObjectChangedError}) instead of mixing bytes of two versions.
 * Every response is checked against the request (`Content-Range`, exact length);
 * a server that ignores `Range` (200 with the whole object) is detected on the
 * first read, which fails with `RANGE_NOT_SUPPORTED` without downloading the
 * body, and so does every later read, without a request. A stalled server
 * fails with `REQUEST_TIMEOUT` ({@link RequestTimeoutError}); aborting a read's
 * signal aborts its request and frees its per-origin slot. With `signUrl` (a private
 * bucket), requests go to the URL the hook signs for {@link RangeReader.url}, re-signed once
 * when the server refuses it as expired ({@link SignUrlOptions}); errors name the unsigned URL.
 *
 * @example
 * const reader = new RangeReader({ url: 'https://huggingface.co/datasets/org/set/resolve/main/train-000.tar' });
 * const head = await reader.read(0, 512, { signal });
 */
export class RangeReader {
  /** The object's URL. */
  readonly url: string;
  private readonly origin: string;
  private readonly fetchFn: typeof globalThis.fetch;
  private readonly limiter: OriginLimiter;
  private readonly retryOptions: Omit<RetryOptions, 'signal' | 'shouldRetry'>;
  private readonly headers: Record<string, string>;
  private readonly cache: RequestCache;
  private readonly timeouts: RequestTimeouts;
  private readonly signing: Signing | undefined;
  private noRange: RemoteReadError | undefined;
  private pinnedEtag: string | undefined;
  private pinnedSize: number | undefined;
  private requestCount = 0;

  constructor(options: RangeReaderOptions) {
    object('options', options, 'an object with a url');
    this.url = nonEmptyString('url', options.url);
    this.origin = new URL(resolveUrl('url', options.url)).origin;
    const http = resolveHttpOptions(options);
    this.fetchFn = http.fetchFn;
    this.limiter = http.limiter;
    this.retryOptions = http.retry;
    this.headers = http.headers;
    this.timeouts = http.timeouts;
    this.signing = http.signing;
    this.cache = withDefault('cache', options.cache, 'no-store', requestCache);
    this.pinnedEtag = withDefault('etag', options.etag, undefined, string);
    if (options.size !== undefined) {
      this.pinnedSize = nonNegativeInt('size', options.size);
    }
  }

  /** The ETag reads are pinned to (known after the first response). */
  get etag(): string | undefined {
    return this.pinnedEtag;
  }

  /** The object's size in bytes (known after the first response). */
  get size(): number | undefined {
    return this.pinnedSize;
  }

  /** HTTP requests sent so far, retries included. */
  get requests(): number {
    return this.requestCount;
  }

  /** Learn (and pin) size and ETag with a one-byte range request. */
  async probe(options: ReadOptions = {}): Promise<{ size: number; etag: string | undefined }> {
    if (this.pinnedSize === 0) return { size: 0, etag: this.pinnedEtag };
    await this.read(0, 1, options);
    return { size: this.pinnedSize as number, etag: this.pinnedEtag };
  }

  /** Bytes `[start, end)` of the object, retried on transient failures. */
  read(start: number, end: number, options: ReadOptions = {}): Promise<Uint8Array> {
    this.checkRange(start, end);
    return this.readOnceRetried(start, end, [{ start, end }], options).then(
      (pieces) => pieces[0] as Uint8Array,
    );
  }

  /**
   * Bytes `[start, end)` of the object in one request (retried like {@link read}),
   * handed out as `pieces`: one buffer of its own per piece, each filled straight
   * from the network (bytes between pieces are read and dropped). For several
   * neighbouring records read at once, where each record must not keep a buffer of
   * the whole range alive. `pieces` must be ascending, disjoint and within the
   * range (a `RangeError` naming `pieces[i]` if not).
   *
   * @example
   * // two records with a gap between them, one request
   * const [a, b] = await reader.readPieces(0, 3072, [{ start: 0, end: 1024 }, { start: 2048, end: 3072 }]);
   */
  readPieces(
    start: number,
    end: number,
    pieces: readonly ByteSpan[],
    options: ReadOptions = {},
  ): Promise<Uint8Array[]> {
    this.checkRange(start, end);
    checkPieces(pieces, start, end);
    return this.readOnceRetried(start, end, pieces, options);
  }

  private checkRange(start: number, end: number): void {
    nonNegativeInt('start', start);
    if (!Number.isInteger(end) || end <= start) {
      throw new RangeError(
        `end must be an integer greater than start ${start}, got ${showValue(end)}`,
      );
    }
    if (this.pinnedSize !== undefined && end > this.pinnedSize) {
      throw new RangeError(
        `end ${end} is past the object's size ${this.pinnedSize} (${redactUrl(this.url)})`,
      );
    }
  }

  private readOnceRetried(
    start: number,
    end: number,
    pieces: readonly ByteSpan[],
    options: ReadOptions,
  ): Promise<Uint8Array[]> {
    if (this.noRange) return Promise.reject(this.noRange);
    return retry(() => this.readOnce(start, end, pieces, options.signal, options.speculation), {
      ...this.retryOptions,
      signal: options.signal,
    });
  }

  /**
   * The whole object as a stream (to index or hash it in one pass). Pins the
   * ETag like a read; establishing the response is retried, a failure while
   * streaming surfaces as a retryable {@link RemoteReadError} from the stream.
   */
  stream(options: ReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    return retry(() => this.streamOnce(options.signal, options.speculation), {
      ...this.retryOptions,
      signal: options.signal,
    });
  }

  private requestHeaders(range: string | undefined): Record<string, string> {
    const h: Record<string, string> = { ...this.headers };
    if (range) h.Range = range;
    // A signed URL's requests stay CORS-simple (`Range` alone is safelisted): an `If-Match`
    // would send a preflight per fresh URL, which some stores refuse once the URL expired,
    // hiding the expiry behind a network error. Their version is checked by the answer's ETag.
    if (this.pinnedEtag && !this.pinnedEtag.startsWith('W/') && !this.signing) {
      h['If-Match'] = this.pinnedEtag;
    }
    return h;
  }

  private async send(
    range: string | undefined,
    signal: AbortSignal | undefined,
    speculation: Speculation | undefined,
  ): Promise<{ res: Response; release: () => void }> {
    // Signed before taking a slot of the origin (the hook may ask a backend); kept per object.
    if (this.signing) await this.signing.signer.signed(this.url, this.signing.limits, signal);
    const release = await this.limiter.acquire(this.origin, signal, speculation);
    this.requestCount++;
    let res: Response;
    try {
      res = await fetchSigned(
        this.fetchFn,
        this.url,
        { headers: this.requestHeaders(range), cache: this.cache },
        this.timeouts,
        this.signing,
        signal,
      );
    } catch (error) {
      release();
      throwIfAborted(signal);
      if (error instanceof MedFusionError) throw error;
      throw new RemoteReadError('NETWORK_ERROR', this.url, `request failed: ${String(error)}`, {
        retryable: true,
        cause: error,
      });
    }
    try {
      this.checkStatus(res);
      this.checkVersion(res);
    } catch (error) {
      release();
      await res.body?.cancel().catch(() => {});
      throw error;
    }
    return { res, release };
  }

  private checkStatus(res: Response): void {
    if (res.status === 412) {
      throw new ObjectChangedError(
        this.url,
        this.pinnedEtag,
        res.headers.get('ETag') ?? undefined,
        'If-Match failed (412)',
      );
    }
    if (res.status === 200 || res.status === 206) return;
    const s = res.status;
    const retryable = s >= 500 || s === 408 || s === 429;
    throw new RemoteReadError('HTTP_ERROR', this.url, `HTTP ${s} ${res.statusText}`.trim(), {
      status: s,
      retryable,
    });
  }

  private checkVersion(res: Response): void {
    const etag = res.headers.get('ETag') ?? undefined;
    if (this.pinnedEtag !== undefined && etag !== undefined && etag !== this.pinnedEtag) {
      throw new ObjectChangedError(this.url, this.pinnedEtag, etag);
    }
    let total: number | undefined;
    if (res.status === 206) {
      const m = /\/(\d+)\s*$/.exec(res.headers.get('Content-Range') ?? '');
      if (m) total = Number(m[1]);
    } else {
      // fetchWithTimeout keeps Content-Length only when it is the decoded body's length.
      const len = res.headers.get('Content-Length');
      if (len !== null) total = Number(len);
    }
    if (this.pinnedSize !== undefined && total !== undefined && total !== this.pinnedSize) {
      throw new ObjectChangedError(
        this.url,
        this.pinnedEtag,
        etag,
        `size ${total} instead of ${this.pinnedSize}`,
      );
    }
    if (this.pinnedEtag === undefined && etag !== undefined) this.pinnedEtag = etag;
    if (this.pinnedSize === undefined && total !== undefined) this.pinnedSize = total;
  }

  private async readOnce(
    start: number,
    end: number,
    pieces: readonly ByteSpan[],
    signal: AbortSignal | undefined,
    speculation: Speculation | undefined,
  ): Promise<Uint8Array[]> {
    const { res, release } = await this.send(`bytes=${start}-${end - 1}`, signal, speculation);
    try {
      let bodyLength = end - start;
      if (res.status === 206) {
        const m = /^bytes (\d+)-(\d+)\//.exec(res.headers.get('Content-Range') ?? '');
        // A longer range from `start` is taken (its rest cancelled): Vite's static
        // server (sirv) answers `bytes=0-0` with the whole object.
        if (m && Number(m[1]) === start && Number(m[2]) > end - 1) {
          bodyLength = Number(m[2]) - start + 1;
        } else if (!m || Number(m[1]) !== start || Number(m[2]) !== end - 1) {
          throw new RemoteReadError(
            'BAD_RESPONSE',
            this.url,
            `asked for bytes ${start}-${end - 1}, got Content-Range ${res.headers.get('Content-Range')}`,
            { retryable: false },
          );
        }
      } else if (!(start === 0 && this.pinnedSize === end)) {
        // 200 to a Range request: the whole object is coming. Only fine when that is what we asked.
        this.noRange = this.rangeIgnored(res, start, end);
        throw this.noRange;
      }
      return await readBodyPieces(res, start, end, pieces, this.url, bodyLength);
    } catch (error) {
      await res.body?.cancel().catch(() => {});
      throwIfAborted(signal);
      if (error instanceof MedFusionError) throw error;
      throw new RemoteReadError('NETWORK_ERROR', this.url, `body failed: ${String(error)}`, {
        retryable: true,
        cause: error,
      });
    } finally {
      release();
    }
  }

  private rangeIgnored(res: Response, start: number, end: number): RemoteReadError {
    const html = /html/i.test(res.headers.get('Content-Type') ?? '');
    return new RemoteReadError(
      'RANGE_NOT_SUPPORTED',
      this.url,
      `asked for bytes ${start}-${end - 1}, the server answered ${res.status} with the whole ` +
        (html
          ? 'object as an HTML page (a single-page-app fallback for a missing file?)'
          : 'object: it ignores Range requests; serve the file from a server that honours Range (S3/GCS/R2, nginx, a CDN)'),
      { status: res.status, retryable: false },
    );
  }

  private async streamOnce(
    signal: AbortSignal | undefined,
    speculation: Speculation | undefined,
  ): Promise<ReadableStream<Uint8Array>> {
    const { res, release } = await this.send(undefined, signal, speculation);
    const body = res.body;
    if (res.status !== 200 || !body) {
      release();
      await body?.cancel().catch(() => {});
      throw new RemoteReadError(
        'BAD_RESPONSE',
        this.url,
        `expected 200 with a body, got ${res.status}`,
        {
          status: res.status,
          retryable: false,
        },
      );
    }
    const reader = body.getReader();
    const url = this.url;
    const expected = this.pinnedSize;
    let seen = 0;
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        release();
      }
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const r = await reader.read();
          if (r.done) {
            finish();
            if (expected !== undefined && seen !== expected) {
              controller.error(
                new RemoteReadError(
                  'SHORT_READ',
                  url,
                  `stream ended after ${seen} of ${expected} bytes`,
                  {
                    retryable: true,
                  },
                ),
              );
            } else controller.close();
            return;
          }
          seen += r.value.length;
          controller.enqueue(r.value);
        } catch (error) {
          finish();
          controller.error(
            signal?.aborted
              ? abortReason(signal)
              : error instanceof MedFusionError
                ? error
                : new RemoteReadError('NETWORK_ERROR', url, `stream failed: ${String(error)}`, {
                    retryable: true,
                    cause: error,
                  }),
          );
        }
      },
      async cancel(reason) {
        finish();
        await reader.cancel(reason).catch(() => {});
      },
    });
  }
}
