import {
  chance,
  type FloatArray,
  hwc,
  optionsOf,
  probability,
  type Transform,
} from './Transform.js';

/** Options of {@link flipH} and {@link flipV}. */
export interface FlipOptions {
  /**
   * Probability of flipping.
   * @default 0.5
   */
  p?: number;
}

function flip(kind: 'flipH' | 'flipV', options: FlipOptions | undefined): Transform<true> {
  const o = optionsOf(kind, options);
  const p = probability(`${kind}.p`, o.p ?? 0.5);
  const horizontal = kind === 'flipH';
  return {
    kind,
    options: { p },
    draw: (rng, shape) => {
      hwc(kind, shape);
      return chance(rng, p);
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray): FloatArray {
      const [h, w, c] = hwc(kind, input.shape);
      const src = input.data;
      const out = new Float32Array(src.length);
      for (let y = 0; y < h; y++) {
        const sy = horizontal ? y : h - 1 - y;
        for (let x = 0; x < w; x++) {
          const sx = horizontal ? w - 1 - x : x;
          const from = (sy * w + sx) * c;
          const to = (y * w + x) * c;
          for (let k = 0; k < c; k++) out[to + k] = src[from + k]!;
        }
      }
      return { data: out, shape: input.shape };
    },
  };
}

/**
 * Mirror an image left–right with probability `p`: output `(y, x)` is input
 * `(y, W − 1 − x)`.
 * @example compose([flipH({ p: 0.5 })])
 */
export function flipH(options?: FlipOptions): Transform<true> {
  return flip('flipH', options);
}

/** Mirror an image top–bottom with probability `p`: output `(y, x)` is input `(H − 1 − y, x)`. */
export function flipV(options?: FlipOptions): Transform<true> {
  return flip('flipV', options);
}
