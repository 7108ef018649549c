import { type AugmentContext, type AugmentFn, AugmentRng } from '@medfusion/core';
import { func } from '@medfusion/core/internal';
import { type ExposeLoaderOptions, exposeWorkerApi } from './exposeLoader.js';

/** What a {@link createAugmentWorkerPool} call sends to its worker with the sample index. */
export interface AugmentCall<T> {
  /** A copy of the cached sample (its typed arrays copied on the page and moved here). */
  sample: T;
  /** The loader's seed. */
  seed: number;
  /** The epoch being read. */
  epoch: number;
}

class WorkerContext implements AugmentContext {
  seed = 0;
  epoch = 0;
  index = 0;
  readonly rng = new AugmentRng();
  /** The sample arrived as the pool's copy: the worker's own, written in place. */
  readonly writable = true;
}

/**
 * Serve an in-thread augmentation (e.g. `augmentFields(...)`) to a
 * {@link createAugmentWorkerPool} pool. Call it once, at the top level of a
 * module worker. Each call restarts the sample's stream from the seed, epoch
 * and index it carries, so the worker gives bitwise the views the same
 * function gives in the page. The sample is the worker's own copy, so the
 * context says `writable: true` (`augmentFields` then works in place instead of
 * copying it once more); the result's buffers are transferred back.
 *
 * @example
 * // augment.worker.ts
 * import { augmentFields, compose, flipH, gaussianNoise, intensity, rotate90 } from '@medfusion/core';
 * import { exposeAugment } from '@medfusion/web';
 * exposeAugment(augmentFields({ image: compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]) }));
 */
export function exposeAugment<T>(augment: AugmentFn<T>, options: ExposeLoaderOptions = {}): void {
  func('augment', augment, 'a function (sample, ctx) => sample');
  const ctx = new WorkerContext();
  exposeWorkerApi((index, _signal, input) => {
    const call = input as AugmentCall<T> | undefined;
    if (call === null || typeof call !== 'object' || !('sample' in call)) {
      throw new TypeError(
        'exposeAugment serves createAugmentWorkerPool; this call carried no sample',
      );
    }
    ctx.seed = call.seed;
    ctx.epoch = call.epoch;
    ctx.index = index;
    ctx.rng.reset(call.seed, call.epoch, index);
    return augment(call.sample, ctx);
  }, options);
}
