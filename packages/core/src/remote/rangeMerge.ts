import {
  nonNegativeInt,
  optionsBag,
  positiveInt,
  showValue,
  withDefault,
} from '../util/validate.js';

/** A half-open byte range `[start, end)` inside one object. */
export interface ByteRange {
  /** First byte (inclusive). */
  readonly start: number;
  /** One past the last byte (exclusive). */
  readonly end: number;
}

/** One request's worth of bytes covering several wanted ranges. */
export interface MergedRange<R extends ByteRange = ByteRange> extends ByteRange {
  /** The wanted ranges this request covers, in ascending `start` order. */
  readonly parts: R[];
}

/** Options of {@link mergeRanges}. */
export interface MergeRangesOptions {
  /**
   * Largest run of unwanted bytes between two ranges that is still read
   * through rather than split into two requests (a request's latency usually
   * costs more than a few KiB of transfer).
   * @default 65536
   */
  maxGap?: number;
  /**
   * Largest merged request in bytes (the spelling of `WebDatasetSource`'s
   * option; `maxBytes` elsewhere is a byte budget); a range larger than this
   * on its own is kept whole.
   * @default 16777216 (16 MiB)
   */
  maxRequestBytes?: number;
}

/**
 * Merge wanted byte ranges of one object into as few requests as the gap and
 * size limits allow. Format-neutral: tar members, Parquet column chunks or
 * anything else addressed by offset.
 *
 * @example
 * mergeRanges([{ start: 0, end: 10 }, { start: 12, end: 20 }, { start: 1000, end: 1010 }], { maxGap: 4 });
 * // → [{ start: 0, end: 20, parts: [..2] }, { start: 1000, end: 1010, parts: [..1] }]
 */
export function mergeRanges<R extends ByteRange>(
  ranges: readonly R[],
  options: MergeRangesOptions = {},
): MergedRange<R>[] {
  optionsBag('options', options);
  const maxGap = withDefault('maxGap', options.maxGap, 65536, nonNegativeInt);
  if ('maxBytes' in options) {
    throw new TypeError(
      `maxBytes is now maxRequestBytes (largest merged request), got maxBytes: ${showValue((options as { maxBytes?: unknown }).maxBytes)}`,
    );
  }
  const maxRequestBytes = withDefault(
    'maxRequestBytes',
    options.maxRequestBytes,
    16 * 1024 * 1024,
    positiveInt,
  );
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] as R;
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 0 || r.end < r.start) {
      throw new RangeError(
        `ranges[${i}] must satisfy 0 <= start <= end, got [${r.start}, ${r.end})`,
      );
    }
  }
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: MergedRange<R>[] = [];
  let cur: { start: number; end: number; parts: R[] } | undefined;
  for (const r of sorted) {
    if (
      cur !== undefined &&
      r.start - cur.end <= maxGap &&
      Math.max(cur.end, r.end) - cur.start <= maxRequestBytes
    ) {
      cur.end = Math.max(cur.end, r.end);
      cur.parts.push(r);
    } else {
      if (cur) out.push(cur);
      cur = { start: r.start, end: r.end, parts: [r] };
    }
  }
  if (cur) out.push(cur);
  return out;
}
