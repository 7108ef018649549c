import { beladyHitRate, createCachedDataset, fromLoader, ManualClock } from '@medfusion/core';
import { describe, expect, it } from 'vitest';

/** Read `trace` (set as the plan) through a cache of `cacheSize`; return the loads made. */
async function run(trace: number[], cacheSize: number, evictionPolicy: 'lru' | 'belady') {
  const loads: number[] = [];
  const source = fromLoader(10, (i) => {
    loads.push(i);
    return { i };
  });
  const ds = createCachedDataset(source, {
    cacheType: 'lru',
    cacheSize,
    evictionPolicy,
    clock: new ManualClock(),
  });
  ds.setPlan(trace);
  for (const i of trace) expect((await ds.get(i)).i).toBe(i);
  const stats = ds.getCacheStats();
  await ds.close();
  return { loads, stats };
}

describe('plan-aware eviction evicts the sample used farthest in the future', () => {
  // Hand-computed, capacity 2. At 2 (p2) the next uses are 0→p3, 1→p4, 2→p5: 2 itself
  // is needed last, so it is not admitted. At p5 and p6 nothing held is needed again
  // except 0 (p7), so 0 stays. Misses: p0 p1 p2 p5 p6.
  const trace = [0, 1, 2, 0, 1, 2, 3, 0];

  it('Belady on a hand-computed trace: 3 hits, loads 0 1 2 2 3', async () => {
    const { loads, stats } = await run(trace, 2, 'belady');
    expect(loads).toEqual([0, 1, 2, 2, 3]);
    expect(stats).toMatchObject({ hits: 3, misses: 5, size: 2, capacity: 2 });
    expect(stats.optimalHitRate).toBe(3 / 8);
    expect(beladyHitRate(trace, 2)).toEqual({ hits: 3, misses: 5, hitRate: 3 / 8 });
  });

  it('LRU on the same trace misses every read (the cyclic worst case)', async () => {
    const { loads, stats } = await run(trace, 2, 'lru');
    expect(loads).toEqual(trace);
    expect(stats.hits).toBe(0);
    expect(stats.evictions).toBe(6);
  });

  it('the textbook reference string: 8 misses with 3 slots (9 for demand-only OPT, 12 for LRU)', async () => {
    // Silberschatz's string; demand-paging OPT has 9 faults. Hand trace with bypass:
    // p7 (4) is never used again, so it is not admitted, and 0 stays until p10: 8 misses.
    const s = [7, 0, 1, 2, 0, 3, 0, 4, 2, 3, 0, 3, 2, 1, 2, 0, 1, 7, 0, 1];
    const belady = await run(s, 3, 'belady');
    expect(belady.loads).toEqual([7, 0, 1, 2, 3, 4, 1, 7]);
    expect(belady.stats.misses).toBe(8);
    expect(beladyHitRate(s, 3).misses).toBe(8);
    const lru = await run(s, 3, 'lru');
    expect(lru.stats.misses).toBe(12);
  });

  it("'auto' is LRU until a plan is set, then Belady", async () => {
    const loads: number[] = [];
    const source = fromLoader(10, (i) => {
      loads.push(i);
      return i;
    });
    const ds = createCachedDataset(source, { cacheSize: 2, clock: new ManualClock() });
    for (const i of [0, 1, 2, 0]) await ds.get(i); // LRU: 2 evicts 0, then 0 evicts 1
    expect(loads).toEqual([0, 1, 2, 0]);
    ds.setPlan([1, 3, 4, 1]);
    for (const i of [1, 3, 4]) await ds.get(i);
    // Belady keeps 1 (needed again) and lets 3 and 4 (never needed) take the other slot;
    // LRU would have evicted 1 when 4 came.
    expect(ds.get(1)).toBe(1); // a synchronous hit, no load
    expect(loads).toEqual([0, 1, 2, 0, 1, 3, 4]);
    expect(ds.getCacheStats().hits).toBe(1);
    await ds.close();
  });
});
