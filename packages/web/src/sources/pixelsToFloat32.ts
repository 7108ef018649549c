/**
 * `n` 8-bit pixels of `from` samples each (1 grey, 3 RGB, 4 RGBA; alpha is
 * ignored) as normalised floats with `to` channels: 1 = luminance
 * 0.299 R + 0.587 G + 0.114 B, 3 = R, G, B (grey repeated). Internal: the one
 * conversion of the canvas and the pure-JS PNG decoders.
 */
export function pixelsToFloat32(
  src: ArrayLike<number>,
  from: 1 | 3 | 4,
  to: 1 | 3,
  n: number,
): Float32Array {
  const out = new Float32Array(n * to);
  if (from === 1) {
    if (to === 1) for (let p = 0; p < n; p++) out[p] = (src[p] as number) / 255;
    else {
      for (let p = 0; p < n; p++) {
        const v = (src[p] as number) / 255;
        out[p * 3] = v;
        out[p * 3 + 1] = v;
        out[p * 3 + 2] = v;
      }
    }
  } else if (to === 1) {
    for (let p = 0, q = 0; p < n; p++, q += from) {
      out[p] =
        (0.299 * (src[q] as number) +
          0.587 * (src[q + 1] as number) +
          0.114 * (src[q + 2] as number)) /
        255;
    }
  } else {
    for (let p = 0, q = 0; p < n; p++, q += from) {
      out[p * 3] = (src[q] as number) / 255;
      out[p * 3 + 1] = (src[q + 1] as number) / 255;
      out[p * 3 + 2] = (src[q + 2] as number) / 255;
    }
  }
  return out;
}
