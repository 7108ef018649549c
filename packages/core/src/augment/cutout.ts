import { arrayOf, positiveInt, showValue, withDefault } from '../util/validate.js';
import {
  type FloatArray,
  finite,
  hwc,
  optionsOf,
  probability,
  type Transform,
} from './Transform.js';

/** Options of {@link cutout}. */
export interface CutoutOptions {
  /**
   * Probability of cutting patches out.
   * @default 0.5
   */
  p?: number;
  /**
   * Patch size `[height, width]`, or one number for a square.
   * @default 8
   */
  size?: number | readonly [number, number];
  /**
   * Patches per image.
   * @default 1
   */
  count?: number;
  /**
   * Value written into the patches.
   * @default 0
   */
  fill?: number;
}

/**
 * Cutout (DeVries & Taylor, 2017): with probability `p`, set `count` patches
 * of `size` to `fill`, each at a uniform position fully inside the image.
 * The draw is the patches' top-left corners `[y0, x0, y1, x1, …]`.
 * @example cutout({ size: 16, count: 2 })
 */
export function cutout(options?: CutoutOptions): Transform<number[]> {
  const o = optionsOf('cutout', options);
  const p = withDefault('cutout.p', o.p, 0.5, probability);
  const size: unknown = o.size === undefined ? 8 : o.size;
  if (Array.isArray(size) && size.length !== 2) {
    throw new TypeError(`cutout.size must be a number or [height, width], got ${showValue(size)}`);
  }
  const [ph, pw] = Array.isArray(size)
    ? (arrayOf('cutout.size', size, positiveInt) as [number, number])
    : [positiveInt('cutout.size', size), positiveInt('cutout.size', size)];
  const count = withDefault('cutout.count', o.count, 1, positiveInt);
  const fill = withDefault('cutout.fill', o.fill, 0, finite);
  return {
    kind: 'cutout',
    options: { p, size: [ph, pw], count, fill },
    draw: (rng, shape) => {
      const [h, w] = hwc('cutout', shape);
      if (ph > h || pw > w) {
        throw new RangeError(`cutout.size [${ph}, ${pw}] is larger than the image [${h}, ${w}]`);
      }
      const go = rng.next() < p;
      const corners: number[] = [];
      for (let i = 0; i < count; i++) corners.push(rng.int(h - ph + 1), rng.int(w - pw + 1));
      return go ? corners : undefined;
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, corners: number[]): FloatArray {
      const [, w, c] = hwc('cutout', input.shape);
      const x = input.data;
      for (let i = 0; i < corners.length; i += 2) {
        const y0 = corners[i]!;
        const x0 = corners[i + 1]!;
        for (let y = y0; y < y0 + ph; y++) x.fill(fill, (y * w + x0) * c, (y * w + x0 + pw) * c);
      }
      return input;
    },
  };
}
