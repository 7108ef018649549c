import {
  func,
  positiveFinite,
  positiveInt,
  rejectUnknownOptions,
  showValue,
} from '../util/validate.js';
import type { EvictReason, LRUCacheOptions, LRUCacheStats } from './lruCacheOptions.js';
import { defaultSizeOf } from './sizeOf.js';

const MAX_CAPACITY = 2 ** 32 - 2;
const KNOWN_OPTIONS: readonly string[] = ['capacity', 'maxBytes', 'sizeOf', 'onEvict'];
const INITIAL_SLOTS = 64;

/**
 * A least-recently-used cache with an entry limit and an optional byte
 * budget. Every operation is O(1) and, once the cache has grown to its
 * working size, allocates nothing: keys map to slot numbers, values live in
 * slot arrays, and recency is a doubly linked list in typed arrays (slot 0
 * is the list's sentinel: `next[0]` is the most recent slot, `prev[0]` the least).
 *
 * Building blocks for other policies: {@link keys} walks entries from most to
 * least recent, {@link evict} removes a chosen victim as an eviction,
 * {@link evictOne} removes the least recent one, {@link peek} / {@link has}
 * read without touching recency or statistics.
 *
 * @example
 * const cache = new LRUCache<string, Float32Array>({ capacity: 1000, maxBytes: 64 * 2 ** 20 });
 * cache.set('a', new Float32Array(256));
 * cache.get('a'); // the array; 'a' is now the most recently used entry
 * cache.stats(); // { hits: 1, misses: 0, ..., bytes: 1024 }
 */
export class LRUCache<K, V> {
  /** The entry limit (the `capacity` option). */
  readonly capacity: number;
  /** The byte limit (the `maxBytes` option), `undefined` when there is none. */
  readonly maxBytes: number | undefined;

  private readonly map = new Map<K, number>();
  /** Slot → key; index 0 is the sentinel and stays `undefined`. */
  private readonly keyList: (K | undefined)[] = [undefined];
  /** Slot → value. */
  private readonly valList: (V | undefined)[] = [undefined];
  /** Slot → less recent slot (0 ends the list). */
  private next: Uint32Array;
  /** Slot → more recent slot (0 ends the list). */
  private prev: Uint32Array;
  /** Slot → measured size (only written when sizes are measured). */
  private sizes: Float64Array;
  /** Stack of freed slots. */
  private free: Uint32Array;
  private freeTop = 0;
  /** Next never-used slot. */
  private fill = 1;
  /** Slots allocated in the typed arrays, sentinel included. */
  private allocated: number;
  private readonly limit: number;
  private readonly sizeFn: ((value: V, key: K) => number) | undefined;
  private readonly evictFn: ((key: K, value: V, reason: EvictReason) => void) | undefined;
  private bytesHeld = 0;
  private hits = 0;
  private misses = 0;
  private sets = 0;
  private evictions = 0;
  private rejected = 0;
  private failed = false;
  private failure: unknown;

