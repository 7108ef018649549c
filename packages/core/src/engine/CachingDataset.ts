import type { Dataset, PlanAware } from '../dataset/Dataset.js';
import type { EngineStats } from './engineOptions.js';

/** What `createCachedDataset` returns: a dataset with cache controls. */
export interface CachingDataset<T> extends Dataset<T>, PlanAware {
  /** Hit rate, size / capacity, prefetch counters, stall time, optimum, bytes, eviction policy. */
  getCacheStats(): EngineStats;
  /** Empty the memory cache and the prefetch buffer (counters are kept). */
  clearCache(): void;
  /** Abort loads in flight and free everything it opened; later gets throw ClosedError. */
  close(): Promise<void>;
}
