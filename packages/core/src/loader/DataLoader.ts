import type { Augment } from '../augment/Augment.js';
import { augmentedDataset, augmentFailures, checkAugment } from '../augment/AugmentStage.js';
import { type Dataset, isPlanAware } from '../dataset/Dataset.js';
import { SampleWindow } from '../engine/SampleWindow.js';
import { MedFusionError } from '../errors.js';
import {
  type EpochPlan,
  type PlanInput,
  SequentialPlan,
  slicePlan,
  toEpochPlan,
} from '../plan/EpochPlan.js';
import { IndexPermutation } from '../plan/IndexPermutation.js';
import { checkRanks, type EvenRanks, RankPlan, type Ranks, rankLength } from '../plan/RankPlan.js';
import type { SampleFailure } from '../reliability/errorPolicy.js';
import { FailureTracker } from '../reliability/FailureTracker.js';
import type { Quarantine } from '../reliability/Quarantine.js';
import { throwIfAborted } from '../util/abort.js';
import {
  abortSignal,
  bool,
  func,
  nonNegativeInt,
  positiveInt,
  showValue,
  withDefault,
} from '../util/validate.js';
import { createCollate, renamedPoolSize } from './collate.js';
import type { Batch, CollateFn, CollateOptions, Sample } from './collateOptions.js';
import type { DataLoaderOptions, LoaderState } from './dataLoaderOptions.js';

export type { DataLoaderOptions, LoaderState } from './dataLoaderOptions.js';

interface NodeEvents {
  setMaxListeners(n: number, ...targets: unknown[]): void;
}

/**
 * Every in-flight `get` may listen to the iteration's signal (one listener per
 * load, by design); Node warns past 10 listeners on an EventTarget. Lift the
 * limit on this one signal where `node:events` is reachable without importing
 * it (core stays platform-neutral); elsewhere this does nothing.
 */
function allowManyListeners(signal: AbortSignal): void {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const events = proc?.getBuiltinModule?.('node:events') as NodeEvents | undefined;
  events?.setMaxListeners(0, signal);
}

/**
 * Batches a {@link Dataset} for training, the TypeScript twin of PyTorch's
 * `DataLoader`. `for await (const batch of loader)` yields one epoch;
 * `loader.epoch` counts completed passes. Before each epoch the dataset is
 * told the order it will be read in (`setPlan`, when it has one), and `get`s
 * for the next `prefetchBatches` batches run concurrently while batches are
 * yielded in order. `state()` / `resumeFrom` make a run resumable.
 *
 * A new `for await` after a `break` continues the same epoch where the last
 * one stopped (what `state()` reports), like resuming from a snapshot.
 *
 * @example
 * const loader = new DataLoader(dataset, { batchSize: 32, shuffle: true, seed: 7 });
 * for (let e = 0; e < 3; e++) {
 *   for await (const batch of loader) train(batch.image, batch.label);
 * }
 * localStorage.state = JSON.stringify(loader.state());
 */
export class DataLoader<T = Sample, B = Batch> implements AsyncIterable<B> {
  /** Samples per batch. */
  readonly batchSize: number;
  /** Whether each epoch is a seeded permutation. */
  readonly shuffle: boolean;
  /** Shuffle seed. */
  readonly seed: number;
  /** Whether the short last batch is dropped. */
  readonly dropLast: boolean;
  /** The custom epoch order, when one was given. */
  readonly sampler: ((epoch: number, seed: number) => PlanInput) | undefined;
  /** Batches whose `get`s run ahead of the current one. */
  readonly prefetchBatches: number;
  /** This reader's number among `worldSize` (see `RankOptions`). */
  readonly rank: number;
  /** Readers sharing each epoch. */
  readonly worldSize: number;
  /** How ranks are made equal in length: `'pad'` or `'drop'`. */
  readonly evenRanks: EvenRanks;
  private readonly ranks: Ranks;
  /** Whether `state()` reports `position` (rank options given, or resumed from a ranked state). */
  private readonly ranked: boolean;
  /** Global positions of the current epoch read before this loader's part of it began. */
  private startPos = 0;
  private readonly dataset: Dataset<T>;
  private readonly size: number;
  // stored with an `unknown` sample type so DataLoader stays covariant in T
  // (a DataLoader<MySample> is usable where a DataLoader<Sample> is expected)
  private readonly collate: CollateFn<unknown, B>;
  private readonly signal: AbortSignal | undefined;
  private readonly augment: Augment<T> | undefined;
  private epochNo = 0;
  private cursor = 0;
  private active = false;
  private readonly samples: T[] = [];
  private readonly tracker: FailureTracker;

