import {
  CachingEngine,
  createCachedDataset,
  fromLoader,
  MemoryStore,
  TieredCachedDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function counted(calls: number[]) {
  return fromLoader(6, (i) => {
    calls.push(i);
    return { x: new Float32Array([i]) };
  });
}

describe('createCachedDataset with a store returns a TieredCachedDataset', () => {
  it('is its own class, not a patched engine, with the memory / disk / source split', async () => {
    const calls: number[] = [];
    const ds = createCachedDataset(counted(calls), {
      cacheSize: 2,
      store: new MemoryStore(),
      fingerprint: 't@1',
    });
    expect(ds).toBeInstanceOf(TieredCachedDataset);
    expect(ds).not.toBeInstanceOf(CachingEngine);
    expect(Object.hasOwn(ds, 'getCacheStats')).toBe(false);
    expect(Object.hasOwn(ds, 'close')).toBe(false);
    await ds.get(0);
    await ds.get(1);
    await ds.get(0); // memory
    await ds.flush();
    ds.clearCache(); // memory only: the disk keeps both
    await ds.get(1); // disk
    const s = ds.getCacheStats();
    expect(s).toMatchObject({ hits: 1, memoryHits: 1, diskHits: 1, diskMisses: 2, capacity: 2 });
    expect(s.disk).toMatchObject({ diskWrites: 2, fingerprint: 't@1' });
    expect(s.evictionPolicy).toBe('lru');
    expect(calls).toEqual([0, 1]);
    await ds.close();
  });

  it("builds each strategy's memory tier over the disk ('prefetch' keeps nothing in memory)", async () => {
    const store = new MemoryStore();
    const prefetch = createCachedDataset(counted([]), { cacheType: 'prefetch', store });
    expect(prefetch.getCacheStats().capacity).toBe(0);
    await prefetch.close();
    const both = createCachedDataset(counted([]), { cacheType: 'both', store });
    expect(both.getCacheStats().capacity).toBe(1000);
    await both.close();
  });

  it('with an executor, source loads run on it and the disk still fills', async () => {
    const ran: number[] = [];
    const store = new MemoryStore();
    const ds = createCachedDataset(counted([]), {
      cacheType: 'lru',
      store,
      fingerprint: 'ex@1',
      executor: {
        run: async (i) => {
          ran.push(i);
          return { x: new Float32Array([i * 10]) };
        },
      },
    });
    expect((await ds.get(3)).x[0]).toBe(30);
    await ds.flush();
    expect(ran).toEqual([3]);
    expect(await store.keys()).toEqual(['ex@1/3']);
    await ds.close();
  });
});
