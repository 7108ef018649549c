import { withDefault } from '../util/validate.js';
import { sampleBilinear } from './bilinear.js';
import {
  type FloatArray,
  finite,
  hwc,
  optionsOf,
  probability,
  type Transform,
} from './Transform.js';

/** Options of {@link rotate}. */
export interface RotateOptions {
  /**
   * Probability of rotating.
   * @default 0.5
   */
  p?: number;
  /**
   * Largest angle, in degrees; the angle is uniform in [−degrees, degrees].
   * @default 10
   */
  degrees?: number;
  /**
   * Value of the pixels that come from outside the input.
   * @default 0
   */
  fill?: number;
}

/**
 * Rotate an image by a small random angle `a` (counter-clockwise as displayed,
 * y pointing down) about its centre `(cx, cy) = ((W − 1) / 2, (H − 1) / 2)`,
 * with bilinear sampling: output `(x, y)` reads the input at
 * `(cx + cos a·(x − cx) − sin a·(y − cy), cy + sin a·(x − cx) + cos a·(y − cy))`;
 * neighbours outside the input read as `fill`. The draw is `a` in radians.
 * @example rotate({ degrees: 15, p: 0.5 })
 */
export function rotate(options?: RotateOptions): Transform<number> {
  const o = optionsOf('rotate', options);
  const p = withDefault('rotate.p', o.p, 0.5, probability);
  const degrees = withDefault('rotate.degrees', o.degrees, 10, (n, v) => finite(n, v, 0, 180));
  const fill = withDefault('rotate.fill', o.fill, 0, finite);
  const maxRad = (degrees * Math.PI) / 180;
  return {
    kind: 'rotate',
    options: { p, degrees, fill },
    draw: (rng, shape) => {
      hwc('rotate', shape);
      const go = rng.next() < p;
      const a = rng.uniform(-maxRad, maxRad);
      return go ? a : undefined;
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, a: number): FloatArray {
      const [h, w, c] = hwc('rotate', input.shape);
      const out = new Float32Array(input.data.length);
      const cos = Math.cos(a);
      const sin = Math.sin(a);
      const cx = (w - 1) / 2;
      const cy = (h - 1) / 2;
      for (let y = 0; y < h; y++) {
        const dy = y - cy;
        for (let x = 0; x < w; x++) {
          const dx = x - cx;
          const sx = cx + cos * dx - sin * dy;
          const sy = cy + sin * dx + cos * dy;
          sampleBilinear(input.data, h, w, c, sx, sy, fill, out, (y * w + x) * c);
        }
      }
      return { data: out, shape: input.shape };
    },
  };
}
