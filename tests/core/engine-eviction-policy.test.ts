import { CachingEngine, createCachedDataset, fromArray } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const ds = fromArray([0, 1, 2, 3]);

describe('the stats say which eviction policy is in force', () => {
  it("cacheType 'lru' evicts by LRU until a plan is set, then by Belady", () => {
    const lru = createCachedDataset(ds, { cacheType: 'lru', cacheSize: 2 });
    expect(lru.getCacheStats().evictionPolicy).toBe('lru');
    lru.setPlan([0, 1, 2, 3]);
    expect(lru.getCacheStats().evictionPolicy).toBe('belady');
  });

  it("evictionPolicy 'lru' stays LRU with a plan; 'belady' is LRU until a plan is set", () => {
    const pinned = createCachedDataset(ds, { cacheSize: 2, evictionPolicy: 'lru' });
    pinned.setPlan([3, 2, 1]);
    expect(pinned.getCacheStats().evictionPolicy).toBe('lru');
    const belady = createCachedDataset(ds, { cacheSize: 2, evictionPolicy: 'belady' });
    expect(belady.getCacheStats().evictionPolicy).toBe('lru');
    belady.setPlan([3, 2, 1]);
    expect(belady.getCacheStats().evictionPolicy).toBe('belady');
  });
});

describe('cacheSize has one default', () => {
  it('is 1000 for the engine as for the factory', async () => {
    const engine = new CachingEngine(ds);
    expect(engine.getCacheStats().capacity).toBe(1000);
    expect(createCachedDataset(ds).getCacheStats().capacity).toBe(1000);
    await engine.close();
  });
});
