import {
  beladyHitRate,
  createCachedDataset,
  DataLoader,
  fromLoader,
  IndexPermutation,
  ManualClock,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { localRepeats, shuffledEpochs } from '../../bench/_trace.js';

// The seed scenario's traces (DESIGN.md): 10,000 samples, cacheSize 1,000.
const N = 10_000;
const CACHE = 1000;
const traces = [
  ['shuffled-epochs', shuffledEpochs(N, 0x5eed)],
  ['local-repeats', localRepeats(N, 2000, 0x5eed + 1)],
] as const;

describe('plan-aware eviction through a window of the plan', () => {
  it('Belady seeing 4 × cacheSize ahead is within 1 point of the whole-plan optimum', () => {
    for (const [, trace] of traces) {
      const whole = beladyHitRate(trace, CACHE).hitRate;
      const windowed = beladyHitRate(trace, CACHE, { window: 4 * CACHE }).hitRate;
      expect(Math.abs(whole - windowed)).toBeLessThanOrEqual(0.01);
      // a window far too short does lose hits: the comparison can fail
      expect(beladyHitRate(trace, CACHE, { window: 100 }).hitRate).toBeLessThan(whole - 0.01);
    }
  });

  it('the engine with planWindow 4 × cacheSize reaches the whole-plan optimum within 1 point', async () => {
    for (const [name, trace] of traces) {
      const ds = createCachedDataset(
        fromLoader(N, (i) => i),
        {
          cacheType: 'lru',
          cacheSize: CACHE,
          planWindow: 4 * CACHE,
          clock: new ManualClock(),
        },
      );
      ds.setPlan(trace);
      for (const i of trace) expect(await ds.get(i)).toBe(i);
      const stats = ds.getCacheStats();
      await ds.close();
      const whole = beladyHitRate(trace, CACHE).hitRate;
      expect(stats.hitRate, name).toBeGreaterThanOrEqual(whole - 0.01);
    }
  });

  it('a read-once plan gives exact next uses beyond the window', async () => {
    const n = 5000;
    const plan = new IndexPermutation(n, 1, 0);
    const ds = createCachedDataset(
      fromLoader(n, (i) => i),
      { cacheType: 'lru', cacheSize: 10, planWindow: 1, clock: new ManualClock() },
    );
    // warm the cache with the samples the plan reads last and first
    const warm = [plan.indexAt(n - 1), plan.indexAt(0), plan.indexAt(1)];
    for (const i of warm) await ds.get(i);
    ds.setPlan(plan);
    for (const i of plan) await ds.get(i);
    const stats = ds.getCacheStats();
    await ds.close();
    expect(stats.optimalHitRate).toBe(3 / n);
    expect(stats.planHitRate).toBe(3 / n);
  });
});

describe('memory independent of the data set size', () => {
  it('loads shuffled batches of a 2^50-sample data set through the caching engine', async () => {
    const n = 2 ** 50;
    const source = fromLoader(n, (i) => ({ x: new Float32Array([i % 7]), label: i % 2 }));
    const ds = createCachedDataset(source, { cacheType: 'both', cacheSize: 100 });
    const loader = new DataLoader(ds, { batchSize: 16, shuffle: true, seed: 5 });
    const plan = loader.planOf(0);
    let b = 0;
    for await (const batch of loader) {
      expect(batch.label!.data.length).toBe(16);
      if (++b === 3) break;
    }
    expect(loader.state()).toEqual({ seed: 5, epoch: 0, cursor: 3 });
    const seen: number[] = [];
    const probe = fromLoader(n, (i) => {
      seen.push(i);
      return { x: new Float32Array([0]), label: 0 };
    });
    const again = new DataLoader(probe, {
      batchSize: 16,
      shuffle: true,
      resumeFrom: loader.state(),
      prefetchBatches: 0,
    });
    for await (const _ of again) break;
    expect(seen.slice(0, 16)).toEqual(Array.from({ length: 16 }, (_, k) => plan.indexAt(48 + k)));
    expect(ds.getCacheStats().optimalHitRate).toBeDefined();
    await ds.close();
  });
});
