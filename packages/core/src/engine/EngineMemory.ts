import { PlanCache } from '../cache/PlanCache.js';
import type { EngineCounters } from './EngineCounters.js';
import type { ResolvedEngineOptions } from './engineOptions.js';
import type { PrefetchSchedule } from './PrefetchSchedule.js';

/** The engine options the memory is made from. */
type MemoryOptions<T> = Pick<
  ResolvedEngineOptions<T>,
  'cacheSize' | 'length' | 'evictionPolicy' | 'maxBytes' | 'sizeOf'
>;

/**
 * The engine's memory under one byte budget: the cache (LRU or plan-aware) and
 * the bytes of prefetched samples not yet taken (the buffer). Decides what a
 * sample just read may take, and tells the prefetch schedule about samples it
 * could not keep, so they are prefetched again if needed soon.
 */
export class EngineMemory<T> {
  /** The memory cache. */
  readonly cache: PlanCache<T>;
  /** Capacity of the cache, in samples. */
  readonly cacheSize: number;
  /** Keys are indices in [0, keySpace). */
  readonly keySpace: number;
  /** Eviction follows the plan when there is one (policy 'auto' or 'belady'). */
  readonly planEviction: boolean;
  /** The byte budget of the cache and the buffer together. */
  readonly maxBytes: number;
  /** Prefetched samples held, not yet taken. */
  buffered = 0;
  /** Bytes of the prefetched samples held. */
  bufferBytes = 0;
  /** Mean bytes of a loaded sample. */
  avgBytes = 0;
  private loadedCount = 0;
  private readonly sizeOf: (value: T) => number;
  private readonly counters: EngineCounters;
  private readonly schedule: PrefetchSchedule;

  constructor(
    o: MemoryOptions<T>,
    counters: EngineCounters,
    schedule: PrefetchSchedule,
    /** Whether a sample may be held at all (CachedDataset's `cacheImages` / `cacheTabular`). */
    private readonly admits?: (value: T) => boolean,
  ) {
    this.cacheSize = o.cacheSize;
    this.keySpace = o.length;
    this.planEviction = o.evictionPolicy !== 'lru';
    this.maxBytes = o.maxBytes;
    this.sizeOf = o.sizeOf;
    this.counters = counters;
    this.schedule = schedule;
    this.cache = new PlanCache<T>({
      capacity: this.cacheSize,
      keySpace: this.keySpace,
      usePlan: this.planEviction,
      onEvict: (key) => this.schedule.rewind(key), // prefetch it again if needed soon
    });
  }

  /** Bytes held: the cache and the buffer. */
  get bytes(): number {
    return this.cache.bytes + this.bufferBytes;
  }

  /** Whether one more prefetch of an average sample fits beside `loading` ones. */
  fits(loading: number): boolean {
    if (this.maxBytes === Number.POSITIVE_INFINITY) return true;
    return this.bufferBytes + (loading + 1) * this.avgBytes <= this.maxBytes;
  }

  /** The size of a loaded sample (0 when `sizeOf` gives no positive finite number). */
  measure(value: T): number {
    const bytes = this.sizeOf(value);
    const b = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
    this.loadedCount++;
    this.avgBytes += (b - this.avgBytes) / this.loadedCount;
    return b;
  }

  /** Put a sample just read into the cache (or not: policy, capacity, budget). */
  keep(key: number, value: T, bytes: number): void {
    if (this.admits !== undefined && !this.admits(value)) return;
    if (bytes > this.maxBytes) {
      this.counters.rejected++;
      this.schedule.rewind(key);
      return;
    }
    if (this.cache.admit(key, value, bytes, this.maxBytes - this.bufferBytes)) this.notePeak();
    else this.schedule.rewind(key);
  }

  /**
   * Make room in the budget for a prefetched sample, evicting what is needed
   * later than it when eviction follows a plan (`planned`: there is one), else anything.
   */
  makeRoom(key: number, bytes: number, planned: boolean): boolean {
    if (bytes > this.maxBytes) {
      this.counters.rejected++;
      return false;
    }
    const limit =
      planned && this.planEviction ? this.cache.priority(key) : Number.NEGATIVE_INFINITY;
    while (this.cache.bytes + this.bufferBytes + bytes > this.maxBytes) {
      if (!this.cache.evictAbove(limit)) return false;
    }
    return true;
  }

  /** A prefetched sample of `bytes` enters the buffer. */
  hold(bytes: number): void {
    this.buffered++;
    this.bufferBytes += bytes;
    this.notePeak();
  }

  /** A prefetched sample of `bytes` leaves the buffer. */
  release(bytes: number): void {
    this.buffered--;
    this.bufferBytes -= bytes;
  }

  /** Empty the cache and forget the buffer (on close). */
  clear(): void {
    this.cache.clear();
    this.bufferBytes = 0;
    this.buffered = 0;
  }

  private notePeak(): void {
    this.counters.notePeak(this.cache.bytes + this.bufferBytes);
  }
}
