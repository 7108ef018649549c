/**
 * Bilinear read of the `c` channels of an `[h, w, c]` image at real
 * coordinates `(sx, sy)` into `out[to..to+c)`. Each of the four neighbours
 * outside the image reads as `fill` (TensorFlow's `constant` fill mode).
 */
export function sampleBilinear(
  src: Float32Array,
  h: number,
  w: number,
  c: number,
  sx: number,
  sy: number,
  fill: number,
  out: Float32Array,
  to: number,
): void {
  const x0 = Math.floor(sx);
  const y0 = Math.floor(sy);
  const fx = sx - x0;
  const fy = sy - y0;
  const inX0 = x0 >= 0 && x0 < w;
  const inX1 = x0 + 1 >= 0 && x0 + 1 < w;
  const inY0 = y0 >= 0 && y0 < h;
  const inY1 = y0 + 1 >= 0 && y0 + 1 < h;
  const r0 = y0 * w;
  const r1 = r0 + w;
  for (let k = 0; k < c; k++) {
    const a = inY0 && inX0 ? src[(r0 + x0) * c + k]! : fill;
    const b = inY0 && inX1 ? src[(r0 + x0 + 1) * c + k]! : fill;
    const d = inY1 && inX0 ? src[(r1 + x0) * c + k]! : fill;
    const e = inY1 && inX1 ? src[(r1 + x0 + 1) * c + k]! : fill;
    const top = (1 - fx) * a + fx * b;
    const bottom = (1 - fx) * d + fx * e;
    out[to + k] = (1 - fy) * top + fy * bottom;
  }
}
