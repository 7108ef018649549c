import type { PlanInput } from '../plan/EpochPlan.js';
import { showValue } from '../util/validate.js';
import { type Dataset, type GetOptions, isPlanAware, type PlanAware } from './Dataset.js';
import type { Executor } from './Executor.js';
import { type LoadPhaseStats, loadPhasesOf, type ReportsLoadPhases } from './LoadPhases.js';

/** The signal of loads started without one: never aborts. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * A dataset whose loads run on an {@link Executor} (a Web Worker pool, an
 * {@link InThreadExecutor}, your own): `get(index, opts)` is
 * `executor.run(index, opts.signal, undefined, opts)`, so the signal and the
 * speculation of a prefetch reach the executor's queues. Everything else
 * stays the dataset's: its `length`, the plan (`setPlan` is passed on when
 * `dataset` is plan-aware, e.g. remote shards reading ahead) and its load
 * phases (the executor's report first, a pool sums its workers', else the
 * dataset's). Put it wherever a `Dataset` is wanted and the loads should run
 * elsewhere; `TieredCachedDataset` puts one under its disk tier when given
 * an `executor`. The executor stays yours: nothing here closes it.
 *
 * @example
 * const executor = new InThreadExecutor(source); // or createWorkerExecutor(...) in a browser
 * const onPool = new ExecutorDataset(source, executor);
 * const cached = new CachedDataset(onPool, { cacheSize: 1000 });
 */
export class ExecutorDataset<T> implements Dataset<T>, PlanAware, ReportsLoadPhases {
  /** Number of samples (the dataset's). */
  readonly length: number;
  /** The dataset the executor loads for: its length, plan and load phases. */
  readonly dataset: Dataset<T>;
  /** Where the loads run. */
  readonly executor: Executor<T>;

  constructor(dataset: Dataset<T>, executor: Executor<T>) {
    if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
      throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
    }
    if (executor === null || typeof executor !== 'object' || typeof executor.run !== 'function') {
      throw new TypeError(
        `executor must have a run(index, signal) method, got ${showValue(executor)}`,
      );
    }
    this.dataset = dataset;
    this.executor = executor;
    this.length = dataset.length;
  }

  /** Run the load of sample `index` on the executor, with the caller's signal and speculation. */
  get(index: number, opts?: GetOptions): Promise<T> {
    return this.executor.run(index, opts?.signal ?? NEVER_ABORTED, undefined, opts);
  }

  /** Pass the coming reads on to the dataset when it is plan-aware. */
  setPlan(order: PlanInput): void {
    if (isPlanAware(this.dataset)) this.dataset.setPlan(order);
  }

  /** The executor's load phases when it reports them, else the dataset's. */
  loadPhases(): LoadPhaseStats | undefined {
    return loadPhasesOf(this.executor, this.dataset);
  }
}
