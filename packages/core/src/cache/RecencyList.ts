/**
 * The eviction order of a least-recently-used cache over integer slots in
 * `[0, slots)`: a doubly linked list in typed arrays, O(1) for every
 * operation, nothing allocated per operation. It has the interface of
 * {@link IndexedMaxHeap} that {@link PlanCache} uses, for priorities that only
 * ever grow newer: a slot set to a priority other than its own becomes the
 * most recently used (its priority is the lowest, the newest), and the head,
 * the least recently used, has the largest priority.
 */
export class RecencyList {
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private readonly prio: Float64Array;
  private readonly held: Uint8Array;
  /** Least recently used slot, -1 when empty. */
  private head = -1;
  /** Most recently used slot, -1 when empty. */
  private tail = -1;
  private count = 0;

  /** @param slots Slots are integers in `[0, slots)`. */
  constructor(slots: number) {
    const n = Math.max(1, slots);
    this.prev = new Int32Array(n);
    this.next = new Int32Array(n);
    this.prio = new Float64Array(n);
    this.held = new Uint8Array(n);
  }

  /** Number of slots held. */
  get size(): number {
    return this.count;
  }

  /** The least recently used slot's priority (the largest), or -Infinity when empty. */
  peekPriority(): number {
    return this.head >= 0 ? (this.prio[this.head] as number) : Number.NEGATIVE_INFINITY;
  }

  /** Insert `slot` as the most recently used, or make it so when `priority` changed. */
  set(slot: number, priority: number): void {
    if (this.held[slot] === 1) {
      if (this.prio[slot] === priority) return;
      this.unlink(slot);
    }
    this.prio[slot] = priority;
    this.held[slot] = 1;
    this.prev[slot] = this.tail;
    this.next[slot] = -1;
    if (this.tail >= 0) this.next[this.tail] = slot;
    else this.head = slot;
    this.tail = slot;
    this.count++;
  }

  /** Remove `slot`; false when it is not held. */
  delete(slot: number): boolean {
    if (this.held[slot] !== 1) return false;
    this.unlink(slot);
    return true;
  }

  /** Remove and return the least recently used slot (-1 when empty). */
  pop(): number {
    const slot = this.head;
    if (slot >= 0) this.unlink(slot);
    return slot;
  }

  /** Call `fn` for every slot held, least recently used first. */
  forEach(fn: (slot: number) => void): void {
    for (let s = this.head; s >= 0; ) {
      const after = this.next[s] as number;
      fn(s);
      s = after;
    }
  }

  /** Remove every slot. */
  clear(): void {
    this.held.fill(0);
    this.head = -1;
    this.tail = -1;
    this.count = 0;
  }

  private unlink(slot: number): void {
    const p = this.prev[slot] as number;
    const n = this.next[slot] as number;
    if (p >= 0) this.next[p] = n;
    else this.head = n;
    if (n >= 0) this.prev[n] = p;
    else this.tail = p;
    this.held[slot] = 0;
    this.count--;
  }
}