  constructor(options: LRUCacheOptions<K, V>) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError(`options must be an object, got ${showValue(options)}`);
    }
    rejectUnknownOptions(options, KNOWN_OPTIONS, 'LRUCache');
    const { capacity, maxBytes, sizeOf, onEvict } = options;
    positiveInt('capacity', capacity);
    if (capacity > MAX_CAPACITY) {
      throw new RangeError(`capacity must be at most ${MAX_CAPACITY}, got ${capacity}`);
    }
    if (maxBytes !== undefined) positiveFinite('maxBytes', maxBytes);
    if (sizeOf !== undefined) func('sizeOf', sizeOf);
    if (onEvict !== undefined) func('onEvict', onEvict);
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.limit = maxBytes ?? Number.POSITIVE_INFINITY;
    this.sizeFn = sizeOf ?? (maxBytes !== undefined ? defaultSizeOf : undefined);
    this.evictFn = onEvict;
    this.allocated = Math.min(capacity, INITIAL_SLOTS) + 1;
    this.next = new Uint32Array(this.allocated);
    this.prev = new Uint32Array(this.allocated);
    this.free = new Uint32Array(this.allocated);
    this.sizes = new Float64Array(this.sizeFn === undefined ? 0 : this.allocated);
  }

  /** Number of entries held. */
  get size(): number {
    return this.map.size;
  }

  /** Total measured size of the values held, in bytes (0 when sizes are not measured). */
  get bytes(): number {
    return this.bytesHeld;
  }

  /** The value for `key` (making it the most recently used), or `undefined`. Counts a hit or miss. */
  get(key: K): V | undefined {
    const slot = this.map.get(key);
    if (slot === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    if (this.next[0] !== slot) this.moveToFront(slot);
    return this.valList[slot];
  }

  /** The value for `key` without touching recency or statistics, or `undefined`. */
  peek(key: K): V | undefined {
    const slot = this.map.get(key);
    return slot === undefined ? undefined : this.valList[slot];
  }

  /** Whether `key` is held; touches neither recency nor statistics. */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /**
   * Store `value` under `key` as the most recently used entry, evicting the
   * least recently used entries as needed to respect `capacity` and
   * `maxBytes`. A value larger than `maxBytes` is not stored (counted in
   * `stats().rejected`, reported to `onEvict` as `'tooLarge'`), and any older
   * value of `key` is dropped so a stale value is never served.
   */
  set(key: K, value: V): this {
    const existing = this.map.get(key);
    let size = 0;
    if (this.sizeFn !== undefined) {
      size = this.measure(key, value);
      if (size > this.limit) return this.reject(key, value);
    }
    this.sets++;
    if (existing === undefined) {
      this.insert(key, value, size);
      return this;
    }
    if (this.next[0] !== existing) this.moveToFront(existing);
    if (this.sizeFn !== undefined) this.resize(existing, size);
    const old = this.valList[existing] as V;
    this.valList[existing] = value;
    if (this.evictFn !== undefined && old !== value) this.replaced(key, old);
    return this;
  }

  /** Remove `key`; true when it was held. Reported to `onEvict` as `'delete'`. */
  delete(key: K): boolean {
    return this.removeKey(key, 'delete');
  }

  /**
   * Remove `key` as an eviction (counted in `stats().evictions`, reported as
   * `'evict'`): for policies that pick their own victim. True when it was held.
   */
  evict(key: K): boolean {
    return this.removeKey(key, 'evict');
  }

  /** Evict the least recently used entry; false when the cache is empty. */
  evictOne(): boolean {
    if (this.map.size === 0) return false;
    this.removeSlot(this.prev[0]!, 'evict');
    if (this.failed) this.rethrow();
    return true;
  }

  /**
   * Remove every entry (each reported as `'clear'`, least recent first).
   * Statistics counters are kept; allocated storage is kept for reuse.
   */
  clear(): void {
    const evictFn = this.evictFn;
    let keys: K[] | undefined;
    let values: V[] | undefined;
    if (evictFn !== undefined && this.map.size > 0) {
      keys = [];
      values = [];
      for (let s = this.prev[0]!; s !== 0; s = this.prev[s]!) {
        keys.push(this.keyList[s] as K);
        values.push(this.valList[s] as V);
      }
    }
    this.map.clear();
    this.keyList.length = 1;
    this.valList.length = 1;
    this.next[0] = 0;
    this.prev[0] = 0;
    this.fill = 1;
    this.freeTop = 0;
    this.bytesHeld = 0;
    if (keys !== undefined && values !== undefined) {
      for (let i = 0; i < keys.length; i++) this.notify(keys[i] as K, values[i] as V, 'clear');
      if (this.failed) this.rethrow();
    }
  }

  /** Keys from most to least recently used. Do not modify the cache while iterating. */
  *keys(): Generator<K, void, undefined> {
    for (let s = this.next[0]!; s !== 0; s = this.next[s]!) yield this.keyList[s] as K;
  }

  /** `[key, value]` pairs from most to least recently used. Do not modify the cache while iterating. */
  *entries(): Generator<[K, V], void, undefined> {
    for (let s = this.next[0]!; s !== 0; s = this.next[s]!) {
      yield [this.keyList[s] as K, this.valList[s] as V];
    }
  }

  /** A snapshot of the counters and gauges. */
  stats(): LRUCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      sets: this.sets,
      evictions: this.evictions,
      rejected: this.rejected,
      size: this.map.size,
      capacity: this.capacity,
      bytes: this.bytesHeld,
      maxBytes: this.maxBytes,
    };
  }

  private measure(key: K, value: V): number {
    const size = (this.sizeFn as (value: V, key: K) => number)(value, key);
    if (typeof size !== 'number' || !(size >= 0) || size === Number.POSITIVE_INFINITY) {
      throw new RangeError(
        `sizeOf must return a finite non-negative number, got ${showValue(size)} for key ${showValue(key)}`,
      );
    }
    return size;
  }

  /** Store a new key, making room first (least recent first) so callbacks see a cache within budget. */
  private insert(key: K, value: V, size: number): void {
    const sized = this.sizeFn !== undefined;
    if (sized && this.bytesHeld + size > this.limit) this.trimBytes(size);
    if (this.map.size >= this.capacity) this.removeSlot(this.prev[0]!, 'evict');
    let slot: number;
    if (this.freeTop > 0) {
      slot = this.free[--this.freeTop]!;
      this.keyList[slot] = key;
      this.valList[slot] = value;
    } else {
      if (this.fill === this.allocated) this.grow();
      slot = this.fill++;
      this.keyList.push(key);
      this.valList.push(value);
    }
    this.map.set(key, slot);
    this.linkFront(slot);
    if (sized) {
      this.sizes[slot] = size;
      this.bytesHeld += size;
    }
    if (this.failed) this.rethrow();
  }

  /** Account a replaced value's new size; the entry is most recent, so never its own victim. */
  private resize(slot: number, size: number): void {
    this.bytesHeld += size - this.sizes[slot]!;
    this.sizes[slot] = size;
    if (this.bytesHeld > this.limit) this.trimBytes(0, slot);
    if (this.failed) this.rethrow();
  }

  private replaced(key: K, old: V): void {
    this.notify(key, old, 'set');
    if (this.failed) this.rethrow();
  }

  private reject(key: K, value: V): this {
    this.rejected++;
    const existing = this.map.get(key);
    if (existing !== undefined) this.removeSlot(existing, 'set');
    if (this.evictFn !== undefined) this.notify(key, value, 'tooLarge');
    if (this.failed) this.rethrow();
    return this;
  }

  private removeKey(key: K, reason: EvictReason): boolean {
    const slot = this.map.get(key);
    if (slot === undefined) return false;
    this.removeSlot(slot, reason);
    if (this.failed) this.rethrow();
    return true;
  }

  /** Drop the entry in `slot` and free the slot; notifies but never throws. */
  private removeSlot(slot: number, reason: EvictReason): void {
    const key = this.keyList[slot] as K;
    const value = this.valList[slot] as V;
    this.map.delete(key);
    this.unlink(slot);
    this.keyList[slot] = undefined;
    this.valList[slot] = undefined;
    this.free[this.freeTop++] = slot;
    if (this.sizeFn !== undefined) this.bytesHeld -= this.sizes[slot]!;
    if (reason === 'evict') this.evictions++;
    if (this.evictFn !== undefined) this.notify(key, value, reason);
  }

  /**
   * Evict least recently used entries until the byte budget holds with
   * `incoming` more bytes, never evicting slot `keep` (0: none).
   */
  private trimBytes(incoming = 0, keep = 0): void {
    for (let tail = this.prev[0]!; tail !== 0 && tail !== keep; tail = this.prev[0]!) {
      if (this.bytesHeld + incoming <= this.limit) break;
      this.removeSlot(tail, 'evict');
    }
    // Floating-point drift can leave a residue: resynchronise when the total is known exactly.
    if (this.map.size === 0) this.bytesHeld = 0;
    else if (this.map.size === 1 && keep !== 0) this.bytesHeld = this.sizes[keep]!;
  }

  private moveToFront(slot: number): void {
    const next = this.next;
    const prev = this.prev;
    const n = next[slot]!;
    const p = prev[slot]!;
    next[p] = n;
    prev[n] = p;
    const head = next[0]!;
    next[slot] = head;
    prev[slot] = 0;
    prev[head] = slot;
    next[0] = slot;
  }

  private linkFront(slot: number): void {
    const next = this.next;
    const head = next[0]!;
    next[slot] = head;
    this.prev[slot] = 0;
    this.prev[head] = slot;
    next[0] = slot;
  }

  private unlink(slot: number): void {
    const n = this.next[slot]!;
    const p = this.prev[slot]!;
    this.next[p] = n;
    this.prev[n] = p;
  }

  /** Double the typed-array storage (up to capacity + 1 slots). */
  private grow(): void {
    const size = Math.min(this.capacity + 1, this.allocated * 2);
    const next = new Uint32Array(size);
    next.set(this.next);
    this.next = next;
    const prev = new Uint32Array(size);
    prev.set(this.prev);
    this.prev = prev;
    const free = new Uint32Array(size);
    free.set(this.free);
    this.free = free;
    if (this.sizeFn !== undefined) {
      const sizes = new Float64Array(size);
      sizes.set(this.sizes);
      this.sizes = sizes;
    }
    this.allocated = size;
  }

  private notify(key: K, value: V, reason: EvictReason): void {
    try {
      this.evictFn?.(key, value, reason);
    } catch (error) {
      if (!this.failed) {
        this.failed = true;
        this.failure = error;
      }
    }
  }

  private rethrow(): never {
    const error = this.failure;
    this.failed = false;
    this.failure = undefined;
    throw error;
  }
}
