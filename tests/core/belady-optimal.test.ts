import {
  beladyHitRate,
  createCachedDataset,
  DataLoader,
  fromLoader,
  ManualClock,
  shuffledOrder,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

const N = 200;
const C = 50;
const EPOCHS = 4;

async function epochs(evictionPolicy: 'auto' | 'lru') {
  let loads = 0;
  const source = fromLoader(N, (i) => {
    loads++;
    return i;
  });
  const ds = createCachedDataset(source, {
    cacheType: 'lru',
    cacheSize: C,
    evictionPolicy,
    clock: new ManualClock(),
  });
  const perEpoch: { hits: number; optimal: number | undefined }[] = [];
  for (let e = 0; e < EPOCHS; e++) {
    const order = shuffledOrder(N, 7, e);
    ds.setPlan(order);
    const before = ds.getCacheStats();
    for (const i of order) await ds.get(i);
    const after = ds.getCacheStats();
    perEpoch.push({ hits: after.hits - before.hits, optimal: after.optimalHitRate });
  }
  await ds.close();
  return { perEpoch, loads };
}

describe('on full-permutation epochs plan-aware eviction reaches the optimum', () => {
  it('Belady holds a fixed resident set: cacheSize/length per epoch after the first', async () => {
    const { perEpoch, loads } = await epochs('auto');
    expect(perEpoch[0]!.hits).toBe(0); // a cold permutation cannot hit
    for (const { hits, optimal } of perEpoch.slice(1)) {
      expect(hits).toBeGreaterThanOrEqual(C); // at least cacheSize/length …
      expect(hits / N).toBe(optimal); // … and exactly what the offline optimum allows
    }
    expect(loads).toBe(N * EPOCHS - perEpoch.reduce((s, e) => s + e.hits, 0));
  });

  it('LRU gets almost nothing on the same epochs', async () => {
    const { perEpoch } = await epochs('lru');
    const lruHits = perEpoch.slice(1).reduce((s, e) => s + e.hits, 0);
    const optimalHits = perEpoch.slice(1).reduce((s, e) => s + (e.optimal ?? 0) * N, 0);
    expect(lruHits / ((EPOCHS - 1) * N)).toBeLessThan(0.1); // vs 0.25 for Belady
    expect(lruHits).toBeLessThan(optimalHits / 3);
  });

  it('beladyHitRate over several permutations: at least cacheSize/length on each repeat pass', () => {
    const trace: number[] = [];
    for (let e = 0; e < 3; e++) trace.push(...shuffledOrder(1000, 3, e));
    const { hits } = beladyHitRate(trace, 100);
    expect(hits).toBeGreaterThanOrEqual(2 * 100);
    expect(hits).toBeLessThan(2 * 100 + 60); // boundary effects only: no magic beyond C/N
  });

  it('the DataLoader hands the plan over; the engine matches the optimum through it', async () => {
    const source = fromLoader(N, (i) => ({ x: new Float32Array([i]), label: i % 2 }));
    const ds = createCachedDataset(source, { cacheType: 'both', cacheSize: C, prefetchSize: 8 });
    const loader = new DataLoader(ds, { batchSize: 10, shuffle: true, seed: 5 });
    for (let e = 0; e < 3; e++) {
      const before = ds.getCacheStats().hits;
      let samples = 0;
      for await (const batch of loader) samples += batch.label!.shape[0]!;
      expect(samples).toBe(N);
      const stats = ds.getCacheStats();
      if (e > 0) expect((stats.hits - before) / N).toBe(stats.optimalHitRate);
    }
    await ds.close();
  });
});
