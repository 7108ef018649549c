import { abortReason, raceAbort } from '../util/abort.js';
import { bool, optionsBag, withDefault } from '../util/validate.js';
import type { Dataset } from './Dataset.js';
import type { Executor, RunOptions } from './Executor.js';

/**
 * The default {@link Executor}: runs `dataset.get` on the calling thread as
 * async work (I/O overlaps; CPU-heavy decoding does not — use the Web Worker
 * executor of `@medfusion/web` for that). The returned promise rejects as soon
 * as `signal` aborts, even if the dataset ignores the signal, so a stuck
 * loader never holds a prefetch slot.
 *
 * @example
 * const executor = new InThreadExecutor(fromLoader(100, (i) => fetchSample(i)));
 * await executor.run(3, new AbortController().signal);
 */
export class InThreadExecutor<T> implements Executor<T> {
  /** The dataset whose `get` runs the loads. */
  readonly dataset: Dataset<T>;
  private readonly settleOnAbort: boolean;

  /**
   * @param dataset Runs the loads.
   * @param options `settleOnAbort` (default true): reject as soon as the
   *   signal aborts. The caching engine passes false: it bounds and abandons
   *   loads itself, and a listener on every load's signal costs tens of µs.
   */
  constructor(dataset: Dataset<T>, options: { settleOnAbort?: boolean } = {}) {
    this.dataset = dataset;
    optionsBag('options', options);
    this.settleOnAbort = withDefault('settleOnAbort', options.settleOnAbort, true, bool);
  }

  /**
   * Load sample `index`; rejects with the abort reason when `signal` fires.
   * It queues nothing itself: `options.speculation` goes on to `dataset.get`
   * (as `GetOptions.speculation`), for the queues behind it. `input` is ignored.
   */
  run(index: number, signal: AbortSignal, _input?: unknown, options?: RunOptions): Promise<T> {
    if (this.settleOnAbort && signal.aborted) return Promise.reject(abortReason(signal));
    let result: Promise<T>;
    try {
      const speculation = options?.speculation;
      const opts = speculation === undefined ? { signal } : { signal, speculation };
      result = Promise.resolve(this.dataset.get(index, opts));
    } catch (error) {
      return Promise.reject(error);
    }
    return this.settleOnAbort ? raceAbort(result, signal) : result;
  }
}
