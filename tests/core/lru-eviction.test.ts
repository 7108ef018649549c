import type { EvictReason } from '@medfusion/core';
import { LRUCache } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

type Event = [string, number, EvictReason];

function recorder(): { events: Event[]; onEvict: (k: string, v: number, r: EvictReason) => void } {
  const events: Event[] = [];
  return { events, onEvict: (k, v, r) => events.push([k, v, r]) };
}

describe('LRUCache eviction order and stats on scripted traces', () => {
  it('evicts the least recently used entry, where get refreshes recency and peek/has do not', () => {
    const { events, onEvict } = recorder();
    const c = new LRUCache<string, number>({ capacity: 3, onEvict });
    c.set('a', 1).set('b', 2).set('c', 3);
    expect([...c.keys()]).toEqual(['c', 'b', 'a']);
    expect(c.get('a')).toBe(1); // a is now most recent
    expect(c.peek('b')).toBe(2); // no recency change
    expect(c.has('b')).toBe(true); // no recency change
    c.set('d', 4); // evicts b
    expect(events).toEqual([['b', 2, 'evict']]);
    expect([...c.keys()]).toEqual(['d', 'a', 'c']);
    c.set('e', 5); // evicts c
    expect(c.get('c')).toBeUndefined();
    expect(c.get('b')).toBeUndefined();
    expect(events.map((e) => e[0])).toEqual(['b', 'c']);
    expect([...c.entries()]).toEqual([
      ['e', 5],
      ['d', 4],
      ['a', 1],
    ]);
    expect(c.stats()).toEqual({
      hits: 1,
      misses: 2,
      sets: 5,
      evictions: 2,
      rejected: 0,
      size: 3,
      capacity: 3,
      bytes: 0,
      maxBytes: undefined,
    });
  });

  it('replacing a value refreshes recency, reports the old value as "set", and not for the same value', () => {
    const { events, onEvict } = recorder();
    const c = new LRUCache<string, number>({ capacity: 2, onEvict });
    c.set('a', 1).set('b', 2).set('a', 10);
    expect(events).toEqual([['a', 1, 'set']]);
    c.set('a', 10);
    expect(events).toHaveLength(1);
    c.set('c', 3); // b is the least recent now
    expect(events[1]).toEqual(['b', 2, 'evict']);
    expect(c.peek('a')).toBe(10);
    expect(c.size).toBe(2);
    expect(c.stats().sets).toBe(5); // a, b, a, a (same value still counts), c
  });

  it('delete, evict, evictOne and clear report their reasons; clear keeps the counters', () => {
    const { events, onEvict } = recorder();
    const c = new LRUCache<string, number>({ capacity: 4, onEvict });
    c.set('a', 1).set('b', 2).set('c', 3).set('d', 4);
    expect(c.delete('b')).toBe(true);
    expect(c.delete('b')).toBe(false);
    expect(c.evict('c')).toBe(true);
    expect(c.evict('zz')).toBe(false);
    expect(c.evictOne()).toBe(true); // a is least recent
    expect(events).toEqual([
      ['b', 2, 'delete'],
      ['c', 3, 'evict'],
      ['a', 1, 'evict'],
    ]);
    c.set('e', 5);
    c.get('d');
    c.clear();
    expect(events.slice(3)).toEqual([
      ['e', 5, 'clear'],
      ['d', 4, 'clear'],
    ]);
    expect(c.size).toBe(0);
    expect(c.evictOne()).toBe(false);
    expect([...c.keys()]).toEqual([]);
    const s = c.stats();
    expect([s.hits, s.sets, s.evictions, s.size]).toEqual([1, 5, 2, 0]);
    // Reusable after clear, with freed slots recycled.
    c.set('x', 9).set('y', 8);
    expect([...c.keys()]).toEqual(['y', 'x']);
  });

  it('keeps within maxBytes, evicting least recent first, and rejects values larger than maxBytes', () => {
    const { events, onEvict } = recorder();
    const c = new LRUCache<string, number>({
      capacity: 100,
      maxBytes: 10,
      sizeOf: (v) => v,
      onEvict,
    });
    c.set('a', 4).set('b', 4);
    expect(c.bytes).toBe(8);
    c.set('c', 4); // 12 > 10: a goes
    expect(events).toEqual([['a', 4, 'evict']]);
    expect(c.bytes).toBe(8);
    c.set('big', 11); // rejected, nothing evicted
    expect(events[1]).toEqual(['big', 11, 'tooLarge']);
    expect(c.has('big')).toBe(false);
    expect([...c.keys()]).toEqual(['c', 'b']);
    c.set('b', 10); // grows b to the whole budget: c goes first, then the old b is reported
    expect(events[2]).toEqual(['c', 4, 'evict']);
    expect(events[3]).toEqual(['b', 4, 'set']);
    expect(c.bytes).toBe(10);
    c.set('b', 12); // too large: the stale b must not survive
    expect(c.has('b')).toBe(false);
    expect(events.slice(4)).toEqual([
      ['b', 10, 'set'],
      ['b', 12, 'tooLarge'],
    ]);
    expect(c.stats()).toMatchObject({ rejected: 2, sets: 4, evictions: 2, bytes: 0, size: 0 });
  });

  it('never evicts the entry being replaced, even when fractional sizes drift over the budget', () => {
    const c = new LRUCache<string, number>({ capacity: 5, maxBytes: 1, sizeOf: (v) => v });
    // A trace found by search: the running byte total drifts above the exact sum, so growing b
    // to the whole budget looks over budget even after everything else has gone.
    c.set('a', 0.2).set('a', 0.5).set('b', 0.2).set('c', 0.4).set('a', 0.2);
    c.set('b', 1);
    expect([...c.entries()]).toEqual([['b', 1]]);
    expect(c.get('b')).toBe(1);
    expect(c.bytes).toBe(1);
    c.set('c', 0.5);
    expect([...c.entries()]).toEqual([['c', 0.5]]);
  });

  it('measures typed arrays by default when maxBytes is set', () => {
    const c = new LRUCache<number, { image: Uint8Array; label: number }>({
      capacity: 10,
      maxBytes: 2048,
    });
    c.set(1, { image: new Uint8Array(1000), label: 0 });
    c.set(2, { image: new Uint8Array(1000), label: 1 });
    expect(c.bytes).toBe(2000);
    c.set(3, { image: new Uint8Array(1000), label: 2 });
    expect([...c.keys()]).toEqual([3, 2]);
    expect(c.stats().maxBytes).toBe(2048);
  });

  it('grows past its initial storage and still honours capacity exactly', () => {
    const evicted: number[] = [];
    const c = new LRUCache<number, number>({ capacity: 1000, onEvict: (k) => evicted.push(k) });
    for (let i = 0; i < 1500; i++) c.set(i, i * 2);
    expect(c.size).toBe(1000);
    expect(evicted).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(c.get(499)).toBeUndefined();
    expect(c.get(500)).toBe(1000);
    expect([...c.keys()].slice(0, 3)).toEqual([500, 1499, 1498]);
  });

  it('finishes the operation when onEvict throws, then rethrows the first error', () => {
    const boom = new Error('boom');
    const c = new LRUCache<string, number>({
      capacity: 1,
      onEvict: () => {
        throw boom;
      },
    });
    c.set('a', 1);
    expect(() => c.set('b', 2)).toThrow(boom);
    expect([...c.entries()]).toEqual([['b', 2]]);
    expect(() => c.clear()).toThrow(boom);
    expect(c.size).toBe(0);
  });
});
