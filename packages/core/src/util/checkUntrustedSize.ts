/**
 * The one check for sizes read from untrusted bytes (headers, footers, indexes,
 * manifests): before anything is allocated for a claimed size, it is compared
 * with what the object really holds and with a configured cap.
 */
import { SizeLimitError } from '../errors.js';

/** What a size read from untrusted bytes is checked against. */
export interface UntrustedSizeLimits {
  /** What the real object can hold, e.g. the file's size or the bytes left after a header. */
  actual?: number;
  /**
   * How the message names `actual`.
   * @default 'what the object holds'
   */
  actualName?: string;
  /** A configured upper bound. */
  cap?: number;
  /** The option that sets `cap`, named in the message (e.g. `'maxPageBytes'`). */
  capName?: string;
  /**
   * Unit of the sizes in the message.
   * @default 'bytes'
   */
  unit?: string;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : String(n));

/**
 * The {@link SizeLimitError} for `claimed`, or undefined when it is a non-negative safe
 * integer within `limits`. For callers that skip a damaged record rather than fail.
 * @param what - names the claim and its file, e.g. `row group 3 of https://…/a.parquet`
 */
export function untrustedSizeError(
  what: string,
  claimed: number | bigint,
  limits: UntrustedSizeLimits,
): SizeLimitError | undefined {
  const n = typeof claimed === 'bigint' ? Number(claimed) : claimed;
  const unit = limits.unit ?? 'bytes';
  const { actual, cap } = limits;
  const allowed = Math.min(actual ?? Number.POSITIVE_INFINITY, cap ?? Number.POSITIVE_INFINITY);
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    return new SizeLimitError(
      what,
      Number.NaN,
      allowed,
      `${what} claims a size of ${String(claimed)} ${unit}, which is not a size`,
    );
  }
  if (actual !== undefined && n > actual) {
    return new SizeLimitError(
      what,
      n,
      allowed,
      `${what} claims ${fmt(n)} ${unit}, more than ${limits.actualName ?? 'what the object holds'} (${fmt(actual)})`,
    );
  }
  if (cap !== undefined && n > cap) {
    return new SizeLimitError(
      what,
      n,
      allowed,
      `${what} claims ${fmt(n)} ${unit}, more than ${limits.capName ?? 'the cap'} ${fmt(cap)}`,
    );
  }
  return undefined;
}

/**
 * Return `claimed` as a number when it is a non-negative safe integer no larger than
 * `limits.actual` and `limits.cap`; otherwise throw a {@link SizeLimitError} (code
 * `SIZE_LIMIT`) naming `what` and both sizes. Call it before allocating anything a size
 * read from untrusted bytes asks for.
 */
export function checkUntrustedSize(
  what: string,
  claimed: number | bigint,
  limits: UntrustedSizeLimits,
): number {
  const error = untrustedSizeError(what, claimed, limits);
  if (error) throw error;
  return Number(claimed);
}
