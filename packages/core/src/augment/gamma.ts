import { withDefault } from '../util/validate.js';
import { type FloatArray, optionsOf, probability, range, type Transform } from './Transform.js';

/** Options of {@link gamma}. */
export interface GammaOptions {
  /**
   * Probability of applying a gamma curve.
   * @default 0.5
   */
  p?: number;
  /**
   * Range of the exponent γ (uniform), positive.
   * @default [0.8, 1.25]
   */
  gamma?: readonly [number, number];
}

/**
 * Gamma curve `max(x, 0)^γ` with γ uniform in `gamma`, with probability `p`.
 * Meant for intensities in [0, 1] (negative values become 0).
 * @example gamma({ gamma: [0.7, 1.5] })
 */
export function gamma(options?: GammaOptions): Transform<number> {
  const o = optionsOf('gamma', options);
  const p = withDefault('gamma.p', o.p, 0.5, probability);
  const g = withDefault('gamma.gamma', o.gamma, [0.8, 1.25] as const, (n, v) =>
    range(n, v, Number.MIN_VALUE),
  );
  return {
    kind: 'gamma',
    options: { p, gamma: g },
    draw: (rng) => {
      const go = rng.next() < p;
      const v = rng.uniform(g[0], g[1]);
      return go ? v : undefined;
    },
    shapeAfter: (shape) => shape,
    apply(input: FloatArray, v: number): FloatArray {
      const x = input.data;
      for (let i = 0; i < x.length; i++) x[i] = x[i]! > 0 ? x[i]! ** v : 0;
      return input;
    },
  };
}
