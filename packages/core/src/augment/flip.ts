import { withDefault } from '../util/validate.js';
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
  const p = withDefault(`${kind}.p`, o.p, 0.5, probability);
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
      // in place (the working copy is the stage's own): swap mirrored pixels
      const [h, w, c] = hwc(kind, input.shape);
      const x = input.data;
      const rows = horizontal ? h : h >> 1;
      const cols = horizontal ? w >> 1 : w;
      for (let y = 0; y < rows; y++) {
        const my = horizontal ? y : h - 1 - y;
        for (let i = 0; i < cols; i++) {
          let a = (y * w + i) * c;
          let b = (my * w + (horizontal ? w - 1 - i : i)) * c;
          for (let k = 0; k < c; k++, a++, b++) {
            const t = x[a]!;
            x[a] = x[b]!;
            x[b] = t;
          }
        }
      }
      return input;
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
