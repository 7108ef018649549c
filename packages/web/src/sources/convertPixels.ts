import type { ImageDtype, ImagePixels } from './DecodedImage.js';
import { pixelsToFloat32 } from './pixelsToFloat32.js';
import { pixelsToUint8 } from './pixelsToUint8.js';

/** A fresh pixel array of `dtype` with `length` elements. */
export function newPixels<D extends ImageDtype>(dtype: D, length: number): ImagePixels<D> {
  return (dtype === 'uint8' ? new Uint8Array(length) : new Float32Array(length)) as ImagePixels<D>;
}

/**
 * `n` 8-bit pixels of `from` samples as `to` channels of `dtype` ({@link pixelsToFloat32},
 * {@link pixelsToUint8}), into `out` from element `at` (a fresh array by default); `bgr`:
 * the source's samples are B, G, R(, X).
 */
export function convertPixels<D extends ImageDtype>(
  dtype: D,
  src: ArrayLike<number>,
  from: 1 | 3 | 4,
  to: 1 | 3,
  n: number,
  out: ImagePixels<D> = newPixels(dtype, n * to),
  at = 0,
  bgr = false,
): ImagePixels<D> {
  if (dtype === 'uint8') pixelsToUint8(src, from, to, n, out as Uint8Array, at, bgr);
  else pixelsToFloat32(src, from, to, n, out as Float32Array, at, bgr);
  return out;
}
