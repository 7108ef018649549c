import { type PlanInput, toEpochPlan } from '../plan/EpochPlan.js';
import { type MixOptions, MixOrder } from '../plan/MixOrder.js';
import { MixSourcePlan } from '../plan/MixSourcePlan.js';
import {
  arrayOf,
  index as checkIndex,
  nonNegativeInt,
  number,
  object,
  oneOfValues,
  showValue,
  withDefault,
} from '../util/validate.js';
import { type Dataset, type GetOptions, isPlanAware, type PlanAware } from './Dataset.js';

/** Options of {@link mixDatasets}. */
export type MixDatasetsOptions = MixOptions;

/**
 * Refuse what the mix's own checks would read as a default or skip: `null` for any
 * option, an empty slot or a non-number in `weights` (a hole would draw its source 0 times).
 * Ranges (negative, `NaN`, all zero, one weight per source) are the mix order's checks.
 */
function checkMixOptions(options: MixDatasetsOptions): void {
  object('options', options, 'an object with weights');
  arrayOf('weights', options.weights, number, 'an array of numbers');
  withDefault('seed', options.seed, 0, nonNegativeInt);
  withDefault('onExhausted', options.onExhausted, 'renormalize', (name, v) =>
    oneOfValues(name, v, ['stop', 'repeat', 'renormalize'] as const),
  );
  withDefault('length', options.length, 0, nonNegativeInt);
}

/**
 * Several data sets read as one, each index drawing from one source with the
 * given weights (tf.data's `sample_from_datasets`, Grain's mix): see
 * {@link mixDatasets}. Each source stays a `Dataset` of its own (its cache,
 * prefetch, disk tier), and is told its part of every plan.
 */
export class MixedDataset<T> implements Dataset<T>, PlanAware {
  /** Draws in the mix. */
  readonly length: number;
  /** The sources, in the order of the weights. */
  readonly sources: readonly Dataset<T>[];
  private readonly order: MixOrder;

  constructor(sources: readonly Dataset<T>[], options: MixDatasetsOptions) {
    if (!Array.isArray(sources) || sources.length === 0) {
      throw new TypeError(
        `sources must be a non-empty array of Datasets, got ${showValue(sources)}`,
      );
    }
    sources.forEach((s, j) => {
      if (s === null || typeof s !== 'object' || typeof s.get !== 'function') {
        throw new TypeError(`sources[${j}] must be a Dataset (length + get), got ${showValue(s)}`);
      }
      nonNegativeInt(`sources[${j}].length`, s.length);
    });
    checkMixOptions(options);
    this.sources = [...sources];
    this.order = new MixOrder(
      sources.map((s) => s.length),
      options,
    );
    this.length = this.order.length;
  }

  /**
   * Which source, and which of its indices, mix index `index` reads.
   *
   * @example
   * mix.sourceOf(0); // { source: 1, index: 4711 }
   */
  sourceOf(index: number): { source: number; index: number } {
    checkIndex(index, this.length);
    const source = this.order.locate(index);
    return { source, index: this.order.sourceIndex(source, this.order.draw) };
  }

  /** Load the sample mix index `index` draws (from its source, with `opts` passed on). */
  get(index: number, opts?: GetOptions): T | Promise<T> {
    const at = this.sourceOf(index);
    return this.sources[at.source]!.get(at.index, opts);
  }

  /**
   * Tell each plan-aware source the reads it will see when the mix is read in
   * `order`: one pass over the plan counts them; each source's plan is then
   * read lazily, as the source follows it.
   */
  setPlan(order: PlanInput): void {
    const plan = toEpochPlan(order, this.length);
    const aware = this.sources.map((s) => isPlanAware(s));
    if (!aware.includes(true)) return;
    const counts = new Float64Array(this.sources.length);
    for (let p = 0; p < plan.length; p++) {
      const i = plan.indexAt(p);
      checkIndex(i, this.length, `order[${p}]`);
      counts[this.order.locate(i)]!++;
    }
    this.sources.forEach((s, j) => {
      if (aware[j])
        (s as Dataset<T> & PlanAware).setPlan(new MixSourcePlan(plan, this.order, j, counts[j]!));
    });
  }
}

/**
 * Sample from several data sets with weights: a {@link MixedDataset} whose
 * index `i` reads one sample of one source, the source drawn with the
 * weights (in a seeded shuffle that keeps them in every run: among the first
 * `k` indices each source has `k × weight` draws within less than 2, for up to
 * 4 sources) and the source's samples taken in a
 * seeded order. Seeded and a pure function of the index: a DataLoader over
 * it (with `shuffle`, `rank`, `resumeFrom`) is resumable like any other.
 * Wrap each source in its own cache first (`createCachedDataset`): the mix
 * hands each source its share of the loader's plan, so its prefetch and
 * disk tier keep working. `onExhausted` says what a source that runs out does.
 *
 * @example
 * const mix = mixDatasets([hospitalA, hospitalB, publicSet], {
 *   weights: [0.5, 0.3, 0.2],
 *   seed: 7,
 *   onExhausted: 'repeat',
 *   length: 100_000,
 * });
 * const loader = new DataLoader(mix, { batchSize: 32, shuffle: true, seed: 7 });
 */
export function mixDatasets<T>(
  sources: readonly Dataset<T>[],
  options: MixDatasetsOptions,
): MixedDataset<T> {
  return new MixedDataset(sources, options);
}
