import type { AccessPlan } from '../engine/AccessPlan.js';
import { NEVER } from '../engine/AccessPlan.js';
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
  /** Storage slot of each key, -1 when not held (the only per-sample array besides the heap's). */
  private readonly slotOf: Int32Array;
  // Slot arrays, sized by capacity:
  private readonly values: (V | undefined)[];
  private readonly sizes: Float64Array;
  private readonly lastTouch: Float64Array;
  private readonly freeSlots: Int32Array;
  private freeCount: number;
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
    const slots = Math.max(1, Math.min(keySpace, options.capacity));
    this.heap = new IndexedMaxHeap(keySpace, slots);
    this.slotOf = new Int32Array(keySpace).fill(-1);
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.sizes = new Float64Array(slots);
    this.lastTouch = new Float64Array(slots);
    this.freeSlots = new Int32Array(slots);
    for (let i = 0; i < slots; i++) this.freeSlots[i] = slots - 1 - i;
    this.freeCount = slots;
  }

  /** Samples held. */
  get size(): number {
    return this.heap.size;
  }

  /** Whether sample `key` is held. */
  has(key: number): boolean {
    return this.slotOf[key]! >= 0;
  }

  /** The held value of `key` without counting it as a use. */
  peek(key: number): V | undefined {
    const slot = this.slotOf[key]!;
    return slot >= 0 ? this.values[slot] : undefined;
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
    const slot = this.slotOf[key]!;
    if (slot < 0) return undefined;
    this.lastTouch[slot] = ++this.seq;
    this.heap.set(key, this.priority(key));
    return this.values[slot];
  }

  /** Recompute the eviction priority of `key` after its next planned use changed. */
  reprioritize(key: number): void {
    if (this.slotOf[key]! >= 0) this.heap.set(key, this.priority(key));
  }

  /**
   * The priority `key` has (larger = evicted sooner); for a key not held, the
   * priority it would get if it were used now.
   */
  priority(key: number): number {
    if (this.usePlan && this.plan) {
      const next = this.plan.nextUse(key);
      if (next !== NEVER) return next;
    }
    const slot = this.slotOf[key]!;
    const touched = slot >= 0 ? this.lastTouch[slot]! : this.seq + 1;
    return RECENCY_BAND + (MAX_SEQ - touched);
  }

  /**
   * Offer a freshly loaded sample. Evicts to stay within `capacity` and within
   * `budget` bytes; returns false (and holds nothing) when the sample is
   * farther from its next use than everything held, or cannot fit.
   */
  admit(key: number, value: V, bytes: number, budget: number): boolean {
    if (this.slotOf[key]! >= 0) this.delete(key);
    if (this.capacity === 0 || bytes > budget) return false;
    const p = this.priority(key);
    while (this.heap.size >= this.capacity || this.bytes + bytes > budget) {
      if (this.heap.size === 0 || this.heap.peekPriority() < p) return false;
      this.evictOne();
    }
    const slot = this.freeSlots[--this.freeCount]!;
    this.slotOf[key] = slot;
    this.values[slot] = value;
    this.sizes[slot] = bytes;
    this.lastTouch[slot] = ++this.seq;
    this.bytes += bytes;
    this.heap.set(key, p);
    return true;
  }

  /**
   * Evict the sample that is needed last, if it is needed later than
   * `priority` (pass -Infinity to evict unconditionally). True when one went.
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
      this.release(k);
    });
    this.heap.clear();
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

  /** Free the storage slot of `key` (already out of the heap, or about to be). */
  private release(key: number): void {
    const slot = this.slotOf[key]!;
    this.slotOf[key] = -1;
    this.values[slot] = undefined;
    this.bytes -= this.sizes[slot]!;
    this.sizes[slot] = 0;
    this.freeSlots[this.freeCount++] = slot;
  }
}
