import { showValue } from '../util/validate.js';
import {
  type FloatArray,
  hwc,
  imageShape,
  optionsOf,
  probability,
  type Transform,
} from './Transform.js';

/** Options of {@link rotate90}. */
export interface Rotate90Options {
  /**
   * Probability of rotating.
   * @default 0.5
   */
  p?: number;
  /**
   * Quarter turns to choose from, uniformly, when rotating (counter-clockwise).
   * Odd turns swap H and W: keep images square, or use `[2]`.
   * @default [1, 2, 3]
   */
  turns?: readonly (1 | 2 | 3)[];
}

/**
 * Rotate an image by a multiple of 90° counter-clockwise with probability
 * `p` (the same as numpy's `rot90(img, k)`: for k = 1, output `(i, j)` is input
 * `(j, W − 1 − i)`).
 * @example rotate90({ p: 0.75 })
 */
export function rotate90(options?: Rotate90Options): Transform<number> {
  const o = optionsOf('rotate90', options);
  const p = probability('rotate90.p', o.p ?? 0.5);
  const turns = o.turns ?? [1, 2, 3];
  if (!Array.isArray(turns) || turns.length === 0) {
    throw new TypeError(
      `rotate90.turns must be a non-empty array of 1, 2, 3, got ${showValue(turns)}`,
    );
  }
  for (const t of turns) {
    if (t !== 1 && t !== 2 && t !== 3) {
      throw new RangeError(`rotate90.turns must hold 1, 2 or 3, got ${showValue(t)}`);
    }
  }
  const ks = [...turns];
  return {
    kind: 'rotate90',
    options: { p, turns: ks },
    draw: (rng, shape) => {
      hwc('rotate90', shape);
      const go = rng.next() < p;
      const k = ks[rng.int(ks.length)]!;
      return go ? k : undefined;
    },
    shapeAfter: (shape, k) => {
      if (k === undefined || k === 2) return shape;
      const [h, w] = hwc('rotate90', shape);
      return imageShape(shape, w, h);
    },
    apply(input: FloatArray, k: number): FloatArray {
      const [h, w, c] = hwc('rotate90', input.shape);
      const src = input.data;
      const out = new Float32Array(src.length);
      const oh = k === 2 ? h : w;
      const ow = k === 2 ? w : h;
      for (let i = 0; i < oh; i++) {
        for (let j = 0; j < ow; j++) {
          let sy: number;
          let sx: number;
          if (k === 1) {
            sy = j;
            sx = w - 1 - i;
          } else if (k === 2) {
            sy = h - 1 - i;
            sx = w - 1 - j;
          } else {
            sy = h - 1 - j;
            sx = i;
          }
          const from = (sy * w + sx) * c;
          const to = (i * ow + j) * c;
          for (let q = 0; q < c; q++) out[to + q] = src[from + q]!;
        }
      }
      return { data: out, shape: imageShape(input.shape, oh, ow) };
    },
  };
}
