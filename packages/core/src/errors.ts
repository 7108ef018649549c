import type { ErrorCode } from './errorCodes.js';
import { registerErrorClass } from './errorRegistry.js';

/**
 * Base class of every error MedFusion raises on purpose. Branch on `code`
 * (one of {@link ErrorCode}); the class survives worker boundaries too: an
 * error thrown in a worker is rebuilt as the same class on the page.
 * @typeParam C - the code type; {@link ErrorCode} for every class of ours but `WorkerLoadError`
 */
export class MedFusionError<C extends string = ErrorCode> extends Error {
  /**
   * Stable machine-readable code, e.g. `LOAD_TIMEOUT`: one of {@link ErrorCode}, except for
   * `WorkerLoadError`, which keeps the code the user's own loader set.
   */
  readonly code: C;
  /** The sample index the error is about, when there is one. */
  readonly index?: number;
  constructor(code: C, message: string, options?: { cause?: unknown; index?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MedFusionError';
    this.code = code;
    if (options?.index !== undefined) this.index = options.index;
  }
}
registerErrorClass('MedFusionError', MedFusionError);

/** A load did not settle within its time bound. Code `LOAD_TIMEOUT`. */
export class LoadTimeoutError extends MedFusionError {
  /** How long the caller waited, in milliseconds. */
  readonly timeoutMs: number;
  constructor(index: number, timeoutMs: number) {
    super('LOAD_TIMEOUT', `Loading sample ${index} did not finish within ${timeoutMs} ms`, {
      index,
    });
    this.name = 'LoadTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}
registerErrorClass('LoadTimeoutError', LoadTimeoutError);

/** Loading one sample failed; `cause` holds the loader's own error. Code `LOAD_FAILED`. */
export class LoadError extends MedFusionError {
  constructor(index: number, cause: unknown) {
    super('LOAD_FAILED', `Loading sample ${index} failed: ${describe(cause)}`, { index, cause });
    this.name = 'LoadError';
  }
}
registerErrorClass('LoadError', LoadError);

/** An operation on an object that was already closed. Code `CLOSED`. */
export class ClosedError extends MedFusionError {
  constructor(what: string) {
    super('CLOSED', `${what} is closed`);
    this.name = 'ClosedError';
  }
}
registerErrorClass('ClosedError', ClosedError);

/** A short human description of any thrown value. */
export function describe(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return String(value);
}

/**
 * A size read from untrusted bytes (a file header, a table footer, an index) claims more
 * than the object really holds, or more than a configured cap, so nothing was allocated
 * for it. Code `SIZE_LIMIT`. The message names the file and both sizes.
 */
export class SizeLimitError extends MedFusionError {
  /** What made the claim, e.g. `row group 0 of https://…/train.parquet`. */
  readonly what: string;
  /** The size as claimed (NaN when the claim is not a size at all). */
  readonly claimed: number;
  /** The largest size that was allowed (the real size, or the cap, whichever is smaller). */
  readonly allowed: number;
  constructor(what: string, claimed: number, allowed: number, message: string) {
    super('SIZE_LIMIT', message);
    this.name = 'SizeLimitError';
    this.what = what;
    this.claimed = claimed;
    this.allowed = allowed;
  }
}
registerErrorClass('SizeLimitError', SizeLimitError);

/**
 * Data is not in the format its reader expects: a bad tar shard, shard index or
 * manifest, a malformed table. Code `BAD_FORMAT`. The message names the file.
 */
export class SourceFormatError extends MedFusionError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('BAD_FORMAT', message, options);
    this.name = 'SourceFormatError';
  }
}
registerErrorClass('SourceFormatError', SourceFormatError);
