/**
 * A binary max-heap over integer keys in `[0, keySpace)` with a priority per
 * key and O(log n) insert / update / remove, O(1) peek. Backed by typed arrays
 * sized once, so operations allocate nothing. The plan-aware cache and the
 * offline Belady simulation both order resident samples with it (priority =
 * position of the next use; the largest is evicted first).
 */
export class IndexedMaxHeap {
  private readonly keys: Int32Array;
  private readonly prio: Float64Array;
  /** Slot of each key in the heap, -1 when absent. */
  private readonly slot: Int32Array;
  private count = 0;

  /**
   * @param keySpace Keys are integers in `[0, keySpace)`.
   * @param maxSize Most keys held at once (defaults to keySpace).
   */
  constructor(keySpace: number, maxSize = keySpace) {
    this.keys = new Int32Array(Math.max(1, maxSize));
    this.prio = new Float64Array(Math.max(1, maxSize));
    this.slot = new Int32Array(Math.max(1, keySpace)).fill(-1);
  }

  /** Number of keys held. */
  get size(): number {
    return this.count;
  }

  /** Whether `key` is held. */
  has(key: number): boolean {
    return this.slot[key]! >= 0;
  }

  /** The key with the largest priority, or -1 when empty. */
  peekKey(): number {
    return this.count > 0 ? this.keys[0]! : -1;
  }

  /** The largest priority, or -Infinity when empty. */
  peekPriority(): number {
    return this.count > 0 ? this.prio[0]! : Number.NEGATIVE_INFINITY;
  }

  /** The priority of `key` (undefined when absent). */
  priorityOf(key: number): number | undefined {
    const s = this.slot[key]!;
    return s >= 0 ? this.prio[s] : undefined;
  }

  /** Insert `key` or change its priority. */
  set(key: number, priority: number): void {
    let s = this.slot[key]!;
    if (s < 0) {
      if (this.count >= this.keys.length) throw new RangeError('IndexedMaxHeap is full');
      s = this.count++;
      this.keys[s] = key;
      this.prio[s] = priority;
      this.slot[key] = s;
      this.up(s);
      return;
    }
    const old = this.prio[s]!;
    this.prio[s] = priority;
    if (priority > old) this.up(s);
    else if (priority < old) this.down(s);
  }

  /** Remove `key`; true when it was held. */
  delete(key: number): boolean {
    const s = this.slot[key]!;
    if (s < 0) return false;
    this.slot[key] = -1;
    const last = --this.count;
    if (s !== last) {
      this.keys[s] = this.keys[last]!;
      this.prio[s] = this.prio[last]!;
      this.slot[this.keys[s]!] = s;
      this.down(s);
      this.up(s);
    }
    return true;
  }

  /** Remove and return the key with the largest priority (-1 when empty). */
  pop(): number {
    const key = this.peekKey();
    if (key >= 0) this.delete(key);
    return key;
  }

  /** Call `fn` for every key held (heap order). */
  forEach(fn: (key: number) => void): void {
    for (let i = 0; i < this.count; i++) fn(this.keys[i]!);
  }

  /** Remove every key. */
  clear(): void {
    for (let i = 0; i < this.count; i++) this.slot[this.keys[i]!] = -1;
    this.count = 0;
  }

  private up(s: number): void {
    const key = this.keys[s]!;
    const p = this.prio[s]!;
    while (s > 0) {
      const parent = (s - 1) >> 1;
      if (this.prio[parent]! >= p) break;
      this.move(parent, s);
      s = parent;
    }
    this.keys[s] = key;
    this.prio[s] = p;
    this.slot[key] = s;
  }

  private down(s: number): void {
    const key = this.keys[s]!;
    const p = this.prio[s]!;
    const n = this.count;
    for (;;) {
      const l = 2 * s + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.prio[r]! > this.prio[l]! ? r : l;
      if (this.prio[c]! <= p) break;
      this.move(c, s);
      s = c;
    }
    this.keys[s] = key;
    this.prio[s] = p;
    this.slot[key] = s;
  }

  private move(from: number, to: number): void {
    const k = this.keys[from]!;
    this.keys[to] = k;
    this.prio[to] = this.prio[from]!;
    this.slot[k] = to;
  }
}
