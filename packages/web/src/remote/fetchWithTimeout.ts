import { type Clock, systemClock } from '@medfusion/core';
import {
  abortReason,
  clock as checkClock,
  onAbort,
  optionsBag,
  positiveMs,
  raceAbort,
  withDefault,
} from '@medfusion/core/internal';
import { RequestTimeoutError } from './RemoteError.js';

/**
 * How long one request may wait on the network. Shared by {@link RangeReader}, the remote
 * sources and `CsvImageDataset`: every request they send goes through
 * {@link fetchWithTimeout}, so a server that stalls ends in a {@link RequestTimeoutError}.
 */
export interface RequestTimeoutOptions {
  /**
   * Longest wait for a response's status and headers, per request (each retry gets its own).
   * `Infinity` waits for ever.
   * @default 30000
   */
  headersTimeoutMs?: number;
  /**
   * Longest wait for the next bytes of a response body: a server that stops sending
   * mid-body fails after this long without data. Time the reader's consumer takes is not
   * counted. `Infinity` waits for ever.
   * @default 30000
   */
  idleTimeoutMs?: number;
  /**
   * Time and timers of both timeouts (tests inject a `ManualClock`).
   * @default systemClock
   */
  clock?: Clock;
}

/** {@link RequestTimeoutOptions} checked, with defaults filled in. */
export interface RequestTimeouts {
  /** See {@link RequestTimeoutOptions.headersTimeoutMs}. */
  headersTimeoutMs: number;
  /** See {@link RequestTimeoutOptions.idleTimeoutMs}. */
  idleTimeoutMs: number;
  /** See {@link RequestTimeoutOptions.clock}. */
  clock: Clock;
}

/** Check the timeout options (RangeError naming a bad one) and fill in the defaults. */
export function resolveRequestTimeouts(options: RequestTimeoutOptions): RequestTimeouts {
  const o = optionsBag('options', options);
  return {
    headersTimeoutMs: withDefault('headersTimeoutMs', o.headersTimeoutMs, 30_000, positiveMs),
    idleTimeoutMs: withDefault('idleTimeoutMs', o.idleTimeoutMs, 30_000, positiveMs),
    clock: withDefault('clock', o.clock, systemClock, checkClock),
  };
}

/**
 * `fetch` with the two timeouts of {@link RequestTimeouts} and the caller's signal on one
 * AbortController: the request is aborted (freeing its connection) when the caller gives up,
 * when the headers take longer than `headersTimeoutMs`, or when the body sends nothing for
 * `idleTimeoutMs`. Rejects (and the returned body errors) with the caller's abort reason or a
 * {@link RequestTimeoutError}; other failures are the fetch's own. The returned Response's
 * body carries the idle timeout; read or cancel it. Its `Content-Length`, when present, is the
 * length of the body as read (absent when the answer may be compressed, see
 * {@link decodedLengthHeaders}). Errors name `shownUrl` (the unsigned URL of a signed one).
 * The caller's signal is watched with core's `onAbort`: requests sharing one signal share one
 * `'abort'` listener, and each stops watching when it settles (its headers fail, or its body is
 * read to the end, fails or is cancelled); a body never read nor cancelled keeps its watch.
 */
export async function fetchWithTimeout(
  fetchFn: typeof globalThis.fetch,
  url: string,
  init: RequestInit,
  timeouts: RequestTimeouts,
  signal?: AbortSignal | null,
  shownUrl: string = url,
): Promise<Response> {
  if (signal?.aborted) throw abortReason(signal);
  const { clock, headersTimeoutMs, idleTimeoutMs } = timeouts;
  const controller = new AbortController();
  // Stop watching the caller's signal when the request settles (headers failed, body read to
  // its end, failed or cancelled): a signal shared by many requests keeps nothing of them.
  const done = signal ? onAbort(signal, () => controller.abort(abortReason(signal))) : () => {};
  const arm = (ms: number, phase: 'headers' | 'body') =>
    ms === Number.POSITIVE_INFINITY
      ? undefined
      : clock.setTimeout(() => controller.abort(new RequestTimeoutError(shownUrl, phase, ms)), ms);
  const headersTimer = arm(headersTimeoutMs, 'headers');
  let res: Response;
  try {
    // Raced too: a user's fetch may ignore the signal.
    res = await raceAbort(fetchFn(url, { ...init, signal: controller.signal }), controller.signal);
  } catch (error) {
    done();
    throw controller.signal.aborted ? abortReason(controller.signal) : error;
  } finally {
    if (headersTimer !== undefined) clock.clearTimeout(headersTimer);
  }
  const body = res.body;
  if (!body || res.status === 0) {
    done();
    return res;
  }
  const reader = body.getReader();
  const fail = (error: unknown) =>
    controller.signal.aborted ? abortReason(controller.signal) : error;
  const timed = new ReadableStream<Uint8Array>({
    async pull(out) {
      const timer = arm(idleTimeoutMs, 'body');
      try {
        const r = await raceAbort(reader.read(), controller.signal);
        if (r.done) {
          done();
          out.close();
        } else out.enqueue(r.value);
      } catch (error) {
        done();
        reader.cancel().catch(() => {});
        out.error(fail(error));
      } finally {
        if (timer !== undefined) clock.clearTimeout(timer);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(timed, {
    status: res.status,
    statusText: res.statusText,
    headers: decodedLengthHeaders(res),
  });
}

/**
 * `res`'s headers, with `Content-Length` only when it is the length of the body as read.
 * Browsers decode a gzipped answer transparently, and `Content-Length` then counts the
 * compressed bytes; under CORS `Content-Encoding` is hidden unless the server exposes it
 * (`Content-Length` never is), so a cross-origin answer's length may be the compressed one.
 * The browser still checks the compressed length itself: a body that breaks off fails.
 */
function decodedLengthHeaders(res: Response): Headers {
  const headers = new Headers(res.headers);
  const mayBeEncoded =
    headers.has('Content-Encoding') || res.type === 'cors' || res.type === 'opaque';
  if (mayBeEncoded) headers.delete('Content-Length');
  return headers;
}

/**
 * All bytes of `body` (a response body from {@link fetchWithTimeout} or a RangeReader
 * stream). Unlike `Response.text()` / `arrayBuffer()`, which turn any stream error into
 * `TypeError: Failed to fetch`, the stream's own error (a `RequestTimeoutError`, the
 * caller's abort reason) is what rejects.
 */
export async function readBody(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    chunks.push(r.value);
    total += r.value.length;
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** {@link readBody} decoded as UTF-8. */
export async function readText(body: ReadableStream<Uint8Array> | null): Promise<string> {
  return new TextDecoder().decode(await readBody(body));
}
