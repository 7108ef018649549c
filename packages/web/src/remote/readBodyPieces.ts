import { showValue } from '@medfusion/core/internal';
import { RemoteReadError } from './RemoteError.js';

/** A byte range `[start, end)` of a remote object. */
export interface ByteSpan {
  /** First byte. */
  start: number;
  /** One past the last byte. */
  end: number;
}

/**
 * The object's bytes `[start, end)` from the body of `res`, copied straight into
 * one buffer of its own per piece of `pieces` (ascending, disjoint, within the
 * range); bytes between pieces are read and dropped. Never holds more than the
 * pieces: one copy from the network's chunks, no buffer of the whole range. The
 * body starts at `start` and announces `bodyLength` bytes (at least the range's):
 * when it announced more (a server that answered a longer range than asked, as
 * Vite's static server does for `bytes=0-0`), the rest is cancelled once the range
 * is in. A body longer than announced or shorter than the range fails
 * (`BAD_RESPONSE` / `SHORT_READ`, naming `url`).
 */
export async function readBodyPieces(
  res: Response,
  start: number,
  end: number,
  pieces: readonly ByteSpan[],
  url: string,
  bodyLength = end - start,
): Promise<Uint8Array[]> {
  const length = end - start;
  const out = pieces.map((p) => new Uint8Array(p.end - p.start));
  let n = 0; // bytes of the body so far
  let k = 0; // the first piece not yet filled
  const reader = res.body?.getReader();
  if (reader) {
    while (n < length) {
      const r = await reader.read();
      if (r.done) break;
      const chunk = r.value;
      if (n + chunk.length > bodyLength) {
        await reader.cancel().catch(() => {});
        throw new RemoteReadError(
          'BAD_RESPONSE',
          url,
          `got more than the ${bodyLength} bytes asked for`,
          { retryable: false },
        );
      }
      const lo = start + n; // the chunk holds the object's bytes [lo, hi)
      const hi = lo + chunk.length;
      for (let j = k; j < pieces.length; j++) {
        const p = pieces[j] as ByteSpan;
        if (p.start >= hi) break;
        const from = Math.max(lo, p.start);
        const to = Math.min(hi, p.end);
        if (to > from)
          (out[j] as Uint8Array).set(chunk.subarray(from - lo, to - lo), from - p.start);
        if (p.end <= hi) k = j + 1;
      }
      n += chunk.length;
    }
    if (n >= length && bodyLength > length) {
      await reader.cancel().catch(() => {});
      return out;
    }
    if (n === length) {
      // the body must end here: one more read to see it does (a longer body is refused)
      const r = await reader.read();
      if (!r.done) {
        await reader.cancel().catch(() => {});
        throw new RemoteReadError(
          'BAD_RESPONSE',
          url,
          `got more than the ${length} bytes asked for`,
          {
            retryable: false,
          },
        );
      }
    }
  }
  if (n < length) {
    throw new RemoteReadError('SHORT_READ', url, `got ${n} of ${length} bytes`, {
      retryable: true,
    });
  }
  return out;
}

/**
 * Throws unless `pieces` are ascending, disjoint `{ start, end }` spans within
 * `[start, end)`: a TypeError for a non-array, a RangeError naming `pieces[i]`.
 */
export function checkPieces(pieces: readonly ByteSpan[], start: number, end: number): void {
  if (!Array.isArray(pieces)) {
    throw new TypeError(`pieces must be an array of { start, end }, got ${showValue(pieces)}`);
  }
  let at = start;
  for (const [i, p] of pieces.entries()) {
    const ok =
      p !== null &&
      typeof p === 'object' &&
      Number.isInteger(p.start) &&
      Number.isInteger(p.end) &&
      p.start >= at &&
      p.end > p.start &&
      p.end <= end;
    if (!ok) {
      throw new RangeError(
        `pieces[${i}] must be { start, end } with ${at} <= start < end <= ${end} (ascending, disjoint, within the read), got ${p !== null && typeof p === 'object' ? `{ start: ${showValue(p.start)}, end: ${showValue(p.end)} }` : showValue(p)}`,
      );
    }
    at = p.end;
  }
}
