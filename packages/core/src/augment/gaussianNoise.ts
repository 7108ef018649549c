import { AugmentRng } from './AugmentRng.js';
import { type FloatArray, finite, optionsOf, probability, type Transform } from './Transform.js';

/** Options of {@link gaussianNoise}. */
export interface GaussianNoiseOptions {
  /**
   * Probability of adding noise.
   * @default 0.5
   */
  p?: number;
  /**
   * Standard deviation of the noise, ≥ 0.
   * @default 0.05
   */
  std?: number;
}

/** The draws of a noise step: the key of its per-value sub-stream. */
export interface NoiseDraw {
  key0: number;
  key1: number;
}

const TWO_PI = 2 * Math.PI;
const TWO_NEG_32 = 2 ** -32;

/**
 * Add `N(0, std²)` noise to every value of `x` in place (`std` a number, or one
 * per position of the last axis), drawn from the sub-stream `(key0, key1)`:
 * Box–Muller on consecutive pairs of 32-bit uniforms. Shared by
 * {@link gaussianNoise} and `gaussianJitter`.
 */
export function addNoise(
  x: Float32Array,
  draw: NoiseDraw,
  std: number | readonly number[],
  rng: AugmentRng,
): void {
  rng.resetSub(draw.key0, draw.key1);
  const per = typeof std === 'number' ? undefined : std;
  const s = typeof std === 'number' ? std : 0;
  const m = per?.length ?? 1;
  for (let i = 0; i < x.length; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rng.uint32() * TWO_NEG_32));
    const t = TWO_PI * rng.uint32() * TWO_NEG_32;
    x[i] = x[i]! + (per ? per[i % m]! : s) * r * Math.cos(t);
    if (i + 1 < x.length) x[i + 1] = x[i + 1]! + (per ? per[(i + 1) % m]! : s) * r * Math.sin(t);
  }
}

/**
 * Add Gaussian noise `N(0, std²)` to every value with probability `p`. The
 * draw is the key of a sub-stream that gives the per-value noise (so the GPU
 * path consumes the same draws; its noise values differ, only its
 * distribution matches).
 * @example gaussianNoise({ std: 0.03, p: 0.5 })
 */
export function gaussianNoise(options?: GaussianNoiseOptions): Transform<NoiseDraw> {
  const o = optionsOf('gaussianNoise', options);
  const p = probability('gaussianNoise.p', o.p ?? 0.5);
  const std = finite('gaussianNoise.std', o.std ?? 0.05, 0);
  const sub = new AugmentRng();
  return {
    kind: 'gaussianNoise',
    options: { p, std },
    draw: (rng) => {
      const go = rng.next() < p;
      const key0 = rng.uint32();
      const key1 = rng.uint32();
      return go ? { key0, key1 } : undefined;
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, d: NoiseDraw): FloatArray {
      addNoise(input.data, d, std, sub);
      return input;
    },
  };
}
