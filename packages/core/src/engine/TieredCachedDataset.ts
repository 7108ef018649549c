import type { Dataset, GetOptions, PlanAware } from '../dataset/Dataset.js';
import { ExecutorDataset } from '../dataset/ExecutorDataset.js';
import { loadPhasesOf } from '../dataset/LoadPhases.js';
import type { PersistentStore } from '../persistence/PersistentStore.js';
import {
  type DatasetFingerprint,
  type DiskTierStats,
  PersistentTierDataset,
  resolveFingerprint,
} from '../persistence/PersistentTierDataset.js';
import {
  resolveWriteQueueOptions,
  type WriteBehindQueueOptions,
} from '../persistence/writeBehindQueue.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import { bool, showValue } from '../util/validate.js';
import type { CachingDataset } from './CachingDataset.js';
import { CachingEngine } from './CachingEngine.js';
import type { CachingEngineOptions, EngineStats } from './engineOptions.js';

/** Options of {@link TieredCachedDataset}: the memory tier's, plus the disk tier's. */
export interface TieredCachedDatasetOptions<T> extends CachingEngineOptions<T> {
  /** Where samples persist: an OpfsStore, IdbStore, MemoryStore, … */
  store: PersistentStore;
  /**
   * Whether `close()` closes `store` too. A store you pass stays yours
   * (close it yourself, after the dataset); the library sets this for the
   * stores it opens itself (`cacheDir` in `@medfusion/web`).
   * @default false
   */
  ownsStore?: boolean;
  /**
   * Names the data set on disk (key prefix in the store); change its version
   * when the data changes.
   * @default derived from the source (its `fingerprint`, or `name` + `version`, else its length)
   * @example { name: 'chest-xray', version: 3 }
   */
  fingerprint?: string | DatasetFingerprint;
  /** Bounds of the disk tier's write-behind queue. */
  diskWriteQueue?: WriteBehindQueueOptions;
}

/**
 * Statistics of a {@link TieredCachedDataset}: the memory tier's
 * ({@link EngineStats}, where `hits` are memory hits), then where the misses
 * were served: from disk, or from the source.
 */
export interface TieredCacheStats extends EngineStats {
  /** Reads served from memory (the same as `hits`). */
  memoryHits: number;
  /** Loads served from the persistent store. */
  diskHits: number;
  /** Loads that went to the source (neither in memory nor on disk). */
  diskMisses: number;
  /** Every disk-tier counter, including whether writes stopped (quota). */
  disk: DiskTierStats;
}

/**
 * Three tiers in one dataset: a memory cache with prefetch
 * ({@link CachingEngine}) over a disk tier ({@link PersistentTierDataset})
 * over the source. Reads go memory → disk → source; samples loaded from the
 * source are written to the store behind the caller's back, so a later
 * epoch or a later visit reads them from disk. `createCachedDataset` builds
 * one when given `store` (or, in `@medfusion/web`, `cacheDir`).
 *
 * Ownership: `close()` closes what this object opened (the engine, the disk
 * tier's write queue) and the store only when `ownsStore` is true. A store
 * you pass stays open for you; an `executor` you pass is never closed.
 * With an executor, loads from the source run on it (through an
 * {@link ExecutorDataset}, so the plan and the load phases still reach the
 * dataset); the disk tier runs in-thread, at most `numWorkers` loads at once.
 *
 * @example
 * const store = new MemoryStore();
 * const ds = new TieredCachedDataset(source, { store, cacheSize: 1000, prefetchSize: 10 });
 * for (let i = 0; i < ds.length; i++) await ds.get(i);
 * await ds.flush(); // the disk writes have settled
 * const { memoryHits, diskHits, diskMisses } = ds.getCacheStats();
 * await ds.close(); // store stays open: it is yours
 */
export class TieredCachedDataset<T> implements CachingDataset<T>, PlanAware {
  /** Number of samples (the source's). */
  readonly length: number;
  /** Whether `close()` closes the store. */
  readonly ownsStore: boolean;
  private readonly store: PersistentStore;
  private readonly disk: PersistentTierDataset<T>;
  private readonly memory: CachingEngine<T>;
  /** What the disk tier loads from on a miss: the dataset, or an ExecutorDataset over it. */
  private readonly base: Dataset<T>;
  private closing: Promise<void> | undefined;

  constructor(dataset: Dataset<T>, options: TieredCachedDatasetOptions<T>) {
    if (dataset === null || typeof dataset !== 'object' || typeof dataset.get !== 'function') {
      throw new TypeError(`dataset must be a Dataset (length + get), got ${showValue(dataset)}`);
    }
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    const { store, ownsStore, fingerprint, diskWriteQueue, executor, ...engineOptions } = options;
    resolveWriteQueueOptions(diskWriteQueue, 'diskWriteQueue');
    this.ownsStore = ownsStore === undefined ? false : bool('ownsStore', ownsStore);
    // with an executor, source loads run on it; the plan and the load phases still reach the dataset
    const base = executor === undefined ? dataset : new ExecutorDataset(dataset, executor);
    this.disk = new PersistentTierDataset(base, {
      store,
      fingerprint: resolveFingerprint(fingerprint, dataset),
      ...(diskWriteQueue === undefined ? {} : { writeQueue: diskWriteQueue }),
      ...(engineOptions.clock === undefined ? {} : { clock: engineOptions.clock }),
    });
    this.store = store;
    this.base = base;
    this.memory = new CachingEngine(this.disk, engineOptions);
    this.length = this.memory.length;
  }

  /** Sample `index`: from memory, else from the store, else from the source (then written to disk). */
  get(index: number, opts?: GetOptions): T | Promise<T> {
    return this.memory.get(index, opts);
  }

  /** Hand over the coming reads: prefetch and eviction follow them; the tiers below hear them too. */
  setPlan(order: PlanInput): void {
    this.memory.setPlan(order);
  }

  /** The memory tier's stats, plus where its misses were served (disk or source). */
  getCacheStats(): TieredCacheStats {
    const memory = this.memory.getCacheStats();
    const disk = this.disk.getDiskStats();
    return {
      ...memory,
      loadPhases: loadPhasesOf(this.base),
      memoryHits: memory.hits,
      diskHits: disk.diskHits,
      diskMisses: disk.misses,
      disk,
    };
  }

  /** Empty the memory cache and the prefetch buffer; the disk keeps its samples. */
  clearCache(): void {
    this.memory.clearCache();
  }

  /** Wait until every queued disk write has settled. */
  flush(): Promise<void> {
    return this.disk.flush();
  }

  /**
   * Abort the loads in flight, finish the queued disk writes, and close the
   * store when this dataset owns it (`ownsStore`). Later gets throw
   * ClosedError. Calling it again returns the same promise.
   */
  close(): Promise<void> {
    this.closing ??= this.closeTiers();
    return this.closing;
  }

  private async closeTiers(): Promise<void> {
    try {
      await this.memory.close();
      await this.disk.close();
    } finally {
      if (this.ownsStore) await this.store.close?.();
    }
  }
}
