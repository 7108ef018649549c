import { arrayOf, showValue, withDefault } from '../util/validate.js';
import { addNoise, drawNoise, type NoiseDraw, NoiseStream } from './gaussianNoise.js';
import { type FloatArray, finite, optionsOf, probability, type Transform } from './Transform.js';

/** Options of {@link gaussianJitter}. */
export interface GaussianJitterOptions {
  /**
   * Standard deviation of the jitter: one for every feature, or one per
   * feature (the last axis), ≥ 0. Required.
   */
  std: number | readonly number[];
  /**
   * Probability of jittering the vector.
   * @default 1
   */
  p?: number;
}

/**
 * Tabular augmentation: add `N(0, std_i²)` to feature `i` of a feature vector
 * with probability `p` (a per-feature `std` of 0 leaves that feature, e.g. a
 * categorical code, untouched).
 * @example augmentFields({ tabular: gaussianJitter({ std: [0.1, 0.1, 0] }) })
 */
export function gaussianJitter(options: GaussianJitterOptions): Transform<NoiseDraw> {
  const o = optionsOf('gaussianJitter', options);
  const p = withDefault('gaussianJitter.p', o.p, 1, probability);
  const raw = o.std;
  let std: number | readonly number[];
  if (Array.isArray(raw)) {
    if (raw.length === 0) throw new RangeError('gaussianJitter.std must not be an empty array');
    std = arrayOf('gaussianJitter.std', raw, (n, s) => finite(n, s, 0));
  } else if (typeof raw === 'number') {
    std = finite('gaussianJitter.std', raw, 0);
  } else {
    throw new TypeError(`gaussianJitter.std must be a number or an array, got ${showValue(raw)}`);
  }
  const sub = new NoiseStream();
  return {
    kind: 'gaussianJitter',
    options: { p, std },
    draw: (rng) => drawNoise(rng, p),
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, d: NoiseDraw): FloatArray {
      const last = input.shape[input.shape.length - 1] ?? input.data.length;
      if (typeof std !== 'number' && std.length !== last) {
        throw new RangeError(
          `gaussianJitter.std has ${std.length} values but the vector has ${last} features`,
        );
      }
      addNoise(input.data, d, std, sub);
      return input;
    },
  };
}
