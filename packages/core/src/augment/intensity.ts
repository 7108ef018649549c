import { withDefault } from '../util/validate.js';
import { type FloatArray, optionsOf, probability, range, type Transform } from './Transform.js';

/** Options of {@link intensity}. */
export interface IntensityOptions {
  /**
   * Probability of changing the intensity.
   * @default 0.5
   */
  p?: number;
  /**
   * Range of the factor `a` (uniform).
   * @default [0.9, 1.1]
   */
  scale?: readonly [number, number];
  /**
   * Range of the offset `b` (uniform).
   * @default [-0.1, 0.1]
   */
  shift?: readonly [number, number];
}

/** The draws of {@link intensity}: factor and offset. */
export interface IntensityDraw {
  /** The factor every value is multiplied by. */
  scale: number;
  /** The offset added after scaling. */
  shift: number;
}

/**
 * Scale and shift every value, `x·a + b`, with `a` uniform in `scale` and
 * `b` uniform in `shift`, with probability `p`. Works on any shape.
 * @example intensity({ scale: [0.8, 1.2], shift: [-0.05, 0.05] })
 */
export function intensity(options?: IntensityOptions): Transform<IntensityDraw> {
  const o = optionsOf('intensity', options);
  const p = withDefault('intensity.p', o.p, 0.5, probability);
  const scale = withDefault('intensity.scale', o.scale, [0.9, 1.1] as const, range);
  const shift = withDefault('intensity.shift', o.shift, [-0.1, 0.1] as const, range);
  return {
    kind: 'intensity',
    options: { p, scale, shift },
    draw: (rng) => {
      const go = rng.next() < p;
      const a = rng.uniform(scale[0], scale[1]);
      const b = rng.uniform(shift[0], shift[1]);
      return go ? { scale: a, shift: b } : undefined;
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, d: IntensityDraw): FloatArray {
      const x = input.data;
      for (let i = 0; i < x.length; i++) x[i] = x[i]! * d.scale + d.shift;
      return input;
    },
  };
}
