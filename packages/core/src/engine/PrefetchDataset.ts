import type { Dataset } from '../dataset/Dataset.js';
import { rejectUnknownOptions, showValue } from '../util/validate.js';
import { CachingEngine } from './CachingEngine.js';
import type { CachingEngineOptions } from './engineOptions.js';
import { ENGINE_OPTIONS } from './engineOptions.js';

/** Options of {@link PrefetchDataset}. */
export type PrefetchDatasetOptions<T> = Pick<
  CachingEngineOptions<T>,
  'prefetchSize' | 'numWorkers' | 'executor' | 'loadTimeoutMs' | 'clock' | 'maxBytes' | 'sizeOf'
>;

/**
 * Loads upcoming samples in the background to hide I/O latency (the
 * reference's `PrefetchDataset(dataset, prefetch_size=10, num_workers=2)`).
 * Keeps up to `prefetchSize` upcoming samples loading or loaded, with at most
 * `numWorkers` loads at once; a `get` of a prefetched sample starts no new
 * load. "Upcoming" is the plan when one is given (`setPlan`, which the
 * DataLoader calls each epoch), otherwise it is inferred from the reads
 * (sequential or strided). Holds no cache: a sample is dropped once read.
 * Every wait is bounded by `loadTimeoutMs`; `close()` aborts loads in flight.
 *
 * @example
 * const ds = new PrefetchDataset(source, { prefetchSize: 10, numWorkers: 2 });
 * ds.setPlan(order); // optional: without it, sequential/strided reads are detected
 * for (const i of order) await ds.get(i);
 * console.log(ds.getCacheStats().prefetch); // { issued, used, wasted, inFlight, buffered }
 * await ds.close();
 */
export class PrefetchDataset<T> extends CachingEngine<T> {
  /** Names the dataset in ClosedError messages. */
  protected override readonly label: string = 'PrefetchDataset';

  constructor(dataset: Dataset<T>, options: PrefetchDatasetOptions<T> = {}) {
    super(dataset, withoutCache(options));
  }
}

function withoutCache<T>(options: PrefetchDatasetOptions<T>): CachingEngineOptions<T> {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object, got ${showValue(options)}`);
  }
  // Engine-wide names pass (the factory hands them all over); cacheSize is forced to 0.
  rejectUnknownOptions(options, ENGINE_OPTIONS, 'PrefetchDataset');
  return { ...options, cacheSize: 0 };
}
