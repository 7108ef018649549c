import type { Dataset, GetOptions } from '../dataset/Dataset.js';
import type { WindowFailures } from '../engine/SampleWindow.js';
import { showValue } from '../util/validate.js';
import { type AsyncAugment, type Augment, type AugmentContext, AugmentError } from './Augment.js';
import { AugmentRng } from './AugmentRng.js';

/** Checks the DataLoader's `augment` option (a function or an object with `apply`). */
export function checkAugment<T>(augment: unknown): Augment<T> | undefined {
  if (augment === undefined) return undefined;
  if (typeof augment === 'function') return augment as Augment<T>;
  if (
    augment !== null &&
    typeof augment === 'object' &&
    typeof (augment as { apply?: unknown }).apply === 'function'
  ) {
    return augment as AsyncAugment<T>;
  }
  throw new TypeError(
    `augment must be a function (sample, ctx) => sample or an object with apply(sample, ctx, signal), got ${showValue(augment)}`,
  );
}

function isAbort(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown } | null;
  return e?.name === 'AbortError' || e?.code === 'ABORTED';
}

/** The context of one sample; the in-thread path reuses one, the async path makes one per call. */
class StageContext implements AugmentContext {
  index = 0;
  constructor(
    readonly seed: number,
    readonly epoch: number,
    readonly rng: AugmentRng,
  ) {}
}

/**
 * The augment stage of one epoch, as a dataset over the loader's (cached)
 * dataset: `get(i)` reads sample `i` and returns its augmented view, drawn
 * from `(seed, epoch, i)`. Sync reads stay sync for an in-thread function.
 * Failures become {@link AugmentError} (aborts pass through). Internal to
 * `DataLoader`.
 */
export function augmentedDataset<T>(
  dataset: Dataset<T>,
  augment: Augment<T>,
  seed: number,
  epoch: number,
): Dataset<T> {
  const run =
    typeof augment === 'function'
      ? inThread(augment, seed, epoch)
      : offThread(augment, seed, epoch);
  const get = (index: number, opts?: GetOptions): T | Promise<T> => {
    const sample = dataset.get(index, opts);
    if (sample !== null && typeof (sample as Promise<T>)?.then === 'function') {
      return (sample as Promise<T>).then((s) => run(s, index, opts?.signal));
    }
    return run(sample as T, index, opts?.signal);
  };
  return { length: dataset.length, get };
}

function inThread<T>(fn: (sample: T, ctx: AugmentContext) => T, seed: number, epoch: number) {
  const ctx = new StageContext(seed, epoch, new AugmentRng());
  return (sample: T, index: number): T => {
    ctx.index = index;
    ctx.rng.reset(seed, epoch, index);
    try {
      return fn(sample, ctx);
    } catch (error) {
      throw new AugmentError(index, error);
    }
  };
}

function offThread<T>(augment: AsyncAugment<T>, seed: number, epoch: number) {
  return async (sample: T, index: number, signal?: AbortSignal): Promise<T> => {
    const ctx = new StageContext(seed, epoch, new AugmentRng().reset(seed, epoch, index));
    ctx.index = index;
    try {
      return await augment.apply(sample, ctx, signal);
    } catch (error) {
      if (isAbort(error) || signal?.aborted) throw error;
      throw new AugmentError(index, error);
    }
  };
}

/** The loader's failure handling with augment failures never skipped (they end the epoch). */
export function augmentFailures(failures: WindowFailures): WindowFailures {
  return {
    skips: (error) => !(error instanceof AugmentError) && failures.skips(error),
    skipped: (index, error) => failures.skipped(index, error),
  };
}
