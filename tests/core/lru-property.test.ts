import type { EvictReason } from '@medfusion/core';
import { LRUCache } from '@medfusion/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** A value whose size is carried along, so the model can measure it the same way. */
interface Item {
  id: number;
  bytes: number;
}
interface Entry {
  key: number;
  value: Item;
}
type Op =
  | { op: 'get'; key: number }
  | { op: 'peek'; key: number }
  | { op: 'has'; key: number }
  | { op: 'delete'; key: number }
  | { op: 'set'; key: number; bytes: number }
  | { op: 'evictOne' }
  | { op: 'clear' };

/** The obviously-correct reference: an array, most recent first. */
class ModelLRU {
  entries: Entry[] = [];
  hits = 0;
  misses = 0;
  sets = 0;
  evictions = 0;
  rejected = 0;
  events: [number, number, EvictReason][] = [];
  constructor(
    readonly capacity: number,
    readonly maxBytes: number,
  ) {}
  bytes(): number {
    return this.entries.reduce((a, e) => a + e.value.bytes, 0);
  }
  find(key: number): number {
    return this.entries.findIndex((e) => e.key === key);
  }
  remove(i: number, reason: EvictReason): void {
    const [e] = this.entries.splice(i, 1);
    if (!e) throw new Error('model: bad index');
    if (reason === 'evict') this.evictions++;
    this.events.push([e.key, e.value.id, reason]);
  }
  get(key: number): Item | undefined {
    const i = this.find(key);
    if (i < 0) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    const [e] = this.entries.splice(i, 1);
    this.entries.unshift(e as Entry);
    return (e as Entry).value;
  }
  peek(key: number): Item | undefined {
    return this.entries[this.find(key)]?.value;
  }
  set(key: number, value: Item): void {
    const i = this.find(key);
    if (value.bytes > this.maxBytes) {
      this.rejected++;
      if (i >= 0) this.remove(i, 'set');
      this.events.push([key, value.id, 'tooLarge']);
      return;
    }
    this.sets++;
    const old = i >= 0 ? this.entries.splice(i, 1)[0] : undefined;
    this.entries.unshift({ key, value });
    // Victims leave least recent first, before the replaced value is reported.
    while (this.entries.length > this.capacity || this.bytes() > this.maxBytes) {
      this.remove(this.entries.length - 1, 'evict');
    }
    if (old && old.value !== value) this.events.push([key, old.value.id, 'set']);
  }
  clear(): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const e = this.entries[i] as Entry;
      this.events.push([e.key, e.value.id, 'clear']);
    }
    this.entries = [];
  }
}

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record({ op: fc.constant('get' as const), key: fc.integer({ min: 0, max: 11 }) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('peek' as const),
      key: fc.integer({ min: 0, max: 11 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('has' as const), key: fc.integer({ min: 0, max: 11 }) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('delete' as const),
      key: fc.integer({ min: 0, max: 11 }),
    }),
  },
  {
    weight: 20,
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      key: fc.integer({ min: 0, max: 11 }),
      bytes: fc.integer({ min: 0, max: 40 }),
    }),
  },
  { weight: 5, arbitrary: fc.constant({ op: 'evictOne' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'clear' as const }) },
);

describe('LRUCache against a reference model (property)', () => {
  it('matches contents, recency order, byte budget, callbacks and stats after every step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
        fc.array(opArb, { maxLength: 120 }),
        (capacity, maxBytes, ops) => {
          const events: [number, number, EvictReason][] = [];
          const cache = new LRUCache<number, Item>({
            capacity,
            ...(maxBytes === undefined ? {} : { maxBytes }),
            sizeOf: (v) => v.bytes,
            onEvict: (k, v, r) => events.push([k, v.id, r]),
          });
          const model = new ModelLRU(capacity, maxBytes ?? Number.POSITIVE_INFINITY);
          let nextId = 0;
          for (const o of ops) {
            switch (o.op) {
              case 'get':
                expect(cache.get(o.key)).toBe(model.get(o.key));
                break;
              case 'peek':
                expect(cache.peek(o.key)).toBe(model.peek(o.key));
                break;
              case 'has':
                expect(cache.has(o.key)).toBe(model.find(o.key) >= 0);
                break;
              case 'delete': {
                const i = model.find(o.key);
                if (i >= 0) model.remove(i, 'delete');
                expect(cache.delete(o.key)).toBe(i >= 0);
                break;
              }
              case 'set': {
                const item = { id: nextId++, bytes: o.bytes };
                cache.set(o.key, item);
                model.set(o.key, item);
                break;
              }
              case 'evictOne': {
                const had = model.entries.length > 0;
                if (had) model.remove(model.entries.length - 1, 'evict');
                expect(cache.evictOne()).toBe(had);
                break;
              }
              case 'clear':
                cache.clear();
                model.clear();
                break;
            }
            expect([...cache.entries()]).toEqual(model.entries.map((e) => [e.key, e.value]));
            expect(cache.size).toBe(model.entries.length);
            expect(cache.size).toBeLessThanOrEqual(capacity);
            expect(cache.bytes).toBe(model.bytes());
            if (maxBytes !== undefined) expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
            expect(events).toEqual(model.events);
            expect(cache.stats()).toEqual({
              hits: model.hits,
              misses: model.misses,
              sets: model.sets,
              evictions: model.evictions,
              rejected: model.rejected,
              size: model.entries.length,
              capacity,
              bytes: model.bytes(),
              maxBytes,
            });
          }
        },
      ),
      { numRuns: 300, seed: 20261130 },
    );
  });

  it('keeps its invariants with fractional sizes (floating-point totals)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 5 }), fc.double({ min: 0, max: 1.2, noNaN: true })),
          { maxLength: 80 },
        ),
        (trace) => {
          const cache = new LRUCache<number, number>({
            capacity: 4,
            maxBytes: 1,
            sizeOf: (v) => v,
          });
          for (const [key, size] of trace) {
            cache.set(key, size);
            if (size <= 1) expect(cache.peek(key)).toBe(size);
            else expect(cache.has(key)).toBe(false);
            const held = [...cache.entries()];
            const exact = held.reduce((a, [, v]) => a + v, 0);
            expect(held.length).toBeLessThanOrEqual(4);
            expect(exact).toBeLessThanOrEqual(1 + 1e-9);
            expect(cache.bytes).toBeCloseTo(exact, 9);
          }
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });

  it('keeps a large random trace identical to the model at capacity well past the initial storage', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 299 })), {
          minLength: 500,
          maxLength: 2000,
        }),
        (trace) => {
          const cache = new LRUCache<number, number>({ capacity: 150 });
          const model = new ModelLRU(150, Number.POSITIVE_INFINITY);
          trace.forEach(([isSet, key], i) => {
            if (isSet) {
              cache.set(key, i);
              model.set(key, { id: i, bytes: 0 });
            } else {
              expect(cache.get(key)).toBe(model.get(key)?.id);
            }
          });
          expect([...cache.keys()]).toEqual(model.entries.map((e) => e.key));
          expect(cache.stats().evictions).toBe(model.evictions);
        },
      ),
      { numRuns: 20, seed: 7 },
    );
  });
});