  constructor(dataset: Dataset<T>, options: DataLoaderOptions<T, B> = {}) {
    if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
      throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
    }
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    this.dataset = dataset;
    this.size = nonNegativeInt('dataset.length', dataset.length);
    this.batchSize = withDefault('batchSize', options.batchSize, 32, positiveInt);
    this.shuffle = withDefault('shuffle', options.shuffle, false, bool);
    if (options.sampler !== undefined) {
      func('sampler', options.sampler);
      if (this.shuffle) {
        throw new TypeError('sampler gives the order itself and cannot go with shuffle: true');
      }
    }
    this.sampler = options.sampler;
    this.dropLast = withDefault('dropLast', options.dropLast, false, bool);
    this.prefetchBatches = withDefault(
      'prefetchBatches',
      options.prefetchBatches,
      2,
      nonNegativeInt,
    );
    this.ranks = checkRanks(options);
    this.rank = this.ranks.rank;
    this.worldSize = this.ranks.worldSize;
    this.evenRanks = this.ranks.evenRanks;
    const resume = options.resumeFrom;
    // a resumed run keeps the state's seed unless `seed` is given (then they must agree)
    const resumedSeed =
      resume !== null && typeof resume === 'object'
        ? withDefault('resumeFrom.seed', resume.seed, 0, nonNegativeInt)
        : 0;
    const seed = withDefault('seed', options.seed, resumedSeed, nonNegativeInt);
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be below 2^53, got ${seed}`);
    this.seed = seed;
    if ('poolSize' in options) throw renamedPoolSize((options as { poolSize?: unknown }).poolSize);
    if (options.collate !== undefined) {
      func('collate', options.collate);
      for (const name of ['toFloat32', 'batchBuffers', 'labelFields'] as const) {
        if (options[name] !== undefined) {
          throw new TypeError(
            `${name} configures the default collate and cannot go with a custom collate, got ${showValue(options[name])}`,
          );
        }
      }
      this.collate = options.collate as CollateFn<unknown, B>;
    } else {
      const opts: CollateOptions = {};
      if (options.toFloat32 !== undefined) opts.toFloat32 = options.toFloat32;
      if (options.batchBuffers !== undefined) opts.batchBuffers = options.batchBuffers;
      if (options.labelFields !== undefined) opts.labelFields = options.labelFields;
      this.collate = createCollate(opts) as CollateFn<unknown, B>;
    }
    this.signal = withDefault('signal', options.signal, undefined, abortSignal);
    this.augment = checkAugment<T>(options.augment);
    this.tracker = new FailureTracker(options);
    this.ranked =
      options.rank !== undefined ||
      options.worldSize !== undefined ||
      options.evenRanks !== undefined ||
      (resume !== null && typeof resume === 'object' && resume.position !== undefined);
    if (resume !== undefined) this.restore(resume);
  }

  private restore(state: LoaderState): void {
    if (state === null || typeof state !== 'object') {
      throw new TypeError(
        `resumeFrom must be a state from loader.state(), got ${showValue(state)}`,
      );
    }
    nonNegativeInt('resumeFrom.seed', state.seed);
    nonNegativeInt('resumeFrom.epoch', state.epoch);
    nonNegativeInt('resumeFrom.cursor', state.cursor);
    if (state.seed !== this.seed) {
      throw new RangeError(`resumeFrom.seed ${state.seed} differs from seed ${this.seed}`);
    }
    if (!Number.isSafeInteger(state.epoch)) {
      throw new RangeError(`resumeFrom.epoch must be below 2^53, got ${state.epoch}`);
    }
    this.epochNo = state.epoch;
    if (state.position !== undefined) {
      // a ranked state: the epoch's global positions read so far, by any number of ranks
      nonNegativeInt('resumeFrom.position', state.position);
      if (state.position > this.size) {
        throw new RangeError(
          `resumeFrom.position ${state.position} is past the ${this.size} samples of an epoch`,
        );
      }
      if (state.position > 0 && state.position >= this.size) this.epochNo++;
      else this.startPos = state.position;
      return;
    }
    if (state.cursor > this.length) {
      throw new RangeError(
        `resumeFrom.cursor ${state.cursor} is past the ${this.length} batches of an epoch`,
      );
    }
    this.cursor = state.cursor;
    // a state taken after an epoch's last batch means the next epoch (an
    // empty epoch, length 0, is still ahead)
    if (this.cursor > 0) this.rollOver();
  }

  /** Epochs completed so far; the number of the epoch being (or about to be) read. */
  get epoch(): number {
    return this.epochNo;
  }

  /** Batches per epoch (of this rank, with `worldSize`). */
  get length(): number {
    return this.batchesOf(rankLength(this.size, this.ranks));
  }

  private batchesOf(samples: number): number {
    return this.dropLast
      ? Math.floor(samples / this.batchSize)
      : Math.ceil(samples / this.batchSize);
  }

  /** Samples of the current epoch this rank reads from `startPos` on. */
  private get partLength(): number {
    return rankLength(this.size - this.startPos, this.ranks);
  }

  /** Samples of the current (or last) epoch that were not delivered, in plan order. */
  get failures(): readonly SampleFailure[] {
    return this.tracker.failures;
  }

  /** The quarantine in use (indices that failed every retry), if any. */
  get quarantine(): Quarantine | undefined {
    return this.tracker.quarantine;
  }

  /** A snapshot to pass as `resumeFrom` later: plain JSON, constant size. */
  state(): LoaderState {
    const state: LoaderState = { seed: this.seed, epoch: this.epochNo, cursor: this.cursor };
    if (this.ranked) {
      // every rank has read `cursor` batches (ranks step together), so the
      // global positions read are a prefix of the epoch's order
      const done = this.cursor >= this.batchesOf(this.partLength);
      state.position = done
        ? this.size
        : this.startPos + this.cursor * this.batchSize * this.worldSize;
    }
    return state;
  }

  /**
   * The order of epoch `epoch` as a fresh array (the loader itself never
   * builds it: see {@link DataLoader.planOf}). For inspection and small data sets.
   */
  orderOf(epoch: number): Uint32Array {
    const plan = this.planOf(epoch);
    if (plan.length > 0xffffffff) {
      throw new RangeError(`orderOf holds at most 2^32-1 indices, got ${plan.length}: use planOf`);
    }
    const order = new Uint32Array(plan.length);
    for (let p = 0; p < order.length; p++) order[p] = plan.indexAt(p);
    return order;
  }

  /**
   * The order of epoch `epoch` as a function of the position: O(1) memory
   * for the shuffled and sequential orders, whatever the dataset's length.
   * With `worldSize`, the order all ranks share; rank `r` reads its positions
   * `r, r + worldSize, …`.
   *
   * @example
   * loader.planOf(3).indexAt(0); // the first sample of epoch 3
   */
  planOf(epoch: number): EpochPlan {
    if (this.sampler) return this.sampledPlan(epoch);
    if (this.shuffle) return new IndexPermutation(this.size, this.seed, epoch);
    return new SequentialPlan(this.size);
  }

  private sampledPlan(epoch: number): EpochPlan {
    const out = this.sampler!(epoch, this.seed);
    const plan = toEpochPlan(out, this.size, `sampler(${epoch})`);
    if (plan.length !== this.size) {
      throw new RangeError(
        `sampler(${epoch}) returned ${plan.length} indices; the dataset has ${this.size}`,
      );
    }
    return plan;
  }

  private rollOver(): void {
    if (this.cursor >= this.batchesOf(this.partLength)) {
      this.epochNo++;
      this.cursor = 0;
      this.startPos = 0;
    }
  }

  /** Iterate the rest of the current epoch. Only one iteration may run at a time. */
  [Symbol.asyncIterator](): AsyncIterator<B> {
    if (this.active) {
      throw new MedFusionError(
        'LOADER_BUSY',
        'DataLoader is already being iterated; finish or break the other loop first',
      );
    }
    return this.iterate();
  }

  private async *iterate(): AsyncGenerator<B, void, undefined> {
    this.active = true;
    const ctrl = new AbortController();
    allowManyListeners(ctrl.signal);
    const outer = this.signal;
    const onOuterAbort = () => ctrl.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      throwIfAborted(outer);
      await this.tracker.begin(this.cursor === 0);
      yield* this.run(ctrl);
    } catch (error) {
      this.tracker.fatal(error);
      throw error;
    } finally {
      outer?.removeEventListener('abort', onOuterAbort);
      ctrl.abort();
      this.samples.length = 0;
      this.active = false;
      this.rollOver();
    }
  }

  private async *run(ctrl: AbortController): AsyncGenerator<B, void, undefined> {
    const part = this.partLength;
    const batches = this.batchesOf(part);
    const bs = this.batchSize;
    const epoch = this.epochNo;
    const global = this.planOf(epoch);
    const plan =
      this.worldSize === 1 && this.startPos === 0
        ? global
        : new RankPlan(global, this.ranks, this.startPos);
    const end = this.dropLast ? batches * bs : part;
    const start = this.cursor * bs;
    const dataset = this.dataset;
    if (isPlanAware(dataset)) dataset.setPlan(this.tracker.plan(slicePlan(plan, start, end)));
    const ahead = (this.prefetchBatches + 1) * bs;
    const read = this.tracker.wrap(dataset);
    const aug = this.augment;
    const source = aug === undefined ? read : augmentedDataset(read, aug, this.seed, epoch);
    const failures = aug === undefined ? this.tracker : augmentFailures(this.tracker);
    const win = new SampleWindow(source, plan, start, end, ahead, ctrl.signal, failures);
    const samples = this.samples;
    const context: { indices: Uint32Array } = { indices: new Uint32Array(0) };
    while (this.cursor < batches) {
      const from = this.cursor * bs;
      const to = Math.min(from + bs, end);
      win.fill(from, from + ahead);
      const wait = win.ready(from, to);
      if (wait !== undefined) await wait;
      throwIfAborted(ctrl.signal);
      const failed = this.tracker.failures.length;
      const indices = new Uint32Array(to - from);
      for (let p = from; p < to; p++) indices[p - from] = win.indexAt(p);
      win.take(from, to, samples);
      win.fill(to, to + ahead);
      if (samples.length === 0) {
        this.cursor++; // every sample of this batch was skipped
        continue;
      }
      context.indices = this.tracker.kept(indices, failed);
      const batch = this.collate(samples, context);
      samples.length = 0;
      this.cursor++;
      yield batch;
    }
  }
}
