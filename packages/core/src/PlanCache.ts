import type { AccessPlan } from './AccessPlan.js';
import { NEVER } from './AccessPlan.js';
import { IndexedMaxHeap } from './IndexedMaxHeap.js';

/** Priorities at or above this are "not planned": ordered by recency (older = larger). */
const RECENCY_BAND = 2 ** 31;
const MAX_SEQ = 2 ** 50;

/** Options of {@link PlanCache}. */
export interface PlanCacheOptions {
  /** Most samples held. 0 holds nothing. */
  capacity: number;
  /** Keys are sample indices in `[0, keySpace)` (the dataset's length). */
  keySpace: number;
  /**
   * Order eviction by the plan (Belady: evict the sample whose next planned
   * use is farthest; samples outside the plan go first, least recently used
   * first). When false, or when no plan is set, this is a plain LRU.
   */
  usePlan: boolean;
  /** Called for every sample evicted (not for `delete`/`clear`). */
  onEvict?: (key: number) => void;
}

/**
 * The memory tier of the caching engine: samples keyed by index, evicted by
 * farthest next planned use (Belady's MIN) when a plan is known, least
 * recently used otherwise. A sample whose next use is farther than every
 * resident one is not admitted (bypass), which is what makes the policy
 * optimal. O(log n) per operation through an indexed max-heap keyed by next
 * use; typed arrays sized once, nothing allocated per operation.
 */
export class PlanCache<V> {
  /** Most samples held. */
  readonly capacity: number;
  private readonly usePlan: boolean;
  private readonly onEvict: ((key: number) => void) | undefined;
  private readonly heap: IndexedMaxHeap;
  private readonly values: (V | undefined)[];
  private readonly sizes: Float64Array;
  private readonly lastTouch: Float64Array;
  private plan: AccessPlan | undefined;
  private seq = 0;
  /** Bytes held by resident samples. */
  bytes = 0;
  /** Samples evicted so far. */
  evictions = 0;

  constructor(options: PlanCacheOptions) {
    this.capacity = options.capacity;
    this.usePlan = options.usePlan;
    this.onEvict = options.onEvict;
    const keySpace = Math.max(1, options.keySpace);
    this.heap = new IndexedMaxHeap(keySpace, Math.min(keySpace, options.capacity + 1));
    this.values = new Array<V | undefined>(keySpace);
    this.sizes = new Float64Array(keySpace);
    this.lastTouch = new Float64Array(keySpace);
  }

  /** Samples held. */
  get size(): number {
    return this.heap.size;
  }

  /** Whether sample `key` is held. */
  has(key: number): boolean {
    return this.heap.has(key);
  }

  /** The held value of `key` without counting it as a use. */
  peek(key: number): V | undefined {
    return this.heap.has(key) ? this.values[key] : undefined;
  }

  /** Use `plan` for eviction order from now on (undefined: recency only). */
  setPlan(plan: AccessPlan | undefined): void {
    this.plan = plan;
    if (this.heap.size === 0) return;
    const keys: number[] = [];
    this.heap.forEach((k) => {
      keys.push(k);
    });
    for (const k of keys) this.heap.set(k, this.priority(k));
  }

  /** Record a use of a held sample (call after the plan's cursor moved past it). */
  touch(key: number): V | undefined {
    if (!this.heap.has(key)) return undefined;
    this.lastTouch[key] = ++this.seq;
    this.heap.set(key, this.priority(key));
    return this.values[key];
  }

  /** Recompute the eviction priority of `key` after its next planned use changed. */
  reprioritize(key: number): void {
    if (this.heap.has(key)) this.heap.set(key, this.priority(key));
  }

  /** The priority `key` would have now (larger = evicted sooner). */
  priority(key: number): number {
    if (this.usePlan && this.plan) {
      const next = this.plan.nextUse(key);
      if (next !== NEVER) return next;
    }
    return RECENCY_BAND + (MAX_SEQ - this.lastTouch[key]!);
  }

  /**
   * Offer a freshly loaded sample. Evicts to stay within `capacity` and within
   * `budget` bytes; returns false (and holds nothing) when the sample is
   * farther from its next use than everything held, or cannot fit.
   */
  admit(key: number, value: V, bytes: number, budget: number): boolean {
    if (this.heap.has(key)) this.delete(key);
    if (this.capacity === 0 || bytes > budget) return false;
    this.lastTouch[key] = ++this.seq;
    const p = this.priority(key);
    while (this.heap.size >= this.capacity || this.bytes + bytes > budget) {
      if (this.heap.size === 0 || this.heap.peekPriority() < p) return false;
      this.evictOne();
    }
    this.values[key] = value;
    this.sizes[key] = bytes;
    this.bytes += bytes;
    this.heap.set(key, p);
    return true;
  }

  /**
   * Evict the sample that is needed last, if it is needed later than
   * `priority` (pass Infinity to evict unconditionally). True when one went.
   */
  evictAbove(priority: number): boolean {
    if (this.heap.size === 0 || !(this.heap.peekPriority() > priority)) return false;
    this.evictOne();
    return true;
  }

  /** Remove `key` without counting an eviction. */
  delete(key: number): boolean {
    if (!this.heap.delete(key)) return false;
    this.release(key);
    return true;
  }

  /** Remove everything. */
  clear(): void {
    this.heap.forEach((k) => {
      this.values[k] = undefined;
    });
    this.heap.clear();
    this.bytes = 0;
  }

  /** Call `fn` for every held key. */
  forEach(fn: (key: number) => void): void {
    this.heap.forEach(fn);
  }

  private evictOne(): void {
    const key = this.heap.pop();
    this.release(key);
    this.evictions++;
    this.onEvict?.(key);
  }

  private release(key: number): void {
    this.values[key] = undefined;
    this.bytes -= this.sizes[key]!;
    this.sizes[key] = 0;
  }
}
