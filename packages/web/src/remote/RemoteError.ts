import { MedFusionError } from '@medfusion/core';
import { describe, registerErrorClass } from '@medfusion/core/internal';
import { redactUrl } from './redactUrl.js';

/**
 * A remote read failed. `code` says how: `HTTP_ERROR` (a status the request
 * cannot succeed with, or a 5xx), `NETWORK_ERROR` (no response), `SHORT_READ`
 * (fewer bytes than asked), `BAD_RESPONSE` (a response that does not match the
 * request), `RANGE_NOT_SUPPORTED` (the server ignored `Range` and answered the
 * whole object; detected once per reader, never retried), `URL_EXPIRED` (a URL fresh from
 * `signUrl` was refused as expired again). `retryable` marks the transient ones (5xx, 408,
 * 429, network, short read). The URL is shown without a signature ({@link redactUrl}).
 */
export class RemoteReadError extends MedFusionError {
  /** The URL that was read. */
  readonly url: string;
  /** HTTP status, when there was a response. */
  readonly status?: number;
  /** Whether another attempt may succeed. */
  readonly retryable: boolean;
  constructor(
    code:
      | 'HTTP_ERROR'
      | 'NETWORK_ERROR'
      | 'SHORT_READ'
      | 'BAD_RESPONSE'
      | 'RANGE_NOT_SUPPORTED'
      | 'URL_EXPIRED',
    url: string,
    message: string,
    options: { status?: number; retryable: boolean; cause?: unknown },
  ) {
    const shown = redactUrl(url);
    super(code, `${message} (${shown})`, { cause: options.cause });
    this.name = 'RemoteReadError';
    this.url = shown;
    if (options.status !== undefined) this.status = options.status;
    this.retryable = options.retryable;
  }
}
registerErrorClass('RemoteReadError', RemoteReadError);

/**
 * The object changed while we were reading it (its ETag or size is not the one
 * the reads began with, or the server answered 412 to If-Match). Code
 * `OBJECT_CHANGED`. Never retried: bytes of two versions are never mixed.
 */
export class ObjectChangedError extends MedFusionError {
  /** The URL of the object. */
  readonly url: string;
  /** The ETag the reads were pinned to. */
  readonly expectedEtag: string | undefined;
  /** The ETag the server reports now, when it sent one. */
  readonly actualEtag: string | undefined;
  constructor(url: string, expected: string | undefined, actual: string | undefined, detail = '') {
    url = redactUrl(url);
    super(
      'OBJECT_CHANGED',
      `${url} changed during reading: expected ETag ${expected ?? '(none)'}, got ${actual ?? '(none)'}${detail ? `; ${detail}` : ''}`,
    );
    this.name = 'ObjectChangedError';
    this.url = url;
    this.expectedEtag = expected;
    this.actualEtag = actual;
  }
}
registerErrorClass('ObjectChangedError', ObjectChangedError);

/** A shard's bytes do not hash to the sha256 its manifest gives. Code `CHECKSUM_MISMATCH`. */
export class ChecksumMismatchError extends MedFusionError {
  constructor(url: string, expected: string, actual: string) {
    super(
      'CHECKSUM_MISMATCH',
      `sha256 of ${redactUrl(url)} is ${actual}, manifest says ${expected}`,
    );
    this.name = 'ChecksumMismatchError';
  }
}
registerErrorClass('ChecksumMismatchError', ChecksumMismatchError);

/** Defined in core (the shard format lives there); re-exported for web's sources. */
export { SourceFormatError } from '@medfusion/core';

/**
 * A server stalled: no response headers within `headersTimeoutMs`, or no body
 * bytes for `idleTimeoutMs` mid-body. Code `REQUEST_TIMEOUT`. The request was
 * aborted and its per-origin slot freed; the reader does not retry it (the
 * loader's `onError` policy decides).
 */
export class RequestTimeoutError extends MedFusionError {
  /** The URL that stalled. */
  readonly url: string;
  /** Where it stalled: waiting for the headers, or for the next body bytes. */
  readonly phase: 'headers' | 'body';
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;
  /** Whether another attempt may succeed (never: the reader does not retry a stall). */
  readonly retryable = false;
  constructor(url: string, phase: 'headers' | 'body', timeoutMs: number) {
    url = redactUrl(url);
    super(
      'REQUEST_TIMEOUT',
      phase === 'headers'
        ? `no response headers within ${timeoutMs} ms (headersTimeoutMs) from ${url}`
        : `the body stalled for ${timeoutMs} ms (idleTimeoutMs) reading ${url}`,
    );
    this.name = 'RequestTimeoutError';
    this.url = url;
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}
registerErrorClass('RequestTimeoutError', RequestTimeoutError);

/**
 * A `signUrl` hook failed: it threw (the error is the `cause`), did not settle within
 * `signTimeoutMs`, or returned something that is not an absolute URL. Code
 * `SIGN_URL_FAILED`; nothing was fetched. The next read of the object calls the hook again.
 */
export class SignUrlError extends MedFusionError {
  /** The URL of the object the hook was asked to sign (never a signed URL). */
  readonly url: string;
  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    url = redactUrl(url);
    const cause = options && 'cause' in options ? `: ${describe(options.cause)}` : '';
    super('SIGN_URL_FAILED', `signUrl(${url}) ${reason}${cause}`, options);
    this.name = 'SignUrlError';
    this.url = url;
  }
}
registerErrorClass('SignUrlError', SignUrlError);
