import { describe, MedFusionError } from '../errors.js';
import type { AugmentRandom } from './AugmentRng.js';

/**
 * What an augmentation learns about the sample it transforms. Its randomness
 * must come from `rng` (or be a pure function of `seed`, `epoch`, `index`), so
 * a resumed run sees bitwise the same views.
 */
export interface AugmentContext {
  /** The loader's seed. */
  readonly seed: number;
  /** The epoch being read. */
  readonly epoch: number;
  /** The dataset index of the sample. */
  readonly index: number;
  /**
   * Draws of the sample's own stream (Philox4x32-10 keyed by `seed`, counter
   * `(draw, index, epoch)`), restarted for every sample.
   */
  readonly rng: AugmentRandom;
  /**
   * True when `sample` is the function's own copy, which it may overwrite
   * instead of copying first (the copy a worker of web's
   * `createAugmentWorkerPool` received); false or absent for the cached sample, which must stay
   * intact. `augmentFields` reads it.
   * @default false
   */
  readonly writable?: boolean;
}

/**
 * An augmentation run in the loader's thread: receives the cached sample,
 * which it must treat as read-only, and returns a new one. The context (and its
 * `rng`) is only valid during the call.
 *
 * @example
 * const augment: AugmentFn<Sample> = augmentFields({ image: compose([flipH(), gaussianNoise({ std: 0.05 })]) });
 */
export type AugmentFn<T> = (sample: T, ctx: AugmentContext) => T;

/**
 * An augmentation that runs elsewhere (e.g. a pool of Web Workers, see web's
 * `createAugmentWorkerPool`). `apply` must not change `sample` (the cached
 * value): it works on a copy and resolves with the new sample. Read
 * `ctx.seed`, `ctx.epoch` and `ctx.index` before the first `await`.
 */
export interface AsyncAugment<T> {
  /** Augment one sample; rejects with the signal's reason when it aborts. */
  apply(sample: T, ctx: AugmentContext, signal?: AbortSignal): Promise<T>;
}

/** The DataLoader's `augment` option: an in-thread function or an {@link AsyncAugment}. */
export type Augment<T> = AugmentFn<T> | AsyncAugment<T>;

/**
 * An augmentation threw (or rejected) for one sample. It ends the epoch
 * whatever the `onError` policy: augmentations are pure, so a retry or a skip
 * would only hide a bug. `cause` holds the original error.
 */
export class AugmentError extends MedFusionError {
  constructor(index: number, cause: unknown) {
    super('AUGMENT_FAILED', `Augmenting sample ${index} failed: ${describe(cause)}`, {
      index,
      cause,
    });
    this.name = 'AugmentError';
  }
}
