import type { ShapedArray } from '../util/typedArrays.js';
import { arrayOf, optionsBag, showValue } from '../util/validate.js';
import type { AugmentRandom } from './AugmentRng.js';

/** A float array with its shape: an image `[H, W, C]` (or `[H, W]`), or a feature vector `[n]`. */
export type FloatArray = ShapedArray<Float32Array>;

/**
 * One augmentation step on a float array, split in two so the same random
 * draws can drive the CPU path and the GPU path (web's `augmentBatchTf`):
 * `draw` takes every random number the step needs (`undefined` = the step is
 * skipped, e.g. by its probability `p`), `apply` is then deterministic.
 * Built by {@link flipH}, {@link compose}, etc.; `kind` and `options` name the
 * step and its resolved options.
 */
export interface Transform<D = unknown> {
  /** Which built-in step this is, e.g. `'flipH'`. */
  readonly kind: string;
  /** The step's options, defaults filled in. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Draw the step's random parameters for an input of `shape`; `undefined` skips it. */
  draw(rng: AugmentRandom, shape: readonly number[]): D | undefined;
  /** The output shape for an input of `shape` and these draws. */
  shapeAfter(shape: readonly number[], draw: D | undefined): readonly number[];
  /**
   * Apply the step with its draws. `input.data` is the stage's private working
   * copy: a step may overwrite it (and return it) or return a new array.
   */
  apply(input: FloatArray, draw: D): FloatArray;
}

/** Run `transform` on a working copy: draw, then apply unless skipped. */
export function runTransform(
  transform: Transform,
  input: FloatArray,
  rng: AugmentRandom,
): FloatArray {
  const d = transform.draw(rng, input.shape);
  return d === undefined ? input : transform.apply(input, d);
}

/** `p` must be a probability in [0, 1]. */
export function probability(name: string, p: unknown): number {
  if (typeof p !== 'number') throw new TypeError(`${name} must be a number, got ${showValue(p)}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${name} must be in [0, 1], got ${showValue(p)}`);
  return p;
}

/** `value` must be a finite number (within [min, max] when given). */
export function finite(name: string, value: unknown, min = -Infinity, max = Infinity): number {
  if (typeof value !== 'number') {
    throw new TypeError(`${name} must be a number, got ${showValue(value)}`);
  }
  if (!Number.isFinite(value) || value < min || value > max) {
    const bounds = `${Number.isFinite(min) ? `≥ ${min}` : ''}${Number.isFinite(min) && Number.isFinite(max) ? ' and ' : ''}${Number.isFinite(max) ? `≤ ${max}` : ''}`;
    throw new RangeError(
      `${name} must be a finite number${bounds ? ` ${bounds}` : ''}, got ${showValue(value)}`,
    );
  }
  return value;
}

/** `value` must be `[lo, hi]`, finite, `lo ≤ hi`, both within [min, max]. */
export function range(
  name: string,
  value: unknown,
  min = -Infinity,
  max = Infinity,
): readonly [number, number] {
  if (!Array.isArray(value) || value.length !== 2) {
    throw new TypeError(`${name} must be a [min, max] pair, got ${showValue(value)}`);
  }
  const [lo, hi] = arrayOf(name, value, (n, v) => finite(n, v, min, max)) as [number, number];
  if (lo > hi) throw new RangeError(`${name} must have min ≤ max, got [${lo}, ${hi}]`);
  return [lo, hi];
}

/** `options` must be an object or undefined. */
export function optionsOf<O extends object>(name: string, options: O | undefined): O {
  return optionsBag(`${name} options`, options);
}

/** `[H, W, C]` of an image shape `[H, W, C]` or `[H, W]` (one channel); RangeError otherwise. */
export function hwc(kind: string, shape: readonly number[]): [number, number, number] {
  if (shape.length === 3) return [shape[0]!, shape[1]!, shape[2]!];
  if (shape.length === 2) return [shape[0]!, shape[1]!, 1];
  throw new RangeError(`${kind} needs an image of shape [H, W, C] or [H, W], got [${shape}]`);
}

/** The shape `[h, w]` plus the channels of `like` (kept rank). */
export function imageShape(like: readonly number[], h: number, w: number): readonly number[] {
  return like.length === 2 ? [h, w] : [h, w, like[2]!];
}

/** A draw of "applied" (`true`) with probability `p`, else `undefined`. */
export function chance(rng: AugmentRandom, p: number): true | undefined {
  return rng.next() < p ? true : undefined;
}
