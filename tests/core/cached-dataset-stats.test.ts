import { CachedDataset, fromArray, fromLoader } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('CachedDataset statistics on a scripted trace', () => {
  it('serves repeats from memory, evicts least recently used, and counts exactly', () => {
    const loaded: number[] = [];
    const ds = fromLoader(10, (i) => {
      loaded.push(i);
      return { id: i, image: new Uint8Array(100) };
    });
    const cached = new CachedDataset(ds, { cacheSize: 2 });
    expect(cached.length).toBe(10);
    expect(cached.getCacheStats()).toEqual({
      hits: 0,
      misses: 0,
      hitRate: 0,
      size: 0,
      capacity: 2,
      evictions: 0,
      bytes: 0,
      maxBytes: undefined,
      loads: 0,
      inFlight: 0,
      rejected: 0,
    });
    const first = cached.get(0);
    expect(cached.get(0)).toBe(first); // synchronous hit, same object
    cached.get(1);
    cached.get(0); // 0 most recent
    cached.get(2); // evicts 1
    cached.get(1); // miss again, evicts 0
    cached.get(2);
    expect(loaded).toEqual([0, 1, 2, 1]);
    expect(cached.getCacheStats()).toEqual({
      hits: 3,
      misses: 4,
      hitRate: 3 / 7,
      size: 2,
      capacity: 2,
      evictions: 2,
      bytes: 200,
      maxBytes: undefined,
      loads: 4,
      inFlight: 0,
      rejected: 0,
    });
  });

  it('clearCache empties memory and resets nothing else', () => {
    const cached = new CachedDataset(fromArray([{ image: new Float32Array(4) }, { image: null }]));
    cached.get(0);
    cached.get(0);
    cached.get(1);
    cached.clearCache();
    const s = cached.getCacheStats();
    expect([s.size, s.bytes]).toEqual([0, 0]);
    expect([s.hits, s.misses, s.loads, s.capacity]).toEqual([1, 2, 2, 1000]);
    cached.get(0);
    expect(cached.getCacheStats()).toMatchObject({ hits: 1, misses: 3, size: 1, bytes: 16 });
  });

  it('keeps within maxBytes and serves, but does not keep, a sample larger than it', () => {
    const sizes = [60, 60, 60, 500];
    const cached = new CachedDataset(
      fromLoader(4, (i) => new Uint8Array(sizes[i] ?? 0)),
      { cacheSize: 10, maxBytes: 150 },
    );
    cached.get(0);
    cached.get(1);
    cached.get(2); // 180 > 150: 0 goes
    expect(cached.getCacheStats()).toMatchObject({ size: 2, bytes: 120, evictions: 1 });
    expect((cached.get(3) as Uint8Array).byteLength).toBe(500);
    expect(cached.getCacheStats()).toMatchObject({
      size: 2,
      bytes: 120,
      rejected: 1,
      maxBytes: 150,
    });
    cached.get(3);
    expect(cached.getCacheStats()).toMatchObject({ misses: 5, loads: 5 });
  });

  it('caches undefined and falsy samples like any other value', async () => {
    let calls = 0;
    const cached = new CachedDataset(
      fromLoader(3, async (i) => {
        calls++;
        return i === 0 ? undefined : i === 1 ? 0 : '';
      }),
    );
    for (const i of [0, 1, 2]) expect(await cached.get(i)).toBe(await cached.get(i));
    expect(calls).toBe(3);
    expect(cached.getCacheStats()).toMatchObject({ hits: 3, misses: 3, hitRate: 0.5, size: 3 });
  });
});
