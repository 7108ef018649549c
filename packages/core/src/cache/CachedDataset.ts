import type { Dataset, GetOptions, PlanAware } from '../dataset/Dataset.js';
import { isPlanAware } from '../dataset/Dataset.js';
import type { PlanInput } from '../plan/EpochPlan.js';
import { abortReason } from '../util/abort.js';
import {
  bool,
  index as checkIndex,
  positiveFinite,
  positiveInt,
  rejectUnknownOptions,
  showValue,
} from '../util/validate.js';
import { LRUCache } from './LRUCache.js';
import { defaultSizeOf } from './sizeOf.js';

/** Options of {@link CachedDataset} (the `cache_*` arguments of MedFusion's `CachedDataset`). */
export interface CachedDatasetOptions {
  /**
   * Maximum number of samples kept in memory; a positive integer.
   * @default 1000
   */
  cacheSize?: number;
  /**
   * Maximum bytes kept in memory, measured with {@link defaultSizeOf} (the
   * byteLength of the typed arrays / ArrayBuffers in a sample); a finite
   * positive number. A sample larger than this is served but not kept.
   * @default undefined (only `cacheSize` limits the cache)
   */
  maxBytes?: number;
  /**
   * Keep samples whose `image` part is present. With `false`, a sample shaped
   * `{ image, tabular, label }` that has an image is never held in memory:
   * each access loads it again and counts a miss (memory traded for loads).
   * @default true
   */
  cacheImages?: boolean;
  /**
   * Keep samples whose `tabular` part is present; like `cacheImages` for the
   * `tabular` part.
   * @default true
   */
  cacheTabular?: boolean;
}

/** Statistics of a {@link CachedDataset}; `clearCache()` resets none of the counters. */
export interface CacheStats {
  /** Accesses served from memory. */
  hits: number;
  /** Accesses not served from memory (they started a load or joined one in flight). */
  misses: number;
  /** `hits / (hits + misses)`; 0 before any access. */
  hitRate: number;
  /** Samples held in memory now. */
  size: number;
  /** The `cacheSize` option. */
  capacity: number;
  /** Samples pushed out of memory by `cacheSize` or `maxBytes`. */
  evictions: number;
  /** Bytes held in memory now (see {@link defaultSizeOf}). */
  bytes: number;
  /** The `maxBytes` option, `undefined` when unset. */
  maxBytes: number | undefined;
  /** Loads started on the wrapped dataset (misses minus those that joined a load in flight). */
  loads: number;
  /** Loads in flight now. */
  inFlight: number;
  /** Loaded samples not kept because they were larger than `maxBytes`. */
  rejected: number;
}

/** The reference's `cache_size=1000`: the one default of every `cacheSize` option. */
export const DEFAULT_CACHE_SIZE = 1000;

const KNOWN_OPTIONS: readonly string[] = ['cacheSize', 'maxBytes', 'cacheImages', 'cacheTabular'];

/** One load of one index, shared by every caller waiting for it (single-flight). */
class Flight<T> {
  /** Callers that may still want the result; the load is aborted when it drops to 0. */
  waiters = 0;
  constructor(
    readonly promise: Promise<T>,
    /** Present when the load can be aborted (its first caller passed a signal). */
    readonly controller: AbortController | undefined,
  ) {}
}

/** True when the sample carries a part that the options keep out of memory. */
function excluded(sample: unknown, keepImages: boolean, keepTabular: boolean): boolean {
  if (sample === null || typeof sample !== 'object') return false;
  const parts = sample as { image?: unknown; tabular?: unknown };
  if (!keepImages && parts.image !== undefined && parts.image !== null) return true;
  if (!keepTabular && parts.tabular !== undefined && parts.tabular !== null) return true;
  return false;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * A {@link Dataset} that keeps recently used samples in memory (least
 * recently used evicted first): MedFusion's `CachedDataset`.
 *
 * - Hits are returned synchronously; misses return the wrapped dataset's result.
 * - Concurrent `get(i)` calls for one index share one load (single-flight). A
 *   failed load is not cached and its error reaches every waiting caller.
 * - `get(i, { signal })`: aborting rejects that caller at once with the
 *   signal's reason; the shared load itself is aborted (through the signal
 *   handed to the wrapped dataset) only when every caller waiting for it has
 *   aborted. A load started without a signal is never aborted.
 * - `setPlan(order)` is forwarded when the wrapped dataset is {@link PlanAware}.
 *
 * @example
 * // Python: CachedDataset(dataset, cache_size=1000); dataset.get_cache_stats()
 * const cached = new CachedDataset(dataset, { cacheSize: 1000 });
 * const sample = await cached.get(42);
 * const { hitRate, size, capacity } = cached.getCacheStats();
 */
