import { arrayOf, showValue, withDefault } from '../util/validate.js';
import { type FloatArray, finite, optionsOf, type Transform } from './Transform.js';

/** Options of {@link normalize}. */
export interface NormalizeOptions {
  /**
   * Subtracted first: one number, or one per channel (the last axis).
   * @default 0
   */
  mean?: number | readonly number[];
  /**
   * Then divided by: one positive number, or one per channel.
   * @default 1
   */
  std?: number | readonly number[];
}

function perChannel(name: string, v: unknown, min: number): number[] {
  if (typeof v === 'number') return [finite(name, v, min)];
  if (!Array.isArray(v) || v.length === 0) {
    throw new TypeError(`${name} must be a number or a non-empty array, got ${showValue(v)}`);
  }
  return arrayOf(name, v, (n, x) => finite(n, x, min));
}

/**
 * Throw a RangeError unless `mean` and `std` each hold one value or one per
 * channel of an input with `channels` channels (the CPU and the GPU path).
 */
export function checkNormalizeChannels(
  mean: readonly number[],
  std: readonly number[],
  channels: number,
): void {
  for (const [name, v] of [
    ['mean', mean],
    ['std', std],
  ] as const) {
    if (v.length !== 1 && v.length !== channels) {
      throw new RangeError(
        `normalize.${name} has ${v.length} values but the input has ${channels} channels`,
      );
    }
  }
}

/**
 * Normalise: `(x − mean[c]) / std[c]` for channel `c` (the last axis).
 * Deterministic (no probability, no draw); usually the last step.
 * @example normalize({ mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] })
 */
export function normalize(options?: NormalizeOptions): Transform<true> {
  const o = optionsOf('normalize', options);
  const mean = withDefault('normalize.mean', o.mean, [0], (n, v) => perChannel(n, v, -Infinity));
  const std = withDefault('normalize.std', o.std, [1], (n, v) =>
    perChannel(n, v, Number.MIN_VALUE),
  );
  return {
    kind: 'normalize',
    options: { mean, std },
    draw: () => true,
    shapeAfter: (shape) => shape,
    apply(input: FloatArray): FloatArray {
      const c = input.shape[input.shape.length - 1] ?? 1;
      checkNormalizeChannels(mean, std, c);
      const x = input.data;
      const mm = mean.length;
      const sm = std.length;
      for (let i = 0; i < x.length; i++) {
        const k = i % c;
        x[i] = (x[i]! - mean[mm === 1 ? 0 : k]!) / std[sm === 1 ? 0 : k]!;
      }
      return input;
    },
  };
}
