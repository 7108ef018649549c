import { arrayOf, showValue, withDefault } from '../util/validate.js';
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
  const p = withDefault('rotate90.p', o.p, 0.5, probability);
  const expected = 'a non-empty array of 1, 2, 3';
  const ks = withDefault('rotate90.turns', o.turns, [1, 2, 3], (name, turns) =>
    arrayOf(
      name,
      turns,
      (n, t) => {
        if (typeof t !== 'number')
          throw new TypeError(`${n} must be 1, 2 or 3, got ${showValue(t)}`);
        if (t !== 1 && t !== 2 && t !== 3) {
          throw new RangeError(`${n} must be 1, 2 or 3, got ${showValue(t)}`);
        }
        return t;
      },
      expected,
    ),
  );
  if (ks.length === 0) throw new TypeError(`rotate90.turns must be ${expected}, got []`);
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
      // a half turn, or any turn of a square image, permutes pixels in place
      // (the working copy is the stage's own); other shapes need a new array
      if (k === 2) return turnHalf(input, h * w, c);
      if (h === w) return turnSquare(input, h, c, k);
      const src = input.data;
      const out = new Float32Array(src.length);
      const oh = w;
      const ow = h;
      for (let i = 0; i < oh; i++) {
        for (let j = 0; j < ow; j++) {
          const sy = k === 1 ? j : h - 1 - j;
          const sx = k === 1 ? w - 1 - i : i;
          const from = (sy * w + sx) * c;
          const to = (i * ow + j) * c;
          for (let q = 0; q < c; q++) out[to + q] = src[from + q]!;
        }
      }
      return { data: out, shape: imageShape(input.shape, oh, ow) };
    },
  };
}

/** Rotate by 180° in place: pixel `p` swaps with pixel `n − 1 − p` (channels kept together). */
function turnHalf(input: FloatArray, n: number, c: number): FloatArray {
  const x = input.data;
  for (let p = 0, q = n - 1; p < q; p++, q--) {
    for (let k = 0; k < c; k++) {
      const t = x[p * c + k]!;
      x[p * c + k] = x[q * c + k]!;
      x[q * c + k] = t;
    }
  }
  return input;
}

/**
 * Rotate an `n × n` image by `k` = 1 or 3 quarter turns counter-clockwise in
 * place, one 4-cycle of pixels at a time: for `k = 1` pixel `(i, j)` takes
 * `(j, n−1−i)`, which takes `(n−1−i, n−1−j)`, which takes `(n−1−j, i)`, which
 * takes `(i, j)`; `k = 3` runs the cycle the other way.
 */
function turnSquare(input: FloatArray, n: number, c: number, k: number): FloatArray {
  const x = input.data;
  const m = n - 1;
  for (let i = 0; i < n >> 1; i++) {
    for (let j = 0; j < (n + 1) >> 1; j++) {
      const a = (i * n + j) * c;
      const b = (j * n + m - i) * c; // (j, n−1−i)
      const d = ((m - i) * n + m - j) * c; // (n−1−i, n−1−j)
      const e = ((m - j) * n + i) * c; // (n−1−j, i)
      for (let q = 0; q < c; q++) {
        const t = x[a + q]!;
        if (k === 1) {
          x[a + q] = x[b + q]!;
          x[b + q] = x[d + q]!;
          x[d + q] = x[e + q]!;
          x[e + q] = t;
        } else {
          x[a + q] = x[e + q]!;
          x[e + q] = x[d + q]!;
          x[d + q] = x[b + q]!;
          x[b + q] = t;
        }
      }
    }
  }
  return input;
}
