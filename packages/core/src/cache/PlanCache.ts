import type { AccessPlan } from '../plan/AccessPlan.js';
import { FAR, NEVER } from '../plan/AccessPlan.js';
import { IndexMap } from '../plan/IndexMap.js';
import { IndexedMaxHeap } from './IndexedMaxHeap.js';
import { RecencyList } from './RecencyList.js';

// Priority bands (larger = evicted sooner), exact in float64:
// - planned within reach: next-use position − 2^53, in [−2^53, 0);
// - read later than the plan's window (FAR): the last touch, in [0, 2^50]: the
//   most recently read goes first (its next read is, by expectation, the farthest);
// - not planned (NEVER, or no plan): 2^51 + (2^50 − last touch): least recently used first.
const PLANNED_OFFSET = 2 ** 53;
const UNPLANNED_BAND = 2 ** 51;
const MAX_SEQ = 2 ** 50;

/** Options of {@link PlanCache}. */
export interface PlanCacheOptions {
  /** Most samples held. 0 holds nothing. */
  capacity: number;
  /** Keys are sample indices in `[0, keySpace)` (the dataset's length); memory does not depend on it. */
  keySpace: number;
  /**
   * Order eviction by the plan (Belady: evict the sample whose next planned
   * use is farthest; samples the plan does not read again go first, least
   * recently used first; then samples read beyond the plan's window, most
   * recently read first). When false, or when no plan is set, this is a plain LRU.
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
 * optimal. O(log capacity) per operation through an indexed max-heap over
 * storage slots keyed by next use, and a hash map from index to slot; with
 * `usePlan: false` (the LRU of `CachedDataset`) a linked list in recency order
 * takes the heap's place: O(1) per operation, as SEED promises the LRU cache.
 * Memory follows the capacity, never the data set's size; nothing is allocated
 * per operation.
 */
export class PlanCache<V> {
  /** Most samples held. */
  readonly capacity: number;
  private readonly usePlan: boolean;
  private readonly onEvict: ((key: number) => void) | undefined;
  /** Resident slots in eviction order: by next use (plan), or by recency alone. */
  private readonly heap: IndexedMaxHeap | RecencyList;
  /** Storage slot of each held key. */
  private readonly slotOf: IndexMap;
  // Slot arrays, sized by capacity:
  private readonly keys: Float64Array;
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
    // Without the plan, priorities only follow recency: a list keeps that order in O(1).
    this.heap = this.usePlan ? new IndexedMaxHeap(slots, slots) : new RecencyList(slots);
    this.slotOf = new IndexMap(slots);
    this.keys = new Float64Array(slots);
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
    return this.slotOf.has(key);
  }

  /** The held value of `key` without counting it as a use. */
  peek(key: number): V | undefined {
    const slot = this.slotOf.get(key);
    return slot >= 0 ? this.values[slot] : undefined;
  }

  /** Use `plan` for eviction order from now on (undefined: recency only). */
  setPlan(plan: AccessPlan | undefined): void {
    this.plan = plan;
    if (this.heap.size === 0) return;
    const slots: number[] = [];
    this.heap.forEach((slot) => {
      slots.push(slot);
    });
    for (const slot of slots) this.heap.set(slot, this.priority(this.keys[slot]!));
  }

  /** Record a use of a held sample (call after the plan's cursor moved past it). */
  touch(key: number): V | undefined {
    const slot = this.slotOf.get(key);
    if (slot < 0) return undefined;
    this.lastTouch[slot] = ++this.seq;
    this.heap.set(slot, this.priority(key));
    return this.values[slot];
  }

  /** Recompute the eviction priority of `key` after its next planned use changed. */
  reprioritize(key: number): void {
    const slot = this.slotOf.get(key);
    if (slot >= 0) this.heap.set(slot, this.priority(key));
  }

  /**
   * The priority `key` has (larger = evicted sooner); for a key not held, the
   * priority it would get if it were used now.
   */
  priority(key: number): number {
    const slot = this.slotOf.get(key);
    const touched = slot >= 0 ? this.lastTouch[slot]! : this.seq + 1;
    if (this.usePlan && this.plan) {
      const next = this.plan.nextUse(key);
      if (next === FAR) return touched;
      if (next !== NEVER) return next - PLANNED_OFFSET;
    }
    return UNPLANNED_BAND + (MAX_SEQ - touched);
  }

  /**
   * Offer a freshly loaded sample. Evicts to stay within `capacity` and within
   * `budget` bytes; returns false (and holds nothing) when the sample is
   * farther from its next use than everything held, or cannot fit.
   */
  admit(key: number, value: V, bytes: number, budget: number): boolean {
    if (this.slotOf.has(key)) this.delete(key);
    if (this.capacity === 0 || bytes > budget) return false;
    const p = this.priority(key);
    while (this.heap.size >= this.capacity || this.bytes + bytes > budget) {
      if (this.heap.size === 0 || this.heap.peekPriority() < p) return false;
      this.evictOne();
    }
    const slot = this.freeSlots[--this.freeCount]!;
    this.slotOf.set(key, slot);
    this.keys[slot] = key;
    this.values[slot] = value;
    this.sizes[slot] = bytes;
    this.lastTouch[slot] = ++this.seq;
    this.bytes += bytes;
    this.heap.set(slot, p);
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
    const slot = this.slotOf.get(key);
    if (slot < 0) return false;
    this.heap.delete(slot);
    this.release(slot);
    return true;
  }

  /** Remove everything. */
  clear(): void {
    this.heap.forEach((slot) => {
      this.release(slot);
    });
    this.heap.clear();
  }

  /** Call `fn` for every held key. */
  forEach(fn: (key: number) => void): void {
    this.heap.forEach((slot) => {
      fn(this.keys[slot]!);
    });
  }

  private evictOne(): void {
    const slot = this.heap.pop();
    const key = this.keys[slot]!;
    this.release(slot);
    this.evictions++;
    this.onEvict?.(key);
  }

  /** Free storage slot `slot` (already out of the heap, or about to be). */
  private release(slot: number): void {
    this.slotOf.delete(this.keys[slot]!);
    this.values[slot] = undefined;
    this.bytes -= this.sizes[slot]!;
    this.sizes[slot] = 0;
    this.freeSlots[this.freeCount++] = slot;
  }
}
