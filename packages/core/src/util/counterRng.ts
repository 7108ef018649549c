/**
 * Philox4x32-10, the counter-based generator of Salmon et al. ("Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011). Output is a pure function of a
 * 128-bit counter and a 64-bit key, so any draw can be recomputed anywhere
 * (another machine, a worker, after a restart) without replaying a stream.
 * Integer-only arithmetic: results are identical on every JavaScript engine.
 */

const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;

/**
 * High 32 bits of the 64-bit product of two uint32 values, exactly: `b` is
 * split in 16-bit halves so every partial product stays below 2^53, and
 * divisions by powers of two are exact in floating point.
 */
function mulhi(a: number, b: number): number {
  const lo = Math.floor((a * (b & 0xffff)) / 65536);
  return Math.floor((a * (b >>> 16) + lo) / 65536) >>> 0;
}

/**
 * One Philox4x32-10 block: writes 4 uint32 words derived from counter
 * `(c0, c1, c2, c3)` and key `(k0, k1)` into `out` (which is returned).
 * Matches the Random123 known-answer vectors.
 *
 * @example
 * philox4x32(0, 0, 0, 0, 0, 0, new Uint32Array(4)); // [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
 */
export function philox4x32(
  c0: number,
  c1: number,
  c2: number,
  c3: number,
  k0: number,
  k1: number,
  out: Uint32Array,
): Uint32Array {
  let x0 = c0 >>> 0;
  let x1 = c1 >>> 0;
  let x2 = c2 >>> 0;
  let x3 = c3 >>> 0;
  let y0 = k0 >>> 0;
  let y1 = k1 >>> 0;
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      y0 = (y0 + W0) >>> 0;
      y1 = (y1 + W1) >>> 0;
    }
    const hi0 = mulhi(M0, x0);
    const lo0 = Math.imul(M0, x0) >>> 0;
    const hi1 = mulhi(M1, x2);
    const lo1 = Math.imul(M1, x2) >>> 0;
    x0 = (hi1 ^ x1 ^ y0) >>> 0;
    x1 = lo1;
    x2 = (hi0 ^ x3 ^ y1) >>> 0;
    x3 = lo0;
  }
  out[0] = x0;
  out[1] = x1;
  out[2] = x2;
  out[3] = x3;
  return out;
}