export class CachedDataset<T> implements Dataset<T>, PlanAware {
  /** Number of samples (that of the wrapped dataset). */
  readonly length: number;
  private readonly inner: Dataset<T>;
  private readonly cache: LRUCache<number, T>;
  private readonly flights = new Map<number, Flight<T>>();
  private readonly keepImages: boolean;
  private readonly keepTabular: boolean;
  private loads = 0;

  constructor(dataset: Dataset<T>, options: CachedDatasetOptions = {}) {
    if (
      dataset === null ||
      typeof dataset !== 'object' ||
      typeof dataset.get !== 'function' ||
      typeof dataset.length !== 'number'
    ) {
      throw new TypeError(
        `dataset must be a Dataset (an object with length and get), got ${showValue(dataset)}`,
      );
    }
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'CachedDataset');
    const {
      cacheSize = DEFAULT_CACHE_SIZE,
      maxBytes,
      cacheImages = true,
      cacheTabular = true,
    } = options;
    positiveInt('cacheSize', cacheSize);
    if (maxBytes !== undefined) positiveFinite('maxBytes', maxBytes);
    this.keepImages = bool('cacheImages', cacheImages);
    this.keepTabular = bool('cacheTabular', cacheTabular);
    this.inner = dataset;
    this.length = dataset.length;
    this.cache = new LRUCache<number, T>({
      capacity: cacheSize,
      ...(maxBytes === undefined ? {} : { maxBytes }),
      sizeOf: defaultSizeOf,
    });
  }

  /**
   * Sample `index`: from memory when held (synchronously), else loaded from
   * the wrapped dataset (sharing a load already in flight). Throws RangeError
   * for an index that is not an integer in [0, length).
   */
  get(index: number, opts?: GetOptions): T | Promise<T> {
    checkIndex(index, this.length);
    const cache = this.cache;
    const value = cache.get(index);
    if (value !== undefined || cache.has(index)) return value as T;
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let flight = this.flights.get(index);
    if (flight === undefined) {
      const started = this.load(index, signal);
      if (!(started instanceof Flight)) return started;
      flight = started;
    }
    flight.waiters++;
    return signal === undefined ? flight.promise : this.waitFor(flight, index, signal);
  }

  /** Forward the epoch's access order to the wrapped dataset when it is {@link PlanAware}. */
  setPlan(order: PlanInput): void {
    if (isPlanAware(this.inner)) this.inner.setPlan(order);
  }

  /** A snapshot of the cache statistics. */
  getCacheStats(): CacheStats {
    const s = this.cache.stats();
    const accesses = s.hits + s.misses;
    return {
      hits: s.hits,
      misses: s.misses,
      hitRate: accesses === 0 ? 0 : s.hits / accesses,
      size: s.size,
      capacity: s.capacity,
      evictions: s.evictions,
      bytes: s.bytes,
      maxBytes: s.maxBytes,
      loads: this.loads,
      inFlight: this.flights.size,
      rejected: s.rejected,
    };
  }

  /** Drop every sample held in memory. Counters and loads in flight are left alone. */
  clearCache(): void {
    this.cache.clear();
  }

  /**
   * Start loading `index`: the sample itself when the wrapped dataset answered
   * synchronously (kept already), else the registered flight.
   */
  private load(index: number, signal: AbortSignal | undefined): T | Flight<T> {
    this.loads++;
    const controller = signal === undefined ? undefined : new AbortController();
    const result = this.inner.get(
      index,
      controller === undefined ? undefined : { signal: controller.signal },
    );
    if (!isPromiseLike(result)) {
      this.keep(index, result);
      return result;
    }
    const promise = Promise.resolve(result).then(
      (sample) => {
        if (this.flights.get(index) === flight) this.flights.delete(index);
        this.keep(index, sample);
        return sample;
      },
      (error: unknown) => {
        if (this.flights.get(index) === flight) this.flights.delete(index);
        throw error;
      },
    );
    const flight = new Flight(promise, controller);
    this.flights.set(index, flight);
    return flight;
  }

  private keep(index: number, sample: T): void {
    if (!excluded(sample, this.keepImages, this.keepTabular)) this.cache.set(index, sample);
  }

  /** The flight's result for one caller that may abort on its own. */
  private waitFor(flight: Flight<T>, index: number, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(abortReason(signal));
        flight.waiters--;
        if (flight.waiters === 0 && flight.controller !== undefined) {
          // Nobody wants this load any more: stop it, and let the next caller start afresh.
          if (this.flights.get(index) === flight) this.flights.delete(index);
          flight.controller.abort(abortReason(signal));
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (sample) => {
          signal.removeEventListener('abort', onAbort);
          resolve(sample);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
