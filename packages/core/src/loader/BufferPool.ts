import type { TypedArray, TypedArrayConstructor } from '../util/typedArrays.js';
import { nonNegativeInt } from '../util/validate.js';

/**
 * A ring of typed-array sets for batch outputs. Each batch takes the next slot
 * of the ring ({@link BufferPool.nextBatch}); a slot's arrays are reused when
 * the ring comes back to it, `depth` batches later. So a batch's arrays stay
 * valid until `depth` more batches have been produced; with `depth = 0`
 * every request gets a fresh array (no reuse).
 *
 * @example
 * const pool = new BufferPool(2);
 * pool.nextBatch();
 * const a = pool.acquire('image', Float32Array, 1024); // reused two batches later
 */
export class BufferPool {
  /** Number of batches whose arrays are alive at once (0 = no reuse). */
  readonly depth: number;
  private readonly slots: Map<string, TypedArray>[];
  private slot = 0;

  constructor(depth: number) {
    this.depth = nonNegativeInt('batchBuffers', depth);
    this.slots = [];
    for (let i = 0; i < depth; i++) this.slots.push(new Map());
  }

  /** Move to the next slot of the ring; call once per batch, before acquiring. */
  nextBatch(): void {
    if (this.depth > 0) this.slot = (this.slot + 1) % this.depth;
  }

  /**
   * An array of `ctor` with exactly `length` elements for `key` in the current
   * slot. Contents are unspecified (the caller overwrites every element).
   */
  acquire<A extends TypedArray>(key: string, ctor: TypedArrayConstructor<A>, length: number): A {
    if (this.depth === 0) return new ctor(length);
    const map = this.slots[this.slot]!;
    const held = map.get(key);
    if (held !== undefined && held.constructor === ctor && held.length >= length) {
      return (held.length === length ? held : held.subarray(0, length)) as A;
    }
    const fresh = new ctor(length);
    map.set(key, fresh);
    return fresh;
  }

  /** Drop every pooled array (they are garbage-collected once unreferenced). */
  clear(): void {
    for (const map of this.slots) map.clear();
  }
}
