const EMPTY = -1;
const TWO_32 = 4294967296;

/**
 * A map from sample indices (integers in [0, 2^53)) to numbers, by open
 * addressing with linear probing, sized once for `capacity` entries: memory
 * follows what is held (a cache's capacity, a plan window), never the data
 * set's length. Deletion shifts entries back (no tombstones). Nothing is
 * allocated per operation. Internal to the engine.
 *
 * @example
 * const m = new IndexMap(1000);
 * m.set(123_456_789_012, 7);
 * m.get(123_456_789_012); // 7
 */
export class IndexMap {
  private readonly keys: Float64Array;
  private readonly values: Float64Array;
  private readonly mask: number;
  private count = 0;

  /** @param capacity most entries held at once (the table is at most half full) */
  constructor(readonly capacity: number) {
    let size = 4;
    while (size < capacity * 2) size *= 2;
    this.keys = new Float64Array(size).fill(EMPTY);
    this.values = new Float64Array(size);
    this.mask = size - 1;
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  private home(key: number): number {
    const lo = key >>> 0;
    const hi = (key / TWO_32) >>> 0;
    let h = Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1);
    h ^= h >>> 15;
    return h & this.mask;
  }

  /** Slot holding `key`, or the empty slot where it would go (negative: -slot - 1). */
  private find(key: number): number {
    const keys = this.keys;
    let i = this.home(key);
    for (;;) {
      const k = keys[i]!;
      if (k === key) return i;
      if (k === EMPTY) return -i - 1;
      i = (i + 1) & this.mask;
    }
  }

  /** Whether `key` is held. */
  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  /** The value of `key`, or `fallback` when it is not held. */
  get(key: number, fallback = -1): number {
    const i = this.find(key);
    return i >= 0 ? this.values[i]! : fallback;
  }

  /** Set the value of `key`. Throws RangeError past `capacity` entries. */
  set(key: number, value: number): void {
    let i = this.find(key);
    if (i < 0) {
      if (this.count >= this.capacity)
        throw new RangeError(`IndexMap holds ${this.capacity} entries at most`);
      i = -i - 1;
      this.keys[i] = key;
      this.count++;
    }
    this.values[i] = value;
  }

  /** Remove `key`; true when it was held. */
  delete(key: number): boolean {
    let i = this.find(key);
    if (i < 0) return false;
    const keys = this.keys;
    const mask = this.mask;
    // backward-shift deletion: pull later entries of the probe run into the gap
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const k = keys[j]!;
      if (k === EMPTY) break;
      const h = this.home(k);
      // move k into i when its home is not in the cyclic range (i, j]
      if (i <= j ? h <= i || h > j : h <= i && h > j) {
        keys[i] = k;
        this.values[i] = this.values[j]!;
        i = j;
      }
    }
    keys[i] = EMPTY;
    this.count--;
    return true;
  }

  /** Remove every entry. */
  clear(): void {
    if (this.count === 0) return;
    this.keys.fill(EMPTY);
    this.count = 0;
  }
}
