import { ClosedError, MemoryStore } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('MemoryStore', () => {
  it('stores copies, reports usage and evicts least recently used over maxBytes', async () => {
    const store = new MemoryStore({ maxBytes: 10 });
    const a = new Uint8Array([1, 2, 3, 4]);
    await store.put('a', a);
    a[0] = 99;
    expect([...(await store.get('a'))!]).toEqual([1, 2, 3, 4]);
    await store.put('b', new Uint8Array(4));
    await store.get('a'); // a is now most recently used
    await store.put('c', new Uint8Array(4)); // 12 > 10: b goes
    expect(await store.has('b')).toBe(false);
    expect(await store.has('a')).toBe(true);
    expect((await store.keys()).sort()).toEqual(['a', 'c']);
    expect(await store.usage()).toEqual({ bytes: 8, entries: 2, maxBytes: 10 });
    expect(await store.delete('a')).toBe(true);
    expect(await store.delete('a')).toBe(false);
    await store.clear();
    expect(await store.usage()).toEqual({ bytes: 0, entries: 0, maxBytes: 10 });
  });

  it('rejects bad keys, values and sizes naming them', async () => {
    const store = new MemoryStore();
    await expect(store.put('', new Uint8Array(1))).rejects.toThrow(RangeError);
    await expect(store.get(5 as unknown as string)).rejects.toThrow(/key must be a string/);
    await expect(store.put('k', [1] as unknown as Uint8Array)).rejects.toThrow(
      /value must be a Uint8Array/,
    );
    await expect(new MemoryStore({ maxBytes: 2 }).put('k', new Uint8Array(3))).rejects.toThrow(
      /maxBytes/,
    );
    expect(() => new MemoryStore({ maxBytes: -1 })).toThrow(/maxBytes.*-1/);
    expect(() => new MemoryStore({ maxBytes: Number.NaN })).toThrow(RangeError);
    await store.close();
    await expect(store.get('k')).rejects.toThrow(ClosedError);
  });
});
