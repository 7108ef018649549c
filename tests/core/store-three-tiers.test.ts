import { createCachedDataset, fromLoader, MemoryStore } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

function source(calls: number[], fail = false) {
  return fromLoader(30, async (i) => {
    calls.push(i);
    if (fail) throw new Error('network down');
    return { image: new Float32Array([i, -i]), label: i % 2 };
  });
}

describe('createCachedDataset with a store: memory → disk → source', () => {
  it('counts memory hits, disk hits and source misses separately', async () => {
    const store = new MemoryStore();
    const calls: number[] = [];
    const first = createCachedDataset(source(calls), {
      cacheType: 'both',
      cacheSize: 10,
      prefetchSize: 4,
      store,
      fingerprint: { name: 'toy', version: 1 },
    });
    for (let i = 0; i < 30; i++) expect((await first.get(i)).label).toBe(i % 2);
    for (let i = 25; i < 30; i++) await first.get(i); // still in memory
    await first.flush();
    const s1 = first.getCacheStats();
    expect(s1.diskMisses).toBe(30);
    expect(s1.diskHits).toBe(0);
    expect(s1.memoryHits).toBe(s1.hits);
    expect(s1.memoryHits).toBeGreaterThanOrEqual(5);
    expect(s1.disk.diskWrites).toBe(30);
    await first.close();

    // a new dataset over the same store: the source is never called, even when it fails
    const dead: number[] = [];
    const second = createCachedDataset(source(dead, true), {
      cacheType: 'lru',
      cacheSize: 10,
      store,
      fingerprint: { name: 'toy', version: 1 },
    });
    for (let i = 0; i < 30; i++) {
      const s = await second.get(i);
      expect(s.image).toBeInstanceOf(Float32Array);
      expect([...s.image]).toEqual([i, -i]);
    }
    await second.get(29);
    const s2 = second.getCacheStats();
    expect(s2).toMatchObject({ diskHits: 30, diskMisses: 0, memoryHits: 1 });
    expect(dead).toEqual([]);
    await second.close();
  });

  it('a new data-set version misses the disk instead of serving stale samples', async () => {
    const store = new MemoryStore();
    const v1 = createCachedDataset(source([]), { store, fingerprint: { name: 'toy', version: 1 } });
    await v1.get(0);
    await v1.close();
    const v2 = createCachedDataset(source([]), { store, fingerprint: { name: 'toy', version: 2 } });
    await v2.get(0);
    expect(v2.getCacheStats()).toMatchObject({ diskHits: 0, diskMisses: 1 });
    await v2.close();
  });
});
