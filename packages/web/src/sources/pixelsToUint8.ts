/**
 * `n` 8-bit pixels of `from` samples each (1 grey, 3 RGB, 4 RGBA; alpha is
 * ignored) as 8-bit pixels with `to` channels, in one pass: 1 = luminance
 * round(0.299 R + 0.587 G + 0.114 B) (the weights and rounding of `medfusion pack
 * --decode --channels 1`), 3 = R, G, B (grey repeated). Written into `out` from
 * element `at` (a fresh array by default); `bgr`: the source's samples are B, G, R(, X).
 * Internal: the uint8 twin of {@link pixelsToFloat32}.
 */
export function pixelsToUint8(
  src: ArrayLike<number>,
  from: 1 | 3 | 4,
  to: 1 | 3,
  n: number,
  out: Uint8Array = new Uint8Array(n * to),
  at = 0,
  bgr = false,
): Uint8Array {
  const ri = bgr ? 2 : 0;
  const bi = 2 - ri;
  if (from === 1) {
    if (to === 1) for (let p = 0; p < n; p++) out[at + p] = src[p] as number;
    else {
      for (let p = 0, o = at; p < n; p++, o += 3) {
        const v = src[p] as number;
        out[o] = v;
        out[o + 1] = v;
        out[o + 2] = v;
      }
    }
  } else if (to === 1) {
    for (let p = 0, q = 0; p < n; p++, q += from) {
      out[at + p] = Math.round(
        0.299 * (src[q + ri] as number) +
          0.587 * (src[q + 1] as number) +
          0.114 * (src[q + bi] as number),
      );
    }
  } else {
    for (let p = 0, q = 0, o = at; p < n; p++, q += from, o += 3) {
      out[o] = src[q + ri] as number;
      out[o + 1] = src[q + 1] as number;
      out[o + 2] = src[q + bi] as number;
    }
  }
  return out;
}
