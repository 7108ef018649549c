import type { Augment } from '../augment/Augment.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import type { RankOptions } from '../plan/RankPlan.js';
import type { ErrorPolicy, SampleFailure } from '../reliability/errorPolicy.js';
import type { Quarantine } from '../reliability/Quarantine.js';
import type { Clock } from '../util/Clock.js';
import type { CollateFn, ToFloat32Options } from './collateOptions.js';

/**
 * Where a loader stands, as plain JSON of constant size: enough to rebuild the
 * exact remaining order of the epoch (the order is recomputed from `seed` and
 * `epoch`, never stored).
 */
export interface LoaderState {
  /** The shuffle seed. */
  seed: number;
  /** Epochs completed so far (the current epoch's number). */
  epoch: number;
  /** Batches of the current epoch already handed out (by this loader, since it started the epoch). */
  cursor: number;
  /**
   * Ranked loaders only (`rank` / `worldSize` given): how many positions of
   * the epoch's order, shared by all ranks, were read by all ranks together,
   * a prefix of it since ranks step together. A loader resumed from it reads
   * the rest of the epoch, whatever its `worldSize`: `cursor` is then ignored.
   */
  position?: number;
}

/** Options of {@link DataLoader}. */
export interface DataLoaderOptions<T, B> extends RankOptions {
  /**
   * Samples per batch.
   * @default 32
   */
  batchSize?: number;
  /**
   * Visit samples in a fresh seeded permutation each epoch:
   * `IndexPermutation(length, seed, epoch)` (a keyed Feistel network over
   * Philox4x32-10, computed position by position: O(1) memory at any size, the
   * same on every machine, stable across versions). Otherwise in index order.
   * @default false
   */
  shuffle?: boolean;
  /**
   * Gives each epoch's order instead of `shuffle`, the role of PyTorch's
   * `sampler`: called once per epoch with the epoch number and `seed`, it must
   * return `dataset.length` indices in [0, length) (an array, or an
   * `EpochPlan` such as a `ShardOrder`, which is never materialised) and the
   * same order for the same arguments (so `resumeFrom` and the plan handed to
   * the dataset stay exact). Cannot go with `shuffle: true`.
   * @default undefined (index order, or the seeded permutation with `shuffle`)
   * @example
   * // read remote shards a few at a time (see docs/remote-data.md)
   * sampler: (epoch, seed) => new ShardOrder({ shardSizes: source.shardSizes, seed, epoch })
   */
  sampler?: (epoch: number, seed: number) => PlanInput;
  /**
   * Shuffle seed, an integer in [0, 2^53).
   * @default 0 (or `resumeFrom.seed`)
   */
  seed?: number;
  /**
   * Drop the last batch of an epoch when it is shorter than `batchSize`.
   * @default false
   */
  dropLast?: boolean;
  /**
   * Turns a batch's samples into the batch value. The default
   * ({@link createCollate}) stacks objects of typed arrays and numbers into
   * one `{ data, shape }` per field.
   */
  collate?: CollateFn<T, B>;
  /** Default collate only: normalise these fields into Float32Array while copying. */
  toFloat32?: ToFloat32Options;
  /**
   * Default collate only: a batch's arrays are reused after this many further
   * batches (0 = fresh arrays for every batch).
   * @default 2
   */
  batchBuffers?: number;
  /**
   * Default collate only: numeric fields collated as Int32Array (e.g. `['2']`
   * for tuple samples `(image, tabular, label)`).
   * @default ['label', 'labels']
   */
  labelFields?: readonly string[];
  /**
   * How many batches beyond the current one have their `get`s in flight, so
   * an async dataset is read concurrently. 0 still reads one batch's samples
   * concurrently.
   * @default 2
   */
  prefetchBatches?: number;
  /**
   * Random augmentation after the cache and before `collate`: receives each
   * (cached) sample read-only and returns a new view of it, drawn from
   * `(seed, epoch, index)` only, so every epoch differs and a resumed run is
   * bitwise the same. A function runs in this thread; an object with
   * `apply(sample, ctx, signal)` (web's `createAugmentWorkerPool`) runs
   * elsewhere, concurrently with the reads ahead. A failure ends the epoch
   * with an `AugmentError`. See docs/augmentation.md.
   * @default undefined (no augmentation)
   * @example
   * augment: augmentFields({ image: compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })]) })
   */
  augment?: Augment<T>;
  /** Continue from a {@link DataLoader.state} snapshot: the rest of that epoch, then onward. */
  resumeFrom?: LoaderState;
  /** Aborts iteration: pending `get`s are aborted and the loop throws the reason. */
  signal?: AbortSignal;
  /**
   * What a failed sample load does: `'throw'` fails the epoch (LoadError
   * naming the index); `'skip'` drops the sample from its batch (the batch is
   * short; a batch with no sample left is not yielded); `'retry'` or
   * `{ retry: { retries, baseDelayMs, maxDelayMs } }` (the spelling of
   * `RetryOptions`) tries again with exponential backoff on `clock`, then
   * skips and quarantines. Every failure is in {@link DataLoader.failures}.
   * See docs/reliability.md.
   * @default 'throw'
   * @example { onError: { retry: { retries: 2, baseDelayMs: 100 } } }
   */
  onError?: ErrorPolicy;
  /** Told about each sample not delivered (index, cause, attempts), as it is left out. */
  onSampleError?: (failure: SampleFailure) => void;
  /**
   * Indices that failed every attempt (with `'skip'`: that failed once); they
   * are not loaded again, whatever the `onError` policy (each epoch still
   * reports them, with 0 attempts). Give one with a `store` to keep it across
   * visits; `false` turns it off.
   * @default an in-memory Quarantine for retrying policies, none otherwise
   */
  quarantine?: Quarantine | false;
  /**
   * Time source of the retry backoff.
   * @default systemClock
   */
  clock?: Clock;
}
